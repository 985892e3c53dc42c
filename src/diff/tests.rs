//! Native tests of the structural walk: paths, kinds, escaping, ignore, order, cycles, bounds,
//! failed reads, truncation, and the paths table.

use serde_json::json;

use super::arena::{n, s, Arena, Slot, Val};
use super::consistency::Comparison;
use super::*;

fn ignore(patterns: &[&str]) -> Ignore {
    Ignore::compile(patterns).unwrap()
}

fn explain_with(arena: &Arena, old: &Val, new: &Val, patterns: &[&str], max: usize) -> Explanation<Val> {
    differences(arena, old, new, &ignore(patterns), max, Bounds::default())
}

/// `(path, kind)` of every difference, at most 100.
fn listed(arena: &Arena, old: &Val, new: &Val, patterns: &[&str]) -> Vec<(String, &'static str)> {
    let explanation = explain_with(arena, old, new, patterns, 100);
    assert!(!explanation.truncated, "{explanation:?}");
    explanation.differences.iter().map(|d| (d.path.clone(), d.kind.name())).collect()
}

fn same(arena: &Arena, old: &Val, new: &Val, patterns: &[&str]) -> Sameness {
    same_structure(arena, old, new, &ignore(patterns), Bounds::default())
}

fn pairs(list: &[(&str, &'static str)]) -> Vec<(String, &'static str)> {
    list.iter().map(|(p, k)| ((*p).to_owned(), *k)).collect()
}

// ---------------------------------------------------------------------------------------------
// Primitives, dates, other objects

#[test]
fn numbers_compare_nan_equal_to_nan_and_zero_equal_to_minus_zero() {
    let arena = Arena::new();
    assert_eq!(same(&arena, &n(f64::NAN), &n(f64::NAN), &[]), Sameness::Same);
    assert_eq!(same(&arena, &n(0.0), &n(-0.0), &[]), Sameness::Same);
    assert_eq!(same(&arena, &n(1.0), &n(1.0), &[]), Sameness::Same);
    assert_eq!(listed(&arena, &n(1.0), &n(2.0), &[]), pairs(&[("", "changed")]));
    assert_eq!(listed(&arena, &n(f64::NAN), &n(0.0), &[]), pairs(&[("", "changed")]));
    assert_eq!(listed(&arena, &n(f64::INFINITY), &n(f64::NEG_INFINITY), &[]), pairs(&[("", "changed")]));
}

#[test]
fn primitives_of_different_kinds_are_a_type_difference() {
    let arena = Arena::new();
    let kinds = [Val::Undefined, Val::Null, Val::Bool(false), n(0.0), s("")];
    for (i, a) in kinds.iter().enumerate() {
        for (j, b) in kinds.iter().enumerate() {
            let expected = if i == j { vec![] } else { pairs(&[("", "type")]) };
            assert_eq!(listed(&arena, a, b, &[]), expected, "{a:?} {b:?}");
        }
    }
    assert_eq!(listed(&arena, &s("a"), &s("b"), &[]), pairs(&[("", "changed")]));
    assert_eq!(listed(&arena, &Val::Bool(true), &Val::Bool(false), &[]), pairs(&[("", "changed")]));
    assert_eq!(same(&arena, &s("same text"), &s("same text"), &[]), Sameness::Same);
}

#[test]
fn dates_compare_by_time_and_other_objects_by_identity() {
    let mut arena = Arena::new();
    let (d1, d2, d3) = (arena.date(1000.0), arena.date(1000.0), arena.date(2000.0));
    let (bad1, bad2) = (arena.date(f64::NAN), arena.date(f64::NAN));
    let (o1, o2) = (arena.other(), arena.other());
    let (object, array) = (arena.object(vec![]), arena.array(vec![]));
    assert_eq!(same(&arena, &d1, &d2, &[]), Sameness::Same);
    assert_eq!(same(&arena, &bad1, &bad2, &[]), Sameness::Same, "invalid dates are equal");
    assert_eq!(listed(&arena, &d1, &d3, &[]), pairs(&[("", "changed")]));
    assert_eq!(listed(&arena, &d1, &n(1000.0), &[]), pairs(&[("", "type")]));
    assert_eq!(same(&arena, &o1, &o1, &[]), Sameness::Same);
    assert_eq!(listed(&arena, &o1, &o2, &[]), pairs(&[("", "changed")]));
    assert_eq!(listed(&arena, &o1, &object, &[]), pairs(&[("", "type")]));
    assert_eq!(listed(&arena, &object, &array, &[]), pairs(&[("", "type")]));
    assert_eq!(listed(&arena, &d1, &object, &[]), pairs(&[("", "type")]));
}

// ---------------------------------------------------------------------------------------------
// Objects, arrays, order, paths

#[test]
fn objects_compare_by_key_sets_and_values_regardless_of_key_order() {
    let mut arena = Arena::new();
    let a = arena.object(vec![("x", n(1.0)), ("y", s("two"))]);
    let b = arena.object(vec![("y", s("two")), ("x", n(1.0))]);
    assert_eq!(same(&arena, &a, &b, &[]), Sameness::Same);
    let c = arena.object(vec![("y", s("two")), ("x", n(1.0)), ("z", Val::Undefined)]);
    assert_eq!(listed(&arena, &a, &c, &[]), pairs(&[("/z", "added")]), "an undefined property is still a key");
}

#[test]
fn small_and_large_objects_match_their_keys_alike_in_any_order() {
    // Up to 16 keys a side the keys are scanned, past that hashed: the same answers either way.
    for size in [3, 16, 17, 40] {
        let mut arena = Arena::new();
        let keys: Vec<String> = (0..size).map(|i| format!("k{i}")).collect();
        let old = arena.object(keys.iter().map(|k| (k.as_str(), n(1.0))).collect());
        let mut reversed: Vec<(&str, Val)> =
            keys.iter().rev().filter(|k| *k != "k1").map(|k| (k.as_str(), n(1.0))).collect();
        reversed.insert(1, ("new", n(2.0)));
        reversed.push(("k0", n(9.0)));
        let new = arena.object(reversed);
        let expected = pairs(&[("/k0", "changed"), ("/k1", "removed"), ("/new", "added")]);
        assert_eq!(listed(&arena, &old, &new, &[]), expected, "{size} keys");
    }
}

#[test]
fn document_order_is_the_old_keys_then_the_new_only_keys_depth_first() {
    let mut arena = Arena::new();
    let old_a = arena.object(vec![("x", n(1.0)), ("y", n(2.0))]);
    let old_b = arena.array(vec![n(1.0), n(2.0)]);
    let old = arena.object(vec![("b", old_b), ("gone", Val::Null), ("a", old_a)]);
    let new_a = arena.object(vec![("z", n(4.0)), ("y", n(3.0))]);
    let new_b = arena.array(vec![n(1.0)]);
    let new = arena.object(vec![("d", n(0.0)), ("a", new_a), ("b", new_b), ("c", n(5.0))]);
    assert_eq!(
        listed(&arena, &old, &new, &[]),
        pairs(&[
            ("/b/1", "removed"),
            ("/gone", "removed"),
            ("/a/x", "removed"),
            ("/a/y", "changed"),
            ("/a/z", "added"),
            ("/d", "added"),
            ("/c", "added"),
        ])
    );
}

#[test]
fn arrays_compare_by_index_ascending() {
    let mut arena = Arena::new();
    let a = arena.array(vec![n(1.0), n(2.0), n(3.0)]);
    let b = arena.array(vec![n(1.0), n(5.0)]);
    let c = arena.array(vec![n(1.0), n(5.0), n(3.0), s("x")]);
    assert_eq!(listed(&arena, &a, &b, &[]), pairs(&[("/1", "changed"), ("/2", "removed")]));
    assert_eq!(listed(&arena, &b, &c, &[]), pairs(&[("/2", "added"), ("/3", "added")]));
    let empty1 = arena.array(vec![]);
    let empty2 = arena.array(vec![]);
    assert_eq!(same(&arena, &empty1, &empty2, &[]), Sameness::Same);
}

#[test]
fn differences_carry_the_hosts_references_not_copies() {
    let mut arena = Arena::new();
    let inner_old = arena.object(vec![("k", n(1.0))]);
    let inner_new = arena.array(vec![]);
    let old = arena.object(vec![("v", inner_old.clone()), ("gone", s("x"))]);
    let new = arena.object(vec![("v", inner_new.clone()), ("came", n(7.0))]);
    let explanation = explain_with(&arena, &old, &new, &[], 16);
    let [typed, removed, added] = &explanation.differences[..] else { panic!("{explanation:?}") };
    assert_eq!(
        (typed.kind, typed.old.as_ref(), typed.new.as_ref()),
        (DifferenceKind::Type, Some(&inner_old), Some(&inner_new))
    );
    assert_eq!(
        (removed.kind, removed.old.as_ref(), removed.new.as_ref()),
        (DifferenceKind::Removed, Some(&s("x")), None)
    );
    assert_eq!((added.kind, added.old.as_ref(), added.new.as_ref()), (DifferenceKind::Added, None, Some(&n(7.0))));
    assert!(explanation.differences.iter().all(|d| d.unreadable.is_none()));
}

#[test]
fn paths_escape_tilde_and_slash_in_keys() {
    let mut arena = Arena::new();
    let old = arena.object(vec![("a/b", n(1.0)), ("m~n", n(1.0)), ("~1", n(1.0)), ("", n(1.0))]);
    let new = arena.object(vec![("a/b", n(2.0)), ("m~n", n(2.0)), ("~1", n(2.0)), ("", n(2.0))]);
    assert_eq!(
        listed(&arena, &old, &new, &[]),
        pairs(&[("/a~1b", "changed"), ("/m~0n", "changed"), ("/~01", "changed"), ("/", "changed")])
    );
}

#[test]
fn normalised_paths_turn_array_indices_into_stars_but_not_numeric_keys() {
    let mut arena = Arena::new();
    let old = arena.json(&json!({"items": [{"price": 1}, {"price": 2}, {"price": 3}, {"price": 4}], "byId": {"3": 1}}));
    let new = arena.json(&json!({"items": [{"price": 1}, {"price": 2}, {"price": 3}, {"price": 5}], "byId": {"3": 2}}));
    let explanation = explain_with(&arena, &old, &new, &[], 16);
    let got: Vec<(&str, &str)> =
        explanation.differences.iter().map(|d| (d.path.as_str(), d.normalised.as_str())).collect();
    assert_eq!(got, vec![("/byId/3", "/byId/3"), ("/items/3/price", "/items/*/price")]);

    let path = Path::new(vec![Segment::Key("items".into()), Segment::Index(3), Segment::Key("a/~".into())]);
    assert_eq!(path.pointer(), "/items/3/a~1~0");
    assert_eq!(normalise(&path), "/items/*/a~1~0");
    assert_eq!(Path::default().pointer(), "");
}

// ---------------------------------------------------------------------------------------------
// Ignore

#[test]
fn ignore_patterns_with_a_star_skip_one_segment_of_any_kind() {
    let mut arena = Arena::new();
    let old =
        arena.json(&json!({"items": [{"price": 1, "id": 1}, {"price": 2, "id": 2}], "meta": {"p": {"price": 1}}}));
    let new =
        arena.json(&json!({"items": [{"price": 9, "id": 1}, {"price": 8, "id": 3}], "meta": {"p": {"price": 2}}}));
    assert_eq!(
        listed(&arena, &old, &new, &["/items/*/price"]),
        pairs(&[("/items/1/id", "changed"), ("/meta/p/price", "changed")])
    );
    assert_eq!(listed(&arena, &old, &new, &["/*/*/price"]), pairs(&[("/items/1/id", "changed")]));
    assert_eq!(same(&arena, &old, &new, &["/*/*/price", "/items/1/id"]), Sameness::Same);
    assert_eq!(same(&arena, &old, &new, &["/items/*/price", "/items/*/id", "/meta"]), Sameness::Same);
}

#[test]
fn a_pattern_ignores_its_whole_subtree_added_and_removed_keys_included() {
    let mut arena = Arena::new();
    let old = arena.json(&json!({"a": {"x": 1, "deep": {"y": [1, 2]}}, "b": 1, "gone": 1}));
    let new = arena.json(&json!({"a": {"z": 1, "deep": "flat"}, "b": 1, "came": 1}));
    assert_eq!(
        listed(&arena, &old, &new, &[]),
        pairs(&[("/a/deep", "type"), ("/a/x", "removed"), ("/a/z", "added"), ("/gone", "removed"), ("/came", "added")])
    );
    assert_eq!(listed(&arena, &old, &new, &["/a"]), pairs(&[("/gone", "removed"), ("/came", "added")]));
    assert_eq!(same(&arena, &old, &new, &["/a", "/gone", "/came"]), Sameness::Same);
    assert_eq!(same(&arena, &old, &new, &["/*"]), Sameness::Same);
}

#[test]
fn the_root_pattern_ignores_everything() {
    let mut arena = Arena::new();
    let old = arena.json(&json!({"a": 1}));
    let revoked = arena.revoked();
    assert_eq!(same(&arena, &old, &n(1.0), &[""]), Sameness::Same);
    assert_eq!(same(&arena, &revoked, &old, &[""]), Sameness::Same);
    assert_eq!(listed(&arena, &old, &n(1.0), &["/other", ""]), vec![]);
}

#[test]
fn literal_patterns_match_indices_keys_and_escaped_keys() {
    let mut arena = Arena::new();
    let old = arena.json(&json!({"list": [1, 2, 3], "a/b": 1, "m~n": 1, "03": 1}));
    let new = arena.json(&json!({"list": [9, 2, 8], "a/b": 2, "m~n": 2, "03": 2}));
    assert_eq!(
        listed(&arena, &old, &new, &["/list/0", "/a~1b", "/m~0n", "/list/02"]),
        pairs(&[("/03", "changed"), ("/list/2", "changed")])
    );
    assert_eq!(listed(&arena, &old, &new, &["/list/2", "/03"]).len(), 3);
}

#[test]
fn a_trailing_star_ignores_every_child_without_reading_them() {
    let mut arena = Arena::new();
    let old = arena.json(&json!({"list": [1, 2, 3], "map": {"a": 1}}));
    let new = arena.json(&json!({"list": [4], "map": {"b": 2, "c": 3}}));
    assert_eq!(same(&arena, &old, &new, &["/list/*", "/map/*"]), Sameness::Same);
    assert_eq!(
        listed(&arena, &old, &new, &["/list/*"]),
        pairs(&[("/map/a", "removed"), ("/map/b", "added"), ("/map/c", "added")])
    );
    // Kinds still count: a star ignores children, not the value itself.
    assert_eq!(listed(&arena, &old, &n(1.0), &["/*"]), pairs(&[("", "type")]));
    let (array, object) = (arena.array(vec![]), arena.object(vec![]));
    assert_eq!(listed(&arena, &array, &object, &["/*"]), pairs(&[("", "type")]));
    assert_eq!(same(&arena, &object, &array, &["/*"]), Sameness::Different);
}

#[test]
fn patterns_that_are_not_json_pointers_are_refused_naming_them() {
    let error = Ignore::compile(&["/ok", "", "items/price"]).unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"sameStructure: ignore[2] must be a JSON Pointer ('' or starting with '/'), got "items/price""#
    );
    assert_eq!(error.class(), crate::error::ErrorClass::Type);
    for bad in ["/a~2", "/a~", "/~/b", "/x/~a"] {
        let error = Ignore::compile(&[bad]).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(r#"sameStructure: ignore[0] must be a JSON Pointer ('~' only as '~0' or '~1'), got "{bad}""#)
        );
    }
    for good in ["", "/", "/~0~1", "//", "/*/*", "/a*", "/-"] {
        assert!(Ignore::compile(&[good]).is_ok(), "{good}");
    }
    assert_eq!(pattern::not_a_string(1).to_string(), "sameStructure: ignore[1] must be a string (a JSON Pointer)");
}

#[test]
fn parsed_patterns_unescape_and_know_the_wildcard() {
    use pattern::{parse_pattern, PatternSegment as P};
    assert_eq!(parse_pattern("", 0).unwrap(), vec![]);
    assert_eq!(parse_pattern("/", 0).unwrap(), vec![P::Literal(String::new())]);
    assert_eq!(
        parse_pattern("/a~1b/*/~0*/c~01", 0).unwrap(),
        vec![P::Literal("a/b".into()), P::Any, P::Literal("~*".into()), P::Literal("c~1".into())]
    );
}

#[test]
fn an_ignored_key_is_never_read() {
    let mut arena = Arena::new();
    let old = arena.object(vec![("fine", n(1.0))]);
    arena.set(&old, "secret", Slot::Throws(s("getter threw")));
    let new = arena.object(vec![("fine", n(1.0)), ("secret", n(1.0))]);
    assert_eq!(same(&arena, &old, &new, &["/secret"]), Sameness::Same);
    assert_eq!(same(&arena, &old, &new, &[]), Sameness::Unreadable);
}

// ---------------------------------------------------------------------------------------------
// Cycles and shared references

#[test]
fn self_cycles_of_the_same_shape_are_equal_and_their_differences_are_found() {
    let mut arena = Arena::new();
    let a = arena.object(vec![("x", n(1.0))]);
    arena.set(&a, "self", Slot::Value(a.clone()));
    let b = arena.object(vec![("x", n(1.0))]);
    arena.set(&b, "self", Slot::Value(b.clone()));
    let c = arena.object(vec![("x", n(2.0))]);
    arena.set(&c, "self", Slot::Value(c.clone()));
    assert_eq!(same(&arena, &a, &b, &[]), Sameness::Same);
    assert_eq!(listed(&arena, &a, &c, &[]), pairs(&[("/x", "changed")]));

    let arr1 = arena.array(vec![]);
    arena.push(&arr1, Slot::Value(arr1.clone()));
    let arr2 = arena.array(vec![]);
    arena.push(&arr2, Slot::Value(arr2.clone()));
    assert_eq!(same(&arena, &arr1, &arr2, &[]), Sameness::Same);
}

#[test]
fn mutual_cycles_and_cycles_of_different_lengths_but_the_same_shape_are_equal() {
    let mut arena = Arena::new();
    // a1 → a2 → a1
    let a1 = arena.object(vec![]);
    let a2 = arena.object(vec![("next", a1.clone())]);
    arena.set(&a1, "next", Slot::Value(a2.clone()));
    // b1 → b2 → b1
    let b1 = arena.object(vec![]);
    let b2 = arena.object(vec![("next", b1.clone())]);
    arena.set(&b1, "next", Slot::Value(b2.clone()));
    // c1 → c2 → c3 → c1
    let c1 = arena.object(vec![]);
    let c3 = arena.object(vec![("next", c1.clone())]);
    let c2 = arena.object(vec![("next", c3)]);
    arena.set(&c1, "next", Slot::Value(c2));
    // self → self
    let d = arena.object(vec![]);
    arena.set(&d, "next", Slot::Value(d.clone()));
    assert_eq!(same(&arena, &a1, &b1, &[]), Sameness::Same);
    assert_eq!(same(&arena, &a1, &c1, &[]), Sameness::Same);
    assert_eq!(same(&arena, &d, &c1, &[]), Sameness::Same);
    assert_eq!(listed(&arena, &a1, &c1, &[]), vec![]);
}

/// A ring of `len` objects, each `{ next }`; returns its first.
fn ring(arena: &mut Arena, len: usize) -> Val {
    let first = arena.object(vec![]);
    let mut next = first.clone();
    for _ in 1..len {
        next = arena.object(vec![("next", next)]);
    }
    arena.set(&first, "next", Slot::Value(next));
    first
}

#[test]
fn cycles_up_to_the_window_are_recognised_and_longer_ones_walk_to_the_depth_bound() {
    let mut arena = Arena::new();
    let (a, b) = (ring(&mut arena, walk::CYCLE_WINDOW), ring(&mut arena, walk::CYCLE_WINDOW));
    assert_eq!(same(&arena, &a, &b, &[]), Sameness::Same);
    let (a, b) = (ring(&mut arena, walk::CYCLE_WINDOW + 1), ring(&mut arena, walk::CYCLE_WINDOW + 1));
    let bounds = Bounds { max_depth: 1000, max_nodes: 10_000 };
    let Sameness::TooLarge(hit) = same_structure(&arena, &a, &b, &Ignore::none(), bounds) else { panic!() };
    assert_eq!(hit.limit, Limit::Depth);
}

#[test]
fn a_cycle_against_a_finite_chain_is_a_difference_where_the_chain_ends() {
    let mut arena = Arena::new();
    let cyclic = arena.object(vec![]);
    arena.set(&cyclic, "next", Slot::Value(cyclic.clone()));
    let end = arena.object(vec![("next", Val::Null)]);
    let mid = arena.object(vec![("next", end)]);
    let chain = arena.object(vec![("next", mid)]);
    assert_eq!(listed(&arena, &cyclic, &chain, &[]), pairs(&[("/next/next/next", "type")]));
}

#[test]
fn a_value_cyclic_on_one_side_only_walks_until_the_depth_bound() {
    let mut arena = Arena::new();
    let cyclic = arena.object(vec![]);
    arena.set(&cyclic, "next", Slot::Value(cyclic.clone()));
    // An acyclic chain as long as the depth bound allows, and one more.
    let mut chain = Val::Null;
    for _ in 0..=DEFAULT_MAX_DEPTH + 1 {
        chain = arena.object(vec![("next", chain)]);
    }
    let Sameness::TooLarge(hit) = same(&arena, &cyclic, &chain, &[]) else { panic!() };
    assert_eq!(hit.limit, Limit::Depth);
    assert_eq!(hit.path, "/next".repeat(DEFAULT_MAX_DEPTH + 1));
}

#[test]
fn shared_references_are_compared_wherever_they_appear_and_an_identical_pair_is_not_read() {
    let mut arena = Arena::new();
    let shared = arena.json(&json!({"big": [1, 2, 3, 4, 5, 6, 7, 8]}));
    let old = arena.object(vec![("p", shared.clone()), ("q", shared.clone())]);
    let copy = arena.json(&json!({"big": [1, 2, 3, 4, 5, 6, 7, 8]}));
    let new = arena.object(vec![("p", shared.clone()), ("q", copy)]);
    assert_eq!(same(&arena, &old, &new, &[]), Sameness::Same);
    arena.reads.set(0);
    assert_eq!(same(&arena, &old, &old, &[]), Sameness::Same);
    assert_eq!(arena.reads.get(), 1, "one identical call");
}

// ---------------------------------------------------------------------------------------------
// Bounds

#[test]
fn a_ten_thousand_key_object_is_a_bound_hit_at_once() {
    let mut arena = Arena::new();
    let entries: Vec<(String, Val)> = (0..10_000).map(|i| (format!("k{i}"), n(f64::from(i)))).collect();
    let wide = |arena: &mut Arena| {
        let object = arena.object(vec![]);
        for (k, v) in &entries {
            arena.set(&object, k, Slot::Value(v.clone()));
        }
        object
    };
    let (a, b) = (wide(&mut arena), wide(&mut arena));
    arena.reads.set(0);
    let Sameness::TooLarge(hit) = same(&arena, &a, &b, &[]) else { panic!() };
    assert_eq!(hit, BoundHit { limit: Limit::Nodes, path: String::new() });
    assert!(arena.reads.get() <= 3, "{} reads", arena.reads.get());
    let explanation = explain_with(&arena, &a, &b, &[], 16);
    assert_eq!((explanation.differences.len(), explanation.truncated), (0, true));
    assert_eq!(explanation.bound, Some(hit));
    // Under a key: the bound is hit there.
    let (outer_a, outer_b) = (arena.object(vec![("wide", a.clone())]), arena.object(vec![("wide", b.clone())]));
    let Sameness::TooLarge(hit) = same(&arena, &outer_a, &outer_b, &[]) else { panic!() };
    assert_eq!(hit.path, "/wide");
    // Ignoring every key, nothing is read.
    assert_eq!(same(&arena, &a, &b, &["/*"]), Sameness::Same);
    // Within larger bounds it is compared, and equal.
    let bounds = Bounds { max_nodes: 10_001, ..Bounds::default() };
    assert_eq!(same_structure(&arena, &a, &b, &Ignore::none(), bounds), Sameness::Same);
}

#[test]
fn a_ten_thousand_deep_chain_is_a_bound_hit_at_the_depth_limit_without_recursion() {
    let mut arena = Arena::new();
    let chain = |arena: &mut Arena| {
        let mut value = n(0.0);
        for _ in 0..10_000 {
            value = arena.array(vec![value]);
        }
        value
    };
    let (a, b) = (chain(&mut arena), chain(&mut arena));
    arena.reads.set(0);
    let Sameness::TooLarge(hit) = same(&arena, &a, &b, &[]) else { panic!() };
    assert_eq!(hit.limit, Limit::Depth);
    assert_eq!(hit.path, "/0".repeat(DEFAULT_MAX_DEPTH + 1));
    // Per level: one `identical`, two shapes, two elements, and one `identical` per open pair
    // above (the arrays are alike at every level).
    let depth = DEFAULT_MAX_DEPTH + 1;
    assert!(arena.reads.get() <= 5 * depth + depth * depth / 2, "{} reads", arena.reads.get());
}

#[test]
fn the_walk_keeps_its_own_stack_so_raised_bounds_compare_a_ten_thousand_deep_tree() {
    let mut arena = Arena::new();
    let chain = |arena: &mut Arena, leaf: f64| {
        let mut value = n(leaf);
        for level in (0..10_000).rev() {
            value = arena.object(vec![(&format!("k{level}"), value)]);
        }
        value
    };
    let (a, b, c) = (chain(&mut arena, 0.0), chain(&mut arena, 0.0), chain(&mut arena, 1.0));
    let bounds = Bounds { max_depth: 20_000, max_nodes: 20_000 };
    assert_eq!(same_structure(&arena, &a, &b, &Ignore::none(), bounds), Sameness::Same);
    let explanation = differences(&arena, &a, &c, &Ignore::none(), 16, bounds);
    let [only] = &explanation.differences[..] else { panic!() };
    assert_eq!(only.path.len(), (0..10_000).map(|level| format!("/k{level}").len()).sum::<usize>());
}

#[test]
fn a_value_the_host_did_not_read_is_a_bound_hit_where_the_walk_reaches_it() {
    let mut arena = Arena::new();
    let (depth, nodes) = (arena.cut(Limit::Depth), arena.cut(Limit::Nodes));
    let old = arena.object(vec![("a", n(1.0)), ("b", depth.clone())]);
    let new = arena.object(vec![("a", n(1.0)), ("b", s("x"))]);
    let hit = |limit, path: &str| Sameness::TooLarge(BoundHit { limit, path: path.into() });
    assert_eq!(same(&arena, &old, &new, &[]), hit(Limit::Depth, "/b"));
    assert_eq!(same(&arena, &depth, &depth, &[]), Sameness::Same, "the same reference is not read");
    assert_eq!(same(&arena, &n(1.0), &nodes, &[]), hit(Limit::Nodes, ""));
    assert_eq!(same(&arena, &old, &new, &["/b"]), Sameness::Same, "an ignored cut is never reached");
    let explanation = explain_with(&arena, &old, &new, &[], 16);
    assert_eq!((explanation.differences.len(), explanation.truncated), (0, true));
    assert_eq!(explanation.bound, Some(BoundHit { limit: Limit::Depth, path: "/b".into() }));
    let first = arena.object(vec![("a", n(2.0)), ("b", nodes)]);
    let explanation = explain_with(&arena, &first, &new, &[], 16);
    assert_eq!(explanation.differences.iter().map(|d| d.path.as_str()).collect::<Vec<_>>(), ["/a"]);
    assert_eq!(explanation.bound, Some(BoundHit { limit: Limit::Nodes, path: "/b".into() }));
}

#[test]
fn the_node_bound_counts_positions_and_stops_the_explanation() {
    let mut arena = Arena::new();
    let old = arena.json(&json!([1, 2, 3, 4, 5]));
    let new = arena.json(&json!([9, 2, 3, 4, 5]));
    let bounds = Bounds { max_depth: 64, max_nodes: 3 };
    let explanation = differences(&arena, &old, &new, &Ignore::none(), 16, bounds);
    assert_eq!(explanation.differences.len(), 1);
    assert_eq!(explanation.bound, Some(BoundHit { limit: Limit::Nodes, path: "/2".into() }));
    assert!(explanation.truncated);
    // A difference before the bound answers `Different`.
    assert_eq!(same_structure(&arena, &old, &new, &Ignore::none(), bounds), Sameness::Different);
    // Exactly enough nodes: compared in full.
    let bounds = Bounds { max_depth: 64, max_nodes: 6 };
    let explanation = differences(&arena, &old, &new, &Ignore::none(), 16, bounds);
    assert_eq!((explanation.differences.len(), explanation.truncated, explanation.bound), (1, false, None));
    let zero = Bounds { max_depth: 0, max_nodes: 0 };
    assert!(matches!(same_structure(&arena, &old, &new, &Ignore::none(), zero), Sameness::TooLarge(_)));
}

#[test]
fn keys_held_by_open_objects_count_against_the_node_bound() {
    let mut arena = Arena::new();
    // Two levels of 60 keys each: 1 + 60 + 60 positions, more keys than 100 nodes allow.
    let inner: Vec<(String, Val)> = (0..60).map(|i| (format!("i{i}"), n(1.0))).collect();
    let build = |arena: &mut Arena| {
        let outer = arena.object(vec![]);
        for i in 0..60 {
            let child = arena.object(vec![]);
            for (k, v) in &inner {
                arena.set(&child, k, Slot::Value(v.clone()));
            }
            arena.set(&outer, &format!("o{i}"), Slot::Value(child));
        }
        outer
    };
    let (a, b) = (build(&mut arena), build(&mut arena));
    let bounds = Bounds { max_depth: 64, max_nodes: 100 };
    let Sameness::TooLarge(hit) = same_structure(&arena, &a, &b, &Ignore::none(), bounds) else { panic!() };
    assert_eq!(hit, BoundHit { limit: Limit::Nodes, path: "/o0".into() });
}

// ---------------------------------------------------------------------------------------------
// Failed reads

#[test]
fn a_throwing_getter_is_a_type_difference_with_what_it_threw_never_equal() {
    let mut arena = Arena::new();
    let old = arena.object(vec![("a", n(1.0))]);
    arena.set(&old, "b", Slot::Throws(s("boom")));
    let new = arena.object(vec![("a", n(1.0)), ("b", n(2.0))]);
    assert_eq!(same(&arena, &old, &new, &[]), Sameness::Unreadable);
    assert!(!Sameness::Unreadable.answer());
    let explanation = explain_with(&arena, &old, &new, &[], 16);
    assert_eq!(
        explanation.differences,
        vec![Difference {
            path: "/b".into(),
            normalised: "/b".into(),
            kind: DifferenceKind::Type,
            old: None,
            new: Some(n(2.0)),
            unreadable: Some(Unreadable { old: Some(s("boom")), new: None }),
        }]
    );
    // Both sides throwing are not equal either.
    let other = arena.object(vec![("a", n(1.0))]);
    arena.set(&other, "b", Slot::Throws(s("bang")));
    let explanation = explain_with(&arena, &old, &other, &[], 16);
    let [only] = &explanation.differences[..] else { panic!() };
    assert_eq!(only.unreadable, Some(Unreadable { old: Some(s("boom")), new: Some(s("bang")) }));
    assert_eq!((only.old.as_ref(), only.new.as_ref()), (None, None));
}

#[test]
fn a_throwing_getter_on_a_key_one_side_lacks_stays_added_or_removed() {
    let mut arena = Arena::new();
    let old = arena.object(vec![]);
    arena.set(&old, "gone", Slot::Throws(s("boom")));
    let new = arena.object(vec![]);
    let explanation = explain_with(&arena, &old, &new, &[], 16);
    let [only] = &explanation.differences[..] else { panic!() };
    assert_eq!((only.path.as_str(), only.kind, only.old.as_ref()), ("/gone", DifferenceKind::Removed, None));
    assert_eq!(only.unreadable, Some(Unreadable { old: Some(s("boom")), new: None }));
    // `same_structure` does not read a lone side: it is simply different.
    assert_eq!(same(&arena, &old, &new, &[]), Sameness::Different);
    assert_eq!(same(&arena, &new, &old, &[]), Sameness::Different);
}

#[test]
fn revoked_proxies_and_throwing_key_listings_are_unreadable_not_equal() {
    let mut arena = Arena::new();
    let (r1, r2, keys) = (arena.revoked(), arena.revoked(), arena.keys_throw());
    let object = arena.object(vec![]);
    assert_eq!(same(&arena, &r1, &r1, &[]), Sameness::Same, "the same reference is equal unread");
    assert_eq!(same(&arena, &r1, &r2, &[]), Sameness::Unreadable);
    assert_eq!(same(&arena, &keys, &object, &[]), Sameness::Unreadable);
    let explanation = explain_with(&arena, &object, &r1, &[], 16);
    let [only] = &explanation.differences[..] else { panic!() };
    assert_eq!((only.path.as_str(), only.kind), ("", DifferenceKind::Type));
    assert_eq!((only.old.as_ref(), only.new.as_ref()), (Some(&object), Some(&r1)), "both references are kept");
    assert_eq!(only.unreadable, Some(Unreadable { old: None, new: Some(s("TypeError: revoked")) }));
    let in_tree = arena.object(vec![("p", r2.clone())]);
    let plain = arena.object(vec![("p", object.clone())]);
    assert_eq!(listed(&arena, &plain, &in_tree, &[]), pairs(&[("/p", "type")]));
}

#[test]
fn the_comparison_answers_false_for_unreadable_and_too_large_pairs() {
    let mut arena = Arena::new();
    let (r1, r2) = (arena.revoked(), arena.revoked());
    let deep = arena.json(&json!([[[1]]]));
    let deep2 = arena.json(&json!([[[1]]]));
    let small = Bounds { max_depth: 2, max_nodes: 100 };
    let comparison = SameStructure::new(arena, Ignore::none(), small);
    assert_eq!(comparison.compare(&r1, &r2), Ok(false));
    assert_eq!(comparison.compare(&deep, &deep2), Ok(false));
    assert_eq!(comparison.compare(&r1, &r1), Ok(true));
    assert_eq!(comparison.compare(&n(1.0), &n(1.0)), Ok(true));
    assert!(SameStructure::ignore(&comparison).is_empty());
    assert!(Comparison::ignore(&comparison).is_some_and(Ignore::is_empty), "the migration core sees its patterns");
}

// ---------------------------------------------------------------------------------------------
// Truncation

#[test]
fn at_most_max_differences_are_listed_and_truncated_says_more_existed() {
    let mut arena = Arena::new();
    let old = arena.json(&json!((0..20).collect::<Vec<i32>>()));
    let new = arena.json(&json!((100..120).collect::<Vec<i32>>()));
    let explanation = explain_with(&arena, &old, &new, &[], 16);
    assert_eq!((explanation.differences.len(), explanation.truncated, explanation.bound.clone()), (16, true, None));
    assert_eq!(explanation.differences.last().map(|d| d.path.as_str()), Some("/15"));
    let exact = explain_with(&arena, &old, &new, &[], 20);
    assert_eq!((exact.differences.len(), exact.truncated), (20, false));
    let none = explain_with(&arena, &old, &new, &[], 0);
    assert_eq!((none.differences.len(), none.truncated), (0, true));
    let equal = explain_with(&arena, &old, &old, &[], 0);
    assert_eq!((equal.differences.len(), equal.truncated), (0, false));
}

#[test]
fn the_walk_stops_right_after_the_one_difference_past_the_maximum() {
    let mut arena = Arena::new();
    let old = arena.json(&json!((0..1000).collect::<Vec<i32>>()));
    let new = arena.json(&json!((1000..2000).collect::<Vec<i32>>()));
    arena.reads.set(0);
    let explanation = explain_with(&arena, &old, &new, &[], 2);
    assert!(explanation.truncated);
    assert!(arena.reads.get() < 30, "{} reads", arena.reads.get());
}

// ---------------------------------------------------------------------------------------------
// Paths table

fn mismatch(paths: &[&str]) -> Vec<Difference<Val>> {
    paths
        .iter()
        .map(|p| Difference {
            path: (*p).into(),
            normalised: (*p).into(),
            kind: DifferenceKind::Changed,
            old: None,
            new: None,
            unreadable: None,
        })
        .collect()
}

#[test]
fn the_paths_table_counts_each_path_once_per_mismatch() {
    let mut table = PathTable::new();
    assert!(table.is_empty());
    assert_eq!(table.record(&mismatch(&["/items/*/price", "/items/*/price", "/updatedAt"])), Some("/items/*/price"));
    assert_eq!(table.record(&mismatch(&["/updatedAt"])), Some("/updatedAt"));
    assert_eq!(table.record(&mismatch(&[])), None);
    assert_eq!(table.count("/items/*/price"), 1);
    assert_eq!(table.count("/updatedAt"), 2);
    assert_eq!(serde_json::to_string(&table).unwrap(), r#"{"/items/*/price":1,"/updatedAt":2}"#);
}

#[test]
fn the_paths_table_names_32_paths_then_counts_the_rest_under_other() {
    let mut table = PathTable::new();
    for i in 0..MAX_PATHS {
        table.record(&mismatch(&[&format!("/p{i}")]));
    }
    assert_eq!(table.record(&mismatch(&["/late", "/later"])), Some(OTHER));
    assert_eq!(table.record(&mismatch(&["/p3", "/late"])), Some("/p3"));
    assert_eq!(table.count(OTHER), 2, "once per mismatch");
    assert_eq!(table.count("/p3"), 2);
    assert_eq!(table.label("/late"), OTHER);
    let value: serde_json::Value = serde_json::to_value(&table).unwrap();
    assert_eq!(value.as_object().unwrap().len(), MAX_PATHS + 1);
    assert_eq!(value["_OTHER"], json!(2));
    let text = serde_json::to_string(&table).unwrap();
    assert!(text.starts_with(r#"{"/p0":1,"/p1":1,"#) && text.ends_with(r#""_OTHER":2}"#), "{text}");
    assert_eq!(serde_json::to_string(&PathTable::new()).unwrap(), "{}");
}

#[test]
fn a_root_difference_is_counted_under_the_empty_path() {
    let arena = Arena::new();
    let explanation = explain_with(&arena, &n(1.0), &s("1"), &[], 16);
    let mut table = PathTable::new();
    assert_eq!(table.record(&explanation.differences), Some(""));
    assert_eq!(serde_json::to_string(&table).unwrap(), r#"{"":1}"#);
}
