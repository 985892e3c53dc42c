//! A mismatch explained: the differences between two values, in document order, at most
//! `max_differences` of them.

use super::bounds::{BoundHit, Bounds};
use super::difference::Difference;
use super::ignore::Ignore;
use super::structure::Structure;
use super::walk::{End, Flow, Walk};

/// `mismatches({ maxDifferences })`'s default.
pub const DEFAULT_MAX_DIFFERENCES: usize = 16;

/// The differences of one mismatch.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation<V> {
    /// In document order: depth first, an object's keys in the old value's order then the keys
    /// only the new value has, an array's indices ascending.
    pub differences: Vec<Difference<V>>,
    /// The list may be incomplete: there was at least one more difference (the walk stopped
    /// right after finding it), or the walk hit a bound ([`Explanation::bound`]) and could not
    /// look further.
    pub truncated: bool,
    /// The bound the walk hit, if it did: which, and at which position.
    pub bound: Option<BoundHit>,
}

/// Walks `old` and `new` for up to `max_differences` differences (see `walk.rs` for the rules),
/// reading through `structure`, skipping what `ignore` matches, within `bounds`. The values in
/// the differences are the host's references.
pub fn differences<S: Structure>(
    structure: &S,
    old: &S::Value,
    new: &S::Value,
    ignore: &Ignore,
    max_differences: usize,
    bounds: Bounds,
) -> Explanation<S::Value> {
    let mut found = Vec::new();
    let mut more = false;
    let mut sink = |difference| {
        if found.len() < max_differences {
            found.push(difference);
            Flow::Continue
        } else {
            more = true;
            Flow::Stop
        }
    };
    let end = Walk::new(structure, ignore, bounds, true).run(old, new, &mut sink);
    let bound = match end {
        End::Bound(hit) => Some(hit),
        End::Finished | End::Stopped => None,
    };
    Explanation { differences: found, truncated: more || bound.is_some(), bound }
}
