//! `sameStructure`'s question: are two values structurally equal? The walk stops at the first
//! difference.

use super::bounds::{BoundHit, Bounds};
use super::ignore::Ignore;
use super::structure::Structure;
use super::walk::{End, Flow, Walk};

/// The answer of [`same_structure`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sameness {
    /// Structurally equal (outside the ignored positions).
    Same,
    /// A difference was found.
    Different,
    /// A read failed before any difference was found (a getter threw, a proxy was revoked):
    /// the values could not be compared.
    Unreadable,
    /// A bound was hit before any difference was found: the values were too large or too deep
    /// to compare within the bounds.
    TooLarge(BoundHit),
}

impl Sameness {
    /// What `sameStructure`'s comparison answers: `true` only for [`Sameness::Same`].
    ///
    /// An unreadable or too large pair is **not equal**: cutover cannot vouch for values it did
    /// not compare, and answering `true` would hide them from the consistency ratio for good;
    /// answering `false` makes them a mismatch, whose explanation (with `mismatches()`) shows
    /// where the read failed or the bound was hit, so the user can ignore that subtree or fix
    /// the getter. Throwing instead would record no check at all (a comparison that throws is
    /// logged and not counted), hiding the same pairs.
    pub fn answer(&self) -> bool {
        matches!(self, Sameness::Same)
    }
}

/// Compares `old` with `new` as `sameStructure` does (see `walk.rs` for the rules), reading
/// through `structure`, skipping what `ignore` matches, within `bounds`.
pub fn same_structure<S: Structure>(
    structure: &S,
    old: &S::Value,
    new: &S::Value,
    ignore: &Ignore,
    bounds: Bounds,
) -> Sameness {
    let mut unreadable = false;
    let mut sink = |difference: super::Difference<S::Value>| {
        unreadable = difference.unreadable.is_some();
        Flow::Stop
    };
    let end = Walk::new(structure, ignore, bounds, false).run(old, new, &mut sink);
    match end {
        End::Finished => Sameness::Same,
        End::Stopped if unreadable => Sameness::Unreadable,
        End::Stopped => Sameness::Different,
        End::Bound(hit) => Sameness::TooLarge(hit),
    }
}
