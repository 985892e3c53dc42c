//! The walk's frames (diff/walk.rs): two containers being compared, their child positions, and
//! which keys two objects share.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::ignore::States;
use super::path::Segment;
use super::structure::Structure;

/// Two containers being compared: their children are the positions the walk takes next.
pub(super) struct Frame<'a, V, K: Clone> {
    pub(super) old: V,
    pub(super) new: V,
    pub(super) children: Children<'a, K>,
    /// How many child positions there are, and the next one to take.
    pub(super) count: usize,
    pub(super) next: usize,
    /// The `ignore` states of this position.
    pub(super) states: States,
}

pub(super) enum Children<'a, K: Clone> {
    Array { old_len: usize, new_len: usize },
    Object { old: Cow<'a, [K]>, new: Cow<'a, [K]>, members: Members },
}

/// Which of the old keys the new value has, and which keys only the new value has.
pub(super) enum Members {
    /// The same keys in the same order.
    Same,
    Mixed {
        /// For each old key, its position among the new keys, if the new value has it.
        in_new: Vec<Option<usize>>,
        /// Indices into the new keys of the keys the old value lacks, in the new value's order.
        new_only: Vec<usize>,
    },
}

/// A child position of a frame: its segment (a key, or an array index), and its position on
/// each side that has it (an index into that side's keys, or the array index).
pub(super) struct Slot<'f, K> {
    pub(super) key: Result<&'f K, usize>,
    pub(super) old: Option<usize>,
    pub(super) new: Option<usize>,
}

impl<V, K: Clone + Eq> Frame<'_, V, K> {
    pub(super) fn slot(&self, index: usize) -> Option<Slot<'_, K>> {
        match &self.children {
            Children::Array { old_len, new_len } => Some(Slot {
                key: Err(index),
                old: (index < *old_len).then_some(index),
                new: (index < *new_len).then_some(index),
            }),
            Children::Object { old, new, members } => {
                if let Some(key) = old.get(index) {
                    let new = match members {
                        Members::Same => Some(index),
                        Members::Mixed { in_new, .. } => in_new.get(index).copied().flatten(),
                    };
                    return Some(Slot { key: Ok(key), old: Some(index), new });
                }
                let Members::Mixed { new_only, .. } = members else { return None };
                let at = *new_only.get(index.checked_sub(old.len())?)?;
                Some(Slot { key: Ok(new.get(at)?), old: None, new: Some(at) })
            }
        }
    }

    /// The segment of the child position taken last.
    pub(super) fn current<S: Structure<Key = K>>(&self, structure: &S) -> Option<Segment> {
        let slot = self.slot(self.next.checked_sub(1)?)?;
        Some(match slot.key {
            Ok(key) => Segment::Key(structure.key_text(key).to_owned()),
            Err(index) => Segment::Index(index),
        })
    }

    /// Whether `children` could be this pair's: two arrays of the same lengths, or two objects
    /// with the same keys in the same order (compared here, without asking the host).
    pub(super) fn could_be(&self, children: &Children<'_, K>) -> bool {
        match (&self.children, children) {
            (Children::Array { old_len: a, new_len: b }, Children::Array { old_len: c, new_len: d }) => {
                a == c && b == d
            }
            (Children::Object { old: a, new: b, .. }, Children::Object { old: c, new: d, .. }) => a == c && b == d,
            _ => false,
        }
    }
}

/// Up to this many keys on either side, the keys are matched by scanning, not hashing: for the
/// objects of JSON-like values (a few keys each, in another order) that allocates only the two
/// lists of [`Members::Mixed`].
const SCANNED_KEYS: usize = 16;

/// Which keys the two objects share (see [`Members`]). A key listed twice (which no JavaScript
/// object does, but a hostile host might) is compared twice on the old side (with the new side's
/// first one) and added once.
pub(super) fn members<K: Eq + std::hash::Hash>(old: &[K], new: &[K]) -> Members {
    if old == new {
        return Members::Same;
    }
    if old.len() <= SCANNED_KEYS && new.len() <= SCANNED_KEYS {
        let in_new = old.iter().map(|key| new.iter().position(|k| k == key)).collect();
        let new_only = new
            .iter()
            .enumerate()
            .filter(|&(at, key)| !old.contains(key) && !new.get(..at).is_some_and(|before| before.contains(key)))
            .map(|(at, _)| at)
            .collect();
        return Members::Mixed { in_new, new_only };
    }
    let mut new_at: HashMap<&K, usize> = HashMap::with_capacity(new.len());
    for (at, key) in new.iter().enumerate() {
        new_at.entry(key).or_insert(at);
    }
    let old_keys: HashSet<&K> = old.iter().collect();
    let in_new = old.iter().map(|key| new_at.get(key).copied()).collect();
    let mut seen = HashSet::new();
    let new_only = new
        .iter()
        .enumerate()
        .filter(|(_, key)| !old_keys.contains(key) && seen.insert(*key))
        .map(|(at, _)| at)
        .collect();
    Members::Mixed { in_new, new_only }
}
