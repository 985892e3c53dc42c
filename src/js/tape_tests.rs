//! The tape's reader (tape.rs) on tapes written as the facade writes them.

use super::*;
use crate::diff::{differences, same_structure, BoundHit, Bounds, Ignore, Sameness};
use TapeNode as T;

/// Writes tapes as the facade does.
#[derive(Default)]
struct Writer {
    slots: Vec<f64>,
    ordinal: u32,
}

impl Writer {
    fn node(&mut self, kind: TapeNode, number: f64) -> u32 {
        self.slots.extend([kind as u32 as f64, number]);
        self.ordinal += 1;
        self.ordinal - 1
    }
    fn key(&mut self, id: u32) {
        self.slots.push(f64::from(id));
    }
}

/// A tape of two values written by `old` and `new`.
fn tape(old: impl FnOnce(&mut Writer), new: impl FnOnce(&mut Writer)) -> Vec<f64> {
    let mut w = Writer { slots: vec![0.0; HEADER], ordinal: 0 };
    old(&mut w);
    let new_start = w.slots.len();
    new(&mut w);
    w.slots[0] = new_start as f64;
    w.slots[1] = w.slots.len() as f64;
    w.slots
}

const KEYS: [&str; 4] = ["a", "b", "c/d", "e~"];

fn texts() -> Vec<String> {
    KEYS.iter().map(|k| (*k).to_owned()).collect()
}

fn same(slots: &[f64], patterns: &[&str]) -> Sameness {
    let mut index = TapeIndex::default();
    index.build(slots);
    let texts = texts();
    let tape = index.tape(&texts);
    same_structure(&tape, &tape.old(), &tape.new_root(), &Ignore::compile(patterns).unwrap(), Bounds::default())
}

fn listed(slots: &[f64]) -> Vec<(String, &'static str, Option<u32>, Option<u32>)> {
    let mut index = TapeIndex::default();
    index.build(slots);
    let texts = texts();
    let tape = index.tape(&texts);
    let explanation = differences(&tape, &tape.old(), &tape.new_root(), &Ignore::none(), 16, Bounds::default());
    explanation.differences.into_iter().map(|d| (d.path, d.kind.name(), d.old, d.new)).collect()
}

/// `{ a: 1, b: [true, "x"] }` with the string id `x`.
fn record(w: &mut Writer, b_first: bool, x: f64) {
    w.node(T::Object, 2.0);
    let a = |w: &mut Writer| {
        w.key(0);
        w.node(T::Number, 1.0);
    };
    let b = |w: &mut Writer| {
        w.key(1);
        w.node(T::Array, 2.0);
        w.node(T::True, 0.0);
        w.node(T::String, x);
    };
    if b_first {
        b(w);
        a(w);
    } else {
        a(w);
        b(w);
    }
}

#[test]
fn equal_values_are_the_same_whatever_their_key_order() {
    assert_eq!(same(&tape(|w| record(w, false, 0.0), |w| record(w, false, 0.0)), &[]), Sameness::Same);
    assert_eq!(same(&tape(|w| record(w, false, 0.0), |w| record(w, true, 0.0)), &[]), Sameness::Same);
    assert_eq!(same(&tape(|w| record(w, false, 0.0), |w| record(w, false, -1.0)), &[]), Sameness::Different);
    assert_eq!(same(&tape(|w| record(w, false, 0.0), |w| record(w, false, -1.0)), &["/b/1"]), Sameness::Same);
}

#[test]
fn differences_name_the_nodes_ordinals_and_the_keys_texts() {
    let slots = tape(
        |w| {
            w.node(T::Object, 2.0);
            w.key(2);
            w.node(T::Number, 1.0);
            w.key(3);
            w.node(T::Null, 0.0);
        },
        |w| {
            w.node(T::Object, 2.0);
            w.key(2);
            w.node(T::Number, 2.0);
            w.key(0);
            w.node(T::String, -1.0);
        },
    );
    assert_eq!(
        listed(&slots),
        [
            ("/c~1d".to_owned(), "changed", Some(1), Some(4)),
            ("/e~0".to_owned(), "removed", Some(2), None),
            ("/a".to_owned(), "added", None, Some(5)),
        ]
    );
}

#[test]
fn primitives_compare_as_the_walk_says() {
    let pair = |a: (TapeNode, f64), b: (TapeNode, f64)| {
        same(
            &tape(
                |w| {
                    w.node(a.0, a.1);
                },
                |w| {
                    w.node(b.0, b.1);
                },
            ),
            &[],
        )
    };
    assert_eq!(pair((T::Number, f64::NAN), (T::Number, f64::NAN)), Sameness::Same);
    assert_eq!(pair((T::Number, 0.0), (T::Number, -0.0)), Sameness::Same);
    assert_eq!(pair((T::Date, 5.0), (T::Date, 5.0)), Sameness::Same);
    assert_eq!(pair((T::Date, 5.0), (T::Number, 5.0)), Sameness::Different);
    assert_eq!(pair((T::Other, 0.0), (T::Other, 0.0)), Sameness::Same);
    assert_eq!(pair((T::Other, 0.0), (T::Other, 1.0)), Sameness::Different);
    assert_eq!(pair((T::Undefined, 0.0), (T::Null, 0.0)), Sameness::Different);
    assert_eq!(pair((T::False, 7.0), (T::False, 0.0)), Sameness::Same, "a boolean's number is not read");
    assert_eq!(pair((T::Unreadable, 0.0), (T::Unreadable, 1.0)), Sameness::Unreadable);
    assert_eq!(pair((T::Unreadable, 0.0), (T::Unreadable, 0.0)), Sameness::Same, "the very same value");
    assert_eq!(pair((T::Threw, 0.0), (T::Threw, 0.0)), Sameness::Unreadable);
}

#[test]
fn seen_nodes_make_cycles_and_the_very_same_root() {
    // old = { a: old }, new = { a: new }: equal; new = the old value itself: the same, unread.
    let cyclic = |w: &mut Writer| {
        let me = w.ordinal;
        w.node(T::Object, 1.0);
        w.key(0);
        w.node(T::Seen, f64::from(me));
    };
    assert_eq!(same(&tape(cyclic, cyclic), &[]), Sameness::Same);
    let itself = tape(cyclic, |w| {
        w.node(T::Seen, 0.0);
    });
    assert_eq!(same(&itself, &[]), Sameness::Same);
    // A Seen node naming itself, a later node or none is a cut.
    for target in [1.0, 9.0, 1e12] {
        let bad = tape(
            |w| {
                w.node(T::Array, 1.0);
                w.node(T::Seen, target);
            },
            |w| {
                w.node(T::Array, 1.0);
                w.node(T::Number, 1.0);
            },
        );
        assert!(matches!(same(&bad, &[]), Sameness::TooLarge(_)), "{target}");
    }
}

#[test]
fn what_the_facade_did_not_write_is_a_bound_hit_where_the_walk_reaches_it() {
    let hit = |limit, path: &str| Sameness::TooLarge(BoundHit { limit, path: path.into() });
    // An array whose elements stop early: the missing ones are cut.
    let short = tape(
        |w| {
            w.node(T::Array, 3.0);
            w.node(T::Number, 1.0);
        },
        |w| {
            w.node(T::Array, 3.0);
            w.node(T::Number, 1.0);
            w.node(T::Number, 2.0);
            w.node(T::Number, 3.0);
        },
    );
    assert_eq!(same(&short, &[]), hit(Limit::Nodes, "/1"));
    assert_eq!(same(&short, &["/*"]), Sameness::Same);
    // An object whose keys stop early is too large to compare, unless every child is ignored.
    let cut_object = tape(
        |w| {
            w.node(T::Object, 2.0);
            w.key(0);
            w.node(T::Number, 1.0);
        },
        |w| {
            w.node(T::Object, 1.0);
            w.key(0);
            w.node(T::Number, 1.0);
        },
    );
    assert_eq!(same(&cut_object, &[]), hit(Limit::Nodes, ""));
    assert_eq!(same(&cut_object, &["/*"]), Sameness::Same);
    let deep = tape(
        |w| {
            w.node(T::Array, 1.0);
            w.node(T::CutDepth, 0.0);
        },
        |w| {
            w.node(T::Array, 1.0);
            w.node(T::CutDepth, 0.0);
        },
    );
    assert_eq!(same(&deep, &[]), hit(Limit::Depth, "/0"));
}

#[test]
fn a_throwing_read_is_unreadable_and_explained_with_its_ordinal() {
    let slots = tape(
        |w| {
            w.node(T::Object, 1.0);
            w.key(0);
            w.node(T::Threw, 0.0);
        },
        |w| {
            w.node(T::Object, 1.0);
            w.key(0);
            w.node(T::Number, 1.0);
        },
    );
    assert_eq!(same(&slots, &[]), Sameness::Unreadable);
    let mut index = TapeIndex::default();
    index.build(&slots);
    let texts = texts();
    let tape = index.tape(&texts);
    let explanation = differences(&tape, &tape.old(), &tape.new_root(), &Ignore::none(), 16, Bounds::default());
    let [only] = &explanation.differences[..] else { panic!("{explanation:?}") };
    assert_eq!((only.path.as_str(), only.old, only.new), ("/a", None, Some(3)));
    assert_eq!(only.unreadable.as_ref().map(|u| (u.old, u.new)), Some((Some(1), None)));
}

#[test]
fn an_empty_or_torn_tape_is_cut_values_never_a_panic() {
    for slots in [vec![], vec![0.0], vec![9.0, 1.0, 4.0], vec![2.0, 2.0], vec![4.0, 99.0, 4.0, 1.0, 4.0]] {
        let mut index = TapeIndex::default();
        index.build(&slots);
        let tape = index.tape(&[]);
        let answer = same_structure(&tape, &tape.old(), &tape.new_root(), &Ignore::none(), Bounds::default());
        assert!(matches!(answer, Sameness::TooLarge(_) | Sameness::Different), "{slots:?}: {answer:?}");
    }
}

#[test]
fn equal_values_in_the_same_order_on_a_regular_tape_are_written_alike() {
    let written = |b_first: bool, x: f64| tape(|w| record(w, false, 0.0), |w| record(w, b_first, x));
    assert!(written_alike(&written(false, 0.0)));
    assert!(!written_alike(&written(true, 0.0)), "keys in another order: walked");
    assert!(!written_alike(&written(false, -1.0)));
    let mut irregular = written(false, 0.0);
    irregular[2] = 1.0;
    assert!(!written_alike(&irregular));
    assert!(!written_alike(&tape(|_| {}, |_| {})), "no values at all");
    let zeros = tape(
        |w| {
            w.node(T::Number, 0.0);
        },
        |w| {
            w.node(T::Number, -0.0);
        },
    );
    assert!(!written_alike(&zeros), "compared by their bits: walked");
    assert_eq!(same(&zeros, &[]), Sameness::Same);
    for torn in [vec![], vec![4.0, 6.0, 0.0], vec![99.0, 4.0, 0.0, 0.0]] {
        assert!(!written_alike(&torn), "{torn:?}");
    }
}

/// Writes a JSON value as the facade does: keys interned in `keys`, strings by text in `strings`.
fn json(w: &mut Writer, value: &serde_json::Value, keys: &mut Vec<String>, strings: &mut Vec<String>) {
    use serde_json::Value as J;
    let id = |list: &mut Vec<String>, text: &str| match list.iter().position(|t| t == text) {
        Some(at) => at as f64,
        None => {
            list.push(text.to_owned());
            (list.len() - 1) as f64
        }
    };
    match value {
        J::Null => {
            w.node(T::Null, 0.0);
        }
        J::Bool(b) => {
            w.node(if *b { T::True } else { T::False }, 0.0);
        }
        J::Number(n) => {
            w.node(T::Number, n.as_f64().unwrap());
        }
        J::String(text) => {
            let string = id(strings, text);
            w.node(T::String, string);
        }
        J::Array(items) => {
            w.node(T::Array, items.len() as f64);
            for item in items {
                json(w, item, keys, strings);
            }
        }
        J::Object(map) => {
            w.node(T::Object, map.len() as f64);
            for (key, item) in map {
                let key = id(keys, key);
                w.key(key as u32);
                json(w, item, keys, strings);
            }
        }
    }
}

fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        (-3i32..3).prop_map(serde_json::Value::from),
        "[ab]{0,2}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            proptest::collection::btree_map("[abc]", inner, 0..4)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest::proptest! {
    /// The shortcut answers only what the walk would: written alike is the same structure,
    /// and equal values (serde_json's objects keep their keys sorted) are written alike; also
    /// for a tape written after `before` slots of another (nested: slot 3 says where it starts).
    #[test]
    fn written_alike_is_the_walks_answer(a in json_value(), b in json_value(), copy in proptest::bool::ANY, before in 0usize..6) {
        let b = if copy { a.clone() } else { b };
        let (mut keys, mut strings) = (Vec::new(), Vec::new());
        let slots = {
            let mut w = Writer { slots: vec![f64::from(T::Array as u32); HEADER + before], ordinal: 0 };
            w.slots[3] = (HEADER + before) as f64;
            json(&mut w, &a, &mut keys, &mut strings);
            let new_start = w.slots.len();
            json(&mut w, &b, &mut keys, &mut strings);
            w.slots[0] = new_start as f64;
            w.slots[1] = w.slots.len() as f64;
            w.slots[2] = 0.0;
            w.slots
        };
        let mut index = TapeIndex::default();
        index.build(&slots);
        let tape = index.tape(&keys);
        let walked = same_structure(&tape, &tape.old(), &tape.new_root(), &Ignore::none(), Bounds::default());
        if written_alike(&slots) {
            proptest::prop_assert_eq!(walked.clone(), Sameness::Same);
        }
        proptest::prop_assert_eq!(a == b, walked == Sameness::Same);
        proptest::prop_assert_eq!(a == b, written_alike(&slots));
    }
}

fn slot() -> impl proptest::strategy::Strategy<Value = f64> {
    use proptest::strategy::Strategy;
    proptest::prop_oneof![(0u32..16).prop_map(f64::from), proptest::num::f64::ANY]
}

proptest::proptest! {
    #[test]
    fn any_slots_index_and_walk_without_panicking(slots in proptest::collection::vec(slot(), 0..64)) {
        let mut index = TapeIndex::default();
        index.build(&slots);
        let texts = texts();
        let tape = index.tape(&texts);
        let _ = same_structure(&tape, &tape.old(), &tape.new_root(), &Ignore::none(), Bounds::default());
        let _ = differences(&tape, &tape.old(), &tape.new_root(), &Ignore::compile(&["/a"]).unwrap(), 4, Bounds::default());
    }
}
