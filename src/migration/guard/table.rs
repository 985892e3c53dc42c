//! The guards of one migrator, one per flag key: at most `MAX_FLAG_KEYS`, the least recently
//! used dropped first (a dropped key starts closed again), so that a migrator asked about ever
//! new flag keys keeps a fixed size.
//!
//! A list searched in order rather than a hash map: the key used last is found first (a migrator
//! usually serves one flag), the others by at most 100 comparisons when the key changes, and the
//! wasm carries no hash table instantiated for it.

use std::cell::RefCell;
use std::rc::Rc;

use super::breaker::FlagGuard;

/// How many flag keys a migrator's guard keeps.
pub const MAX_FLAG_KEYS: usize = 100;

pub type Shared = Rc<RefCell<FlagGuard>>;

struct Entry {
    key: Rc<str>,
    guard: Shared,
    /// Its last use, in uses so far.
    used: u64,
}

#[derive(Default)]
pub struct GuardTable {
    /// In the order the keys came; the one used last is `entries[last]`.
    entries: Vec<Entry>,
    last: usize,
    uses: u64,
}

impl GuardTable {
    /// The guard of `flag_key`, made by `make` when the key has none.
    pub fn entry(&mut self, flag_key: &Rc<str>, make: impl FnOnce() -> FlagGuard) -> Shared {
        if let Some(e) = self.entries.get(self.last) {
            if Rc::ptr_eq(&e.key, flag_key) || *e.key == **flag_key {
                return e.guard.clone();
            }
        }
        // The key that was last has its use brought up to date before another takes its place.
        self.uses += 1;
        if let Some(e) = self.entries.get_mut(self.last) {
            e.used = self.uses;
        }
        self.uses += 1;
        let used = self.uses;
        if let Some(i) = self.entries.iter().position(|e| *e.key == **flag_key) {
            self.last = i;
            if let Some(e) = self.entries.get_mut(i) {
                e.used = used;
                return e.guard.clone();
            }
        }
        let guard: Shared = Rc::new(RefCell::new(make()));
        let entry = Entry { key: flag_key.clone(), guard: guard.clone(), used };
        let oldest = self.entries.iter().enumerate().min_by_key(|(_, e)| e.used).map(|(i, _)| i);
        match (self.entries.len() >= MAX_FLAG_KEYS, oldest.and_then(|i| self.entries.get_mut(i).map(|e| (i, e)))) {
            (true, Some((i, slot))) => {
                *slot = entry;
                self.last = i;
            }
            _ => {
                self.entries.push(entry);
                self.last = self.entries.len() - 1;
            }
        }
        guard
    }

    pub fn get(&self, flag_key: &str) -> Option<&Shared> {
        self.entries.iter().find(|e| *e.key == *flag_key).map(|e| &e.guard)
    }

    /// Every key and its guard, in the order the keys came.
    pub fn iter(&self) -> impl Iterator<Item = (&Rc<str>, &Shared)> {
        self.entries.iter().map(|e| (&e.key, &e.guard))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }
}
