//! The guards of one migrator, one per flag key: at most `MAX_FLAG_KEYS`, the least recently
//! used dropped first (a dropped key starts closed again), so that a migrator asked about ever
//! new flag keys keeps a fixed size.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::breaker::FlagGuard;

/// How many flag keys a migrator's guard keeps.
pub const MAX_FLAG_KEYS: usize = 100;

pub type Shared = Rc<RefCell<FlagGuard>>;

#[derive(Default)]
pub struct GuardTable {
    entries: HashMap<Rc<str>, (Shared, u64)>,
    /// Uses so far: an entry's number is its last use.
    uses: u64,
    /// The key used last, found without hashing (a migrator usually serves one flag). Its
    /// number in `entries` may be behind: being the last, it is never the one dropped.
    last: Option<(Rc<str>, Shared)>,
}

impl GuardTable {
    /// The guard of `flag_key`, made by `make` when the key has none.
    pub fn entry(&mut self, flag_key: &Rc<str>, make: impl FnOnce() -> FlagGuard) -> Shared {
        if let Some((key, guard)) = &self.last {
            if Rc::ptr_eq(key, flag_key) || **key == **flag_key {
                return guard.clone();
            }
        }
        if let Some((key, _)) = self.last.take() {
            // The key that was last has its number brought up to date first.
            self.uses += 1;
            if let Some((_, used)) = self.entries.get_mut(&*key) {
                *used = self.uses;
            }
        }
        self.uses += 1;
        let uses = self.uses;
        let guard = match self.entries.get_mut(&**flag_key) {
            Some((guard, used)) => {
                *used = uses;
                guard.clone()
            }
            None => {
                if self.entries.len() >= MAX_FLAG_KEYS {
                    self.drop_least_recent();
                }
                let guard: Shared = Rc::new(RefCell::new(make()));
                self.entries.insert(flag_key.clone(), (guard.clone(), uses));
                guard
            }
        };
        self.last = Some((flag_key.clone(), guard.clone()));
        guard
    }

    fn drop_least_recent(&mut self) {
        let oldest = self.entries.iter().min_by_key(|(_, (_, used))| *used).map(|(key, _)| key.clone());
        if let Some(key) = oldest {
            self.entries.remove(&key);
        }
    }

    pub fn get(&self, flag_key: &str) -> Option<&Shared> {
        self.entries.get(flag_key).map(|(guard, _)| guard)
    }

    /// Every key and its guard, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&Rc<str>, &Shared)> {
        self.entries.iter().map(|(key, (guard, _))| (key, guard))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }
}
