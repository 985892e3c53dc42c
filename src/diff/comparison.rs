//! `sameStructure({ ignore })` as a consistency comparison of the migration core.

use super::bounds::Bounds;
use super::consistency::Comparison;
use super::ignore::Ignore;
use super::same::same_structure;
use super::structure::Structure;

/// The comparison `sameStructure` returns: the structural walk over the host's values.
pub struct SameStructure<S> {
    structure: S,
    ignore: Ignore,
    bounds: Bounds,
}

impl<S: Structure> SameStructure<S> {
    pub fn new(structure: S, ignore: Ignore, bounds: Bounds) -> Self {
        SameStructure { structure, ignore, bounds }
    }

    /// Its patterns, for explaining its mismatches with the same `ignore`.
    pub fn ignore(&self) -> &Ignore {
        &self.ignore
    }

    pub fn structure(&self) -> &S {
        &self.structure
    }

    pub fn bounds(&self) -> Bounds {
        self.bounds
    }
}

/// Never fails: an unreadable or too large pair answers `false` (see
/// [`super::Sameness::answer`]).
impl<S: Structure> Comparison<S::Value> for SameStructure<S> {
    fn compare(&self, old: &S::Value, new: &S::Value) -> Result<bool, S::Value> {
        Ok(same_structure(&self.structure, old, new, &self.ignore, self.bounds).answer())
    }
    fn ignore(&self) -> Option<&Ignore> {
        Some(&self.ignore)
    }
}
