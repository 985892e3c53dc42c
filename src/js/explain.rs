//! A mismatch explained for JavaScript (the core's `diff/explain.rs`): the differences between
//! two values as the walk finds them on a tape, their old and new values the very JavaScript
//! values (references the facade kept while flattening), for `MigratorBuilder#mismatches()`.

use wasm_bindgen::prelude::*;

use super::bridge;
use super::codes::TapeStatus;
use super::tape_buffer;
use crate::diff::{differences, Bounds, Difference, Explanation, Ignore, Unreadable};

/// The differences between `old` and `new`, up to `max_differences`, in document order, as
/// `sameStructure` sees them: with `ignore` (a `sameStructure` comparison's patterns,
/// `Comparison::ignore`) or none, within the default [`Bounds`].
///
/// Each difference's `old`/`new` is the JavaScript value at its path (by reference), and
/// `unreadable` what reading it threw. `path` and `normalised` are the core's JSON Pointers; a
/// bound hit is in `bound` (and `truncated`).
///
/// Its cost: one crossing to flatten both values (each value's nodes kept by reference in the
/// facade meanwhile), the walk, then one crossing per value handed back (at most four per
/// difference) and one to let the facade forget the references. Only for mismatches.
///
/// Never fails and never throws: a getter that throws is a difference of kind `type` with what
/// it threw. When no tape can be written (the JavaScript stack ran out), the answer is no
/// differences and `truncated`.
pub fn explain(old: &JsValue, new: &JsValue, ignore: Option<&Ignore>, max_differences: usize) -> Explanation<JsValue> {
    let none = Ignore::none();
    let ignore = ignore.unwrap_or(&none);
    let bounds = Bounds::default();
    let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let status = bridge::flatten(old, new, clamp(bounds.max_nodes), clamp(bounds.max_depth), true);
    if TapeStatus::from_code(status) != Some(TapeStatus::Written) {
        return Explanation { differences: Vec::new(), truncated: true, bound: None };
    }
    on_kept_tape(ignore, max_differences, bounds)
}

/// The differences of the pair on the tape last written with `keep` (by [`explain`], or by a
/// `sameStructure` comparison that found it different: `same_structure.rs`), then the tape
/// released. Its string ids are made canonical first, as the walk needs.
pub fn on_kept_tape(ignore: &Ignore, max_differences: usize, bounds: Bounds) -> Explanation<JsValue> {
    bridge::canonicalise_tape();
    let found =
        tape_buffer::read(|tape| differences(&tape, &tape.old(), &tape.new_root(), ignore, max_differences, bounds));
    let explanation = match found {
        Some(found) => Explanation {
            differences: found.differences.into_iter().map(values).collect(),
            truncated: found.truncated,
            bound: found.bound,
        },
        None => Explanation { differences: Vec::new(), truncated: true, bound: None },
    };
    bridge::release_tape();
    explanation
}

/// A difference on the tape with the facade's values in place of its nodes' ordinals.
fn values(difference: Difference<u32>) -> Difference<JsValue> {
    let value = |ordinal: Option<u32>| ordinal.map(|o| bridge::tape_value(o, false));
    let thrown = |ordinal: Option<u32>| ordinal.map(|o| bridge::tape_value(o, true));
    Difference {
        path: difference.path,
        normalised: difference.normalised,
        kind: difference.kind,
        old: value(difference.old),
        new: value(difference.new),
        unreadable: difference.unreadable.map(|u| Unreadable { old: thrown(u.old), new: thrown(u.new) }),
    }
}
