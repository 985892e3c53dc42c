//! Property-based tests of the walk against a model written here from API §1 "Differences", not
//! from the implementation: a plain recursive comparison of generated trees.
//!
//! - `same_structure(a, a)` is `Same` for any acyclic value, read as the same reference or as
//!   two separately built copies;
//! - the differences are exactly the model's, in document order, and empty iff
//!   `same_structure` answers `Same` (no bound is hit at these sizes);
//! - both hold with `ignore` patterns;
//! - tight bounds never panic, and a walk that hits no bound agrees with the model;
//! - the pattern parser accepts exactly the JSON Pointers, and never panics.

use proptest::prelude::*;

use super::arena::{Arena, Slot, Val};
use super::pattern::{parse_pattern, PatternSegment};
use super::*;

/// A generated acyclic value.
#[derive(Clone, Debug)]
enum Tree {
    Undefined,
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Date(f64),
    Arr(Vec<Tree>),
    /// Distinct keys, in order.
    Obj(Vec<(String, Tree)>),
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a".to_owned()),
        Just("b".to_owned()),
        Just("c".to_owned()),
        Just("0".to_owned()),
        Just("a/b".to_owned()),
        Just("~".to_owned()),
        Just("*".to_owned()),
        Just(String::new()),
    ]
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(-0.0), Just(1.0), Just(2.0), Just(f64::NAN), Just(f64::INFINITY), -3.0..3.0f64]
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        Just(Tree::Undefined),
        Just(Tree::Null),
        any::<bool>().prop_map(Tree::Bool),
        number().prop_map(Tree::Num),
        prop_oneof![Just(""), Just("x"), Just("y")].prop_map(|s| Tree::Str(s.to_owned())),
        prop_oneof![Just(0.0), Just(1.0), Just(f64::NAN)].prop_map(Tree::Date),
    ];
    leaf.prop_recursive(4, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Tree::Arr),
            prop::collection::vec((key(), inner), 0..5).prop_map(|entries| {
                let mut seen = Vec::new();
                Tree::Obj(
                    entries
                        .into_iter()
                        .filter(|(k, _)| {
                            let fresh = !seen.contains(k);
                            seen.push(k.clone());
                            fresh
                        })
                        .collect(),
                )
            }),
        ]
    })
}

/// `tree` with one leaf (chosen by `seed`) changed, or one key removed: a close pair.
fn mutate(tree: &Tree, seed: &mut u64) -> Tree {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let pick = (*seed >> 33) % 4;
    match tree {
        Tree::Arr(items) if !items.is_empty() && pick != 0 => {
            let at = (*seed >> 40) as usize % items.len();
            let mut items = items.clone();
            if pick == 3 {
                items.truncate(at);
            } else if let Some(item) = items.get_mut(at) {
                *item = mutate(item, seed);
            }
            Tree::Arr(items)
        }
        Tree::Obj(entries) if !entries.is_empty() && pick != 0 => {
            let at = (*seed >> 40) as usize % entries.len();
            let mut entries = entries.clone();
            if pick == 3 {
                entries.remove(at);
            } else if let Some(entry) = entries.get_mut(at) {
                entry.1 = mutate(&entry.1, seed);
            }
            Tree::Obj(entries)
        }
        Tree::Num(x) => Tree::Num(x + 1.0),
        Tree::Str(s) => Tree::Str(format!("{s}!")),
        Tree::Bool(b) => Tree::Bool(!b),
        other => match pick {
            0 => Tree::Null,
            1 => Tree::Str("x".into()),
            2 => Tree::Arr(vec![other.clone()]),
            _ => Tree::Obj(vec![("a".into(), other.clone())]),
        },
    }
}

fn pair() -> impl Strategy<Value = (Tree, Tree)> {
    prop_oneof![
        (tree(), tree()),
        tree().prop_map(|a| (a.clone(), a)),
        (tree(), any::<u64>()).prop_map(|(a, mut seed)| {
            let b = mutate(&a, &mut seed);
            (a, b)
        }),
    ]
}

fn build(arena: &mut Arena, tree: &Tree) -> Val {
    match tree {
        Tree::Undefined => Val::Undefined,
        Tree::Null => Val::Null,
        Tree::Bool(b) => Val::Bool(*b),
        Tree::Num(x) => Val::Num(*x),
        Tree::Str(s) => Val::Str(s.as_str().into()),
        Tree::Date(t) => arena.date(*t),
        Tree::Arr(items) => {
            let array = arena.array(vec![]);
            for item in items {
                let value = build(arena, item);
                arena.push(&array, Slot::Value(value));
            }
            array
        }
        Tree::Obj(entries) => {
            let object = arena.object(vec![]);
            for (k, v) in entries {
                let value = build(arena, v);
                arena.set(&object, k, Slot::Value(value));
            }
            object
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The model

#[derive(Clone, Debug, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

fn pointer(path: &[Seg]) -> String {
    path.iter()
        .map(|seg| match seg {
            Seg::Key(k) => format!("/{}", k.replace('~', "~0").replace('/', "~1")),
            Seg::Index(i) => format!("/{i}"),
        })
        .collect()
}

fn ignored(path: &[Seg], patterns: &[Vec<PatternSegment>]) -> bool {
    patterns.iter().any(|pattern| {
        pattern.len() <= path.len()
            && pattern.iter().zip(path).all(|(p, seg)| match (p, seg) {
                (PatternSegment::Any, _) => true,
                (PatternSegment::Literal(l), Seg::Key(k)) => l == k,
                (PatternSegment::Literal(l), Seg::Index(i)) => *l == i.to_string(),
            })
    })
}

fn kind(tree: &Tree) -> u8 {
    match tree {
        Tree::Undefined => 0,
        Tree::Null => 1,
        Tree::Bool(_) => 2,
        Tree::Num(_) => 3,
        Tree::Str(_) => 4,
        Tree::Date(_) => 5,
        Tree::Arr(_) => 6,
        Tree::Obj(_) => 7,
    }
}

fn get<'t>(entries: &'t [(String, Tree)], key: &str) -> Option<&'t Tree> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn numbers_equal(x: f64, y: f64) -> bool {
    x == y || (x.is_nan() && y.is_nan())
}

/// The differences API §1 describes, in document order.
fn model(
    a: Option<&Tree>,
    b: Option<&Tree>,
    path: &mut Vec<Seg>,
    patterns: &[Vec<PatternSegment>],
    out: &mut Vec<(String, DifferenceKind)>,
) {
    if ignored(path, patterns) {
        return;
    }
    let (a, b) = match (a, b) {
        (Some(a), Some(b)) => (a, b),
        (Some(_), None) => return out.push((pointer(path), DifferenceKind::Removed)),
        (None, Some(_)) => return out.push((pointer(path), DifferenceKind::Added)),
        (None, None) => return,
    };
    if kind(a) != kind(b) {
        return out.push((pointer(path), DifferenceKind::Type));
    }
    let equal = match (a, b) {
        (Tree::Bool(x), Tree::Bool(y)) => x == y,
        (Tree::Num(x), Tree::Num(y)) | (Tree::Date(x), Tree::Date(y)) => numbers_equal(*x, *y),
        (Tree::Str(x), Tree::Str(y)) => x == y,
        (Tree::Arr(xs), Tree::Arr(ys)) => {
            for i in 0..xs.len().max(ys.len()) {
                path.push(Seg::Index(i));
                model(xs.get(i), ys.get(i), path, patterns, out);
                path.pop();
            }
            true
        }
        (Tree::Obj(xs), Tree::Obj(ys)) => {
            for (k, x) in xs {
                path.push(Seg::Key(k.clone()));
                model(Some(x), get(ys, k), path, patterns, out);
                path.pop();
            }
            for (k, y) in ys.iter().filter(|(k, _)| get(xs, k).is_none()) {
                path.push(Seg::Key(k.clone()));
                model(None, Some(y), path, patterns, out);
                path.pop();
            }
            true
        }
        _ => true,
    };
    if !equal {
        out.push((pointer(path), DifferenceKind::Changed));
    }
}

fn modelled(a: &Tree, b: &Tree, patterns: &[Vec<PatternSegment>]) -> Vec<(String, DifferenceKind)> {
    let mut out = Vec::new();
    model(Some(a), Some(b), &mut Vec::new(), patterns, &mut out);
    out
}

fn pattern_text() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        Just("*".to_owned()),
        Just("a".to_owned()),
        Just("b".to_owned()),
        Just("0".to_owned()),
        Just("1".to_owned()),
        Just("a~1b".to_owned()),
        Just("~0".to_owned()),
        Just(String::new()),
    ];
    prop::collection::vec(segment, 0..4).prop_map(|segments| segments.iter().map(|s| format!("/{s}")).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn an_acyclic_value_is_the_same_as_itself_and_as_its_copy(a in tree()) {
        let mut arena = Arena::new();
        let (first, copy) = (build(&mut arena, &a), build(&mut arena, &a));
        let none = Ignore::none();
        prop_assert_eq!(same_structure(&arena, &first, &first, &none, Bounds::default()), Sameness::Same);
        prop_assert_eq!(same_structure(&arena, &first, &copy, &none, Bounds::default()), Sameness::Same);
        let explanation = differences(&arena, &first, &copy, &none, 16, Bounds::default());
        prop_assert!(explanation.differences.is_empty() && !explanation.truncated);
    }

    #[test]
    fn differences_are_the_models_and_empty_iff_same(
        (a, b) in pair(),
        patterns in prop::collection::vec(pattern_text(), 0..3),
    ) {
        let mut arena = Arena::new();
        let (old, new) = (build(&mut arena, &a), build(&mut arena, &b));
        let ignore = Ignore::compile(&patterns).unwrap();
        let parsed: Vec<_> = patterns.iter().map(|p| parse_pattern(p, 0).unwrap()).collect();
        let expected = modelled(&a, &b, &parsed);

        let explanation = differences(&arena, &old, &new, &ignore, 10_000, Bounds::default());
        prop_assert_eq!(&explanation.bound, &None);
        prop_assert!(!explanation.truncated);
        let got: Vec<_> = explanation.differences.iter().map(|d| (d.path.clone(), d.kind)).collect();
        prop_assert_eq!(&got, &expected);

        let sameness = same_structure(&arena, &old, &new, &ignore, Bounds::default());
        prop_assert_eq!(sameness == Sameness::Same, expected.is_empty());
        prop_assert!(matches!(sameness, Sameness::Same | Sameness::Different));

        // At most `max`, the first ones, truncated iff more existed.
        let short = differences(&arena, &old, &new, &ignore, 2, Bounds::default());
        prop_assert_eq!(short.differences.len(), expected.len().min(2));
        prop_assert_eq!(short.truncated, expected.len() > 2);
        prop_assert!(short.differences.iter().zip(&explanation.differences).all(|(x, y)| (&x.path, x.kind) == (&y.path, y.kind)));
    }

    #[test]
    fn tight_bounds_never_panic_and_agree_with_the_model_when_not_hit(
        (a, b) in pair(),
        max_depth in 0usize..5,
        max_nodes in 0usize..40,
    ) {
        let mut arena = Arena::new();
        let (old, new) = (build(&mut arena, &a), build(&mut arena, &b));
        let bounds = Bounds { max_depth, max_nodes };
        let explanation = differences(&arena, &old, &new, &Ignore::none(), 10_000, bounds);
        let expected = modelled(&a, &b, &[]);
        let got: Vec<_> = explanation.differences.iter().map(|d| (d.path.clone(), d.kind)).collect();
        match &explanation.bound {
            None => prop_assert_eq!(&got, &expected),
            Some(_) => {
                prop_assert!(explanation.truncated);
                prop_assert!(expected.starts_with(&got), "found before the bound: a prefix of the model's");
            }
        }
        let sameness = same_structure(&arena, &old, &new, &Ignore::none(), bounds);
        match sameness {
            Sameness::Same => prop_assert!(expected.is_empty()),
            Sameness::Different => prop_assert!(!expected.is_empty()),
            Sameness::TooLarge(_) => {}
            Sameness::Unreadable => prop_assert!(false, "nothing throws here"),
        }
    }

    #[test]
    fn the_pattern_parser_accepts_exactly_json_pointers(text in "[a-z/~01*]{0,8}|\\PC{0,8}") {
        let valid = (text.is_empty() || text.starts_with('/')) && {
            let bytes = text.as_bytes();
            bytes.iter().enumerate().all(|(i, &c)| c != b'~' || matches!(bytes.get(i + 1), Some(b'0' | b'1')))
        };
        let parsed = parse_pattern(&text, 7);
        prop_assert_eq!(parsed.is_ok(), valid);
        if let Err(error) = parsed {
            prop_assert!(error.to_string().starts_with("sameStructure: ignore[7] must be a JSON Pointer ("));
        }
    }
}
