//! The membership cache's index: which slot holds a key, as a table of slot numbers (4 bytes a
//! bucket) with linear probing and backward-shift deletion. The keys themselves are kept once, in
//! the cache's nodes; every method that must compare or rehash keys is handed `key_of`, which
//! reads the key of the node in a slot (a `dyn` function: one copy of each method in the wasm).
//!
//! Measured (issue 32, 200,000 cached contexts): the `HashMap<String, usize>` it replaced held a
//! second copy of every key and 17 bytes a bucket, about 86 B per context of wasm memory for a
//! 14-byte key; this table holds about 5 B (at most 0.8 full, so a hit probes about 3 buckets).

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

/// An empty bucket.
const EMPTY: u32 = u32::MAX;
/// Fewest buckets once there is an entry.
const MIN_BUCKETS: usize = 8;

#[derive(Default)]
pub struct KeyIndex {
    /// A power of two in length (or empty); each bucket holds a slot or `EMPTY`.
    buckets: Vec<u32>,
    len: usize,
    hasher: RandomState,
}

impl KeyIndex {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn mask(&self) -> usize {
        self.buckets.len().wrapping_sub(1)
    }

    /// The bucket `key` is looked for from.
    fn home(&self, key: &str) -> usize {
        (self.hasher.hash_one(key) as usize) & self.mask()
    }

    /// The bucket holding the slot of `key`, if any.
    fn bucket_of<'k>(&self, key: &str, key_of: &dyn Fn(u32) -> Option<&'k str>) -> Option<usize> {
        if self.buckets.is_empty() {
            return None;
        }
        let mut bucket = self.home(key);
        // The table is never full, so an empty bucket ends every search; the count only bounds it.
        for _ in 0..self.buckets.len() {
            let slot = *self.buckets.get(bucket)?;
            if slot == EMPTY {
                return None;
            }
            if key_of(slot) == Some(key) {
                return Some(bucket);
            }
            bucket = (bucket + 1) & self.mask();
        }
        None
    }

    /// The slot of `key`, if it has one.
    pub fn get<'k>(&self, key: &str, key_of: &dyn Fn(u32) -> Option<&'k str>) -> Option<u32> {
        self.bucket_of(key, key_of).and_then(|bucket| self.buckets.get(bucket).copied())
    }

    /// Puts `slot` in the first empty bucket from `key`'s home (`key` must not be in the index).
    fn place(&mut self, key: &str, slot: u32) {
        let mut bucket = self.home(key);
        for _ in 0..self.buckets.len() {
            match self.buckets.get_mut(bucket) {
                Some(b) if *b == EMPTY => {
                    *b = slot;
                    return;
                }
                _ => bucket = (bucket + 1) & self.mask(),
            }
        }
    }

    /// Records that `key` (not in the index yet; its node already in `slot`) is in `slot`.
    pub fn insert<'k>(&mut self, key: &str, slot: u32, key_of: &dyn Fn(u32) -> Option<&'k str>) {
        // At most 0.8 full: 4 × buckets ≥ 5 × entries.
        if (self.len + 1).saturating_mul(5) > self.buckets.len().saturating_mul(4) {
            self.grow(key_of);
        }
        self.place(key, slot);
        self.len += 1;
    }

    /// Twice the buckets (at least `MIN_BUCKETS`), every slot placed again.
    fn grow<'k>(&mut self, key_of: &dyn Fn(u32) -> Option<&'k str>) {
        let size = self.buckets.len().saturating_mul(2).max(MIN_BUCKETS);
        let old = std::mem::replace(&mut self.buckets, vec![EMPTY; size]);
        for slot in old.into_iter().filter(|&slot| slot != EMPTY) {
            if let Some(key) = key_of(slot) {
                self.place(key, slot);
            }
        }
    }

    /// Forgets `key`; the entries after it in its run move back so that no search stops early.
    pub fn remove<'k>(&mut self, key: &str, key_of: &dyn Fn(u32) -> Option<&'k str>) {
        let Some(mut hole) = self.bucket_of(key, key_of) else {
            return;
        };
        if let Some(b) = self.buckets.get_mut(hole) {
            *b = EMPTY;
        }
        self.len -= 1;
        let mask = self.mask();
        let mut next = (hole + 1) & mask;
        for _ in 0..self.buckets.len() {
            let Some(&slot) = self.buckets.get(next) else {
                return;
            };
            if slot == EMPTY {
                return;
            }
            let home = key_of(slot).map_or(next, |k| self.home(k));
            // The entry may move into the hole unless its home lies after the hole, up to it.
            if (next.wrapping_sub(home) & mask) >= (next.wrapping_sub(hole) & mask) {
                self.buckets.swap(hole, next);
                hole = next;
            }
            next = (next + 1) & mask;
        }
    }

    /// Records that the node of `key` moves from slot `from` to slot `to` (`key_of(from)` is
    /// still its key).
    pub fn relocate<'k>(&mut self, key: &str, to: u32, key_of: &dyn Fn(u32) -> Option<&'k str>) {
        if let Some(bucket) = self.bucket_of(key, key_of) {
            if let Some(b) = self.buckets.get_mut(bucket) {
                *b = to;
            }
        }
    }

    /// Forgets every key and frees the table.
    pub fn clear(&mut self) {
        self.buckets = Vec::new();
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys by slot, as the cache's nodes hold them.
    fn key_of<'a>(keys: &'a [String]) -> impl Fn(u32) -> Option<&'a str> + 'a {
        move |slot| keys.get(slot as usize).map(String::as_str)
    }

    #[test]
    fn finds_every_key_through_growth_and_removals() {
        let keys: Vec<String> = (0..2000).map(|i| format!("k{i}")).collect();
        let mut index = KeyIndex::default();
        assert_eq!(index.get("k0", &key_of(&keys)), None);
        for (slot, key) in keys.iter().enumerate() {
            index.insert(key, slot as u32, &key_of(&keys));
        }
        assert_eq!(index.len(), 2000);
        assert!(index.buckets.len() * 4 >= 2000 * 5, "at most 0.8 full");
        for (slot, key) in keys.iter().enumerate() {
            assert_eq!(index.get(key, &key_of(&keys)), Some(slot as u32));
        }
        // Remove every third key: the rest are still found (backward shifts keep runs whole).
        for key in keys.iter().step_by(3) {
            index.remove(key, &key_of(&keys));
        }
        for (slot, key) in keys.iter().enumerate() {
            let expected = if slot % 3 == 0 { None } else { Some(slot as u32) };
            assert_eq!(index.get(key, &key_of(&keys)), expected, "{key}");
        }
        assert_eq!(index.len(), 2000 - 667);
        index.remove("absent", &key_of(&keys));
        assert_eq!(index.len(), 2000 - 667);
        index.clear();
        assert!(index.is_empty());
        assert_eq!(index.get("k1", &key_of(&keys)), None);
    }

    #[test]
    fn relocate_points_a_key_at_its_new_slot() {
        let mut keys: Vec<String> = vec!["a".into(), "b".into(), "c".into()];
        let mut index = KeyIndex::default();
        for (slot, key) in keys.iter().enumerate() {
            index.insert(key, slot as u32, &key_of(&keys));
        }
        // "a" leaves slot 0 and "c" moves into it, as the cache's swap_remove does.
        index.remove("a", &key_of(&keys));
        index.relocate("c", 0, &key_of(&keys));
        keys.swap_remove(0);
        assert_eq!(index.get("c", &key_of(&keys)), Some(0));
        assert_eq!(index.get("b", &key_of(&keys)), Some(1));
        assert_eq!(index.get("a", &key_of(&keys)), None);
    }
}
