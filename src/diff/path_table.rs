//! `stats().read.consistency.paths`: how many mismatches had a difference at each normalised
//! path, for at most [`MAX_PATHS`] paths; mismatches at paths first seen after the table filled
//! up are counted under [`OTHER`]. The same table names the `cutover.mismatch.path` attribute of
//! the mismatch metric, so its cardinality is bounded too.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::difference::Difference;

/// The most distinct paths the table names.
pub const MAX_PATHS: usize = 32;

/// The key counting the paths beyond [`MAX_PATHS`]. No normalised path can be it: a JSON
/// Pointer is `''` or starts with `/`.
pub const OTHER: &str = "_OTHER";

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathTable {
    /// The named paths in the order they were first seen, with their counts.
    paths: Vec<(String, u64)>,
    other: u64,
}

impl PathTable {
    pub fn new() -> Self {
        PathTable::default()
    }

    /// Counts one mismatch: each distinct normalised path among its differences once, and
    /// [`OTHER`] once if any of them has no room in the table. Returns the label of the first
    /// difference's path (its path, or [`OTHER`]), for the metric; `None` without differences.
    pub fn record<V>(&mut self, differences: &[Difference<V>]) -> Option<&str> {
        let mut counted: Vec<&str> = Vec::new();
        let mut other = false;
        for difference in differences {
            let path = difference.normalised.as_str();
            if counted.contains(&path) {
                continue;
            }
            counted.push(path);
            if let Some(entry) = self.paths.iter_mut().find(|(p, _)| p == path) {
                entry.1 += 1;
            } else if self.paths.len() < MAX_PATHS {
                self.paths.push((path.to_owned(), 1));
            } else {
                other = true;
            }
        }
        if other {
            self.other += 1;
        }
        let first = differences.first()?;
        Some(self.label(&first.normalised))
    }

    /// `path` if the table names it, else [`OTHER`].
    pub fn label(&self, path: &str) -> &str {
        match self.paths.iter().find(|(p, _)| p == path) {
            Some((p, _)) => p,
            None => OTHER,
        }
    }

    /// The count of `path` (or of [`OTHER`]).
    pub fn count(&self, path: &str) -> u64 {
        if path == OTHER {
            return self.other;
        }
        self.paths.iter().find(|(p, _)| p == path).map_or(0, |(_, n)| *n)
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.other == 0
    }

    /// The plain object's entries: the named paths in the order first seen, then `_OTHER` if it
    /// counted any (the bindings build `stats()`'s object from these; serde's form below is the same).
    pub fn entries(&self) -> impl Iterator<Item = (&str, u64)> {
        let other = (self.other > 0).then_some((OTHER, self.other));
        self.paths.iter().map(|(path, count)| (path.as_str(), *count)).chain(other)
    }
}

/// The plain object: the named paths in the order first seen, then `_OTHER` if it counted any.
impl Serialize for PathTable {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let extra = usize::from(self.other > 0);
        let mut map = serializer.serialize_map(Some(self.paths.len() + extra))?;
        for (path, count) in self.entries() {
            map.serialize_entry(path, &count)?;
        }
        map.end()
    }
}
