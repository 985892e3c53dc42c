//! The membership cache (bounded LRU with an absolute TTL) and single-flight bookkeeping for
//! store queries (SPEC B3).
//!
//! Both are plain data structures: they never call out (no store, logger or listener), so the
//! manager can use them inside a short `RefCell` borrow.

use std::collections::HashMap;

use futures::future::LocalBoxFuture;

use crate::util::shared_future::SharedFuture;

/// "No node": the end of the recency list.
const NIL: usize = usize::MAX;

struct Node<M> {
    key: String,
    value: M,
    /// Monotonic ms when the entry was inserted; the TTL counts from here and is never reset.
    inserted_at: f64,
    /// Neighbours in the recency list (towards the most and the least recently used).
    newer: usize,
    older: usize,
}

/// Bounded least-recently-used cache keyed by the raw context key.
///
/// - An entry inserted at `t` with TTL `T` is a hit while `now - t < T`; at `now - t == T` it
///   is expired (and removed). Reading an entry makes it most recently used but does **not**
///   extend its life: the TTL is absolute from insertion.
/// - Inserting a new key into a full cache evicts the least recently used entry first.
/// - A TTL of 0 (or a capacity of 0) caches nothing.
///
/// Every operation is O(1): a `HashMap` finds the slot of a key, and the slots form a doubly
/// linked list in recency order.
pub struct MembershipCache<M> {
    capacity: usize,
    ttl_ms: f64,
    index: HashMap<String, usize>,
    slots: Vec<Option<Node<M>>>,
    free: Vec<usize>,
    newest: usize,
    oldest: usize,
}

impl<M: Clone> MembershipCache<M> {
    pub fn new(capacity: usize, ttl_ms: f64) -> Self {
        MembershipCache {
            capacity,
            ttl_ms,
            index: HashMap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            newest: NIL,
            oldest: NIL,
        }
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    fn node(&self, slot: usize) -> Option<&Node<M>> {
        self.slots.get(slot).and_then(Option::as_ref)
    }

    fn node_mut(&mut self, slot: usize) -> Option<&mut Node<M>> {
        self.slots.get_mut(slot).and_then(Option::as_mut)
    }

    /// Takes `slot` out of the recency list (it stays allocated).
    fn unlink(&mut self, slot: usize) {
        let Some((newer, older)) = self.node(slot).map(|n| (n.newer, n.older)) else {
            return;
        };
        match self.node_mut(newer) {
            Some(n) => n.older = older,
            None => self.newest = older,
        }
        match self.node_mut(older) {
            Some(n) => n.newer = newer,
            None => self.oldest = newer,
        }
    }

    /// Puts `slot` at the most recently used end of the list.
    fn push_newest(&mut self, slot: usize) {
        let previous = self.newest;
        if let Some(n) = self.node_mut(slot) {
            n.newer = NIL;
            n.older = previous;
        }
        match self.node_mut(previous) {
            Some(n) => n.newer = slot,
            None => self.oldest = slot,
        }
        self.newest = slot;
    }

    /// Removes the entry in `slot` entirely.
    fn remove_slot(&mut self, slot: usize) {
        self.unlink(slot);
        if let Some(node) = self.slots.get_mut(slot).and_then(Option::take) {
            self.index.remove(&node.key);
            self.free.push(slot);
        }
    }

    /// The cached value for `key` if it is still fresh at `now_ms`; marks it most recently used.
    /// An expired entry is removed.
    pub fn get(&mut self, key: &str, now_ms: f64) -> Option<M> {
        // A repeat of the most recently used key (a hot context) is found without hashing.
        let slot = match self.node(self.newest) {
            Some(node) if node.key == key => self.newest,
            _ => *self.index.get(key)?,
        };
        let fresh = now_ms - self.node(slot)?.inserted_at < self.ttl_ms;
        if !fresh {
            self.remove_slot(slot);
            return None;
        }
        self.unlink(slot);
        self.push_newest(slot);
        self.node(slot).map(|n| n.value.clone())
    }

    /// Stores `value` for `key` as of `now_ms`, replacing any previous entry (and restarting its
    /// TTL). Evicts least recently used entries while the cache is full.
    pub fn insert(&mut self, key: String, value: M, now_ms: f64) {
        if self.capacity == 0 || self.ttl_ms.is_nan() || self.ttl_ms <= 0.0 {
            return;
        }
        if let Some(&slot) = self.index.get(&key) {
            self.remove_slot(slot);
        }
        while self.index.len() >= self.capacity && self.oldest != NIL {
            self.remove_slot(self.oldest);
        }
        let node = Node { key: key.clone(), value, inserted_at: now_ms, newer: NIL, older: NIL };
        let slot = match self.free.pop() {
            Some(slot) => {
                if let Some(s) = self.slots.get_mut(slot) {
                    *s = Some(node);
                }
                slot
            }
            None => {
                self.slots.push(Some(node));
                self.slots.len() - 1
            }
        };
        self.index.insert(key, slot);
        self.push_newest(slot);
    }

    /// Drops every entry.
    pub fn clear(&mut self) {
        self.index.clear();
        self.slots.clear();
        self.free.clear();
        self.newest = NIL;
        self.oldest = NIL;
    }
}

/// A query in flight, shared by every caller waiting for the same key.
pub type SharedQuery<T> = SharedFuture<T>;

/// In-flight queries by key, so concurrent misses for one key share one store call.
///
/// The query future is expected to call [`SingleFlight::finish`] with its id when it settles;
/// the id guards against removing a newer query for the same key.
pub struct SingleFlight<T: Clone> {
    queries: HashMap<String, (u64, SharedQuery<T>)>,
    next_id: u64,
}

impl<T: Clone> Default for SingleFlight<T> {
    fn default() -> Self {
        SingleFlight { queries: HashMap::new(), next_id: 0 }
    }
}

impl<T: Clone + 'static> SingleFlight<T> {
    /// The query in flight for `key`, if any.
    pub fn join(&self, key: &str) -> Option<SharedQuery<T>> {
        self.queries.get(key).map(|(_, query)| query.clone())
    }

    /// Registers a new query for `key`. `make` receives the query's id and must build the
    /// future lazily (it is not polled here).
    pub fn begin(&mut self, key: String, make: impl FnOnce(u64) -> LocalBoxFuture<'static, T>) -> SharedQuery<T> {
        self.next_id = self.next_id.wrapping_add(1);
        let id = self.next_id;
        let query = SharedFuture::new(make(id));
        self.queries.insert(key, (id, query.clone()));
        query
    }

    /// Forgets the query `id` for `key` and returns its handle (for the caller to drop outside
    /// any borrow); a no-op when a different query is registered.
    pub fn finish(&mut self, key: &str, id: u64) -> Option<SharedQuery<T>> {
        if matches!(self.queries.get(key), Some((current, _)) if *current == id) {
            self.queries.remove(key).map(|(_, query)| query)
        } else {
            None
        }
    }

    pub fn len(&self) -> usize {
        self.queries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queries.is_empty()
    }

    /// Removes and returns every query (so the caller can drop them outside a borrow).
    pub fn take_all(&mut self) -> Vec<SharedQuery<T>> {
        self.queries.drain().map(|(_, (_, query))| query).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use futures::FutureExt;

    #[test]
    fn ttl_is_strict_hit_before_boundary_miss_at_it() {
        let mut cache = MembershipCache::new(10, 100.0);
        cache.insert("k".into(), 1, 1000.0);
        assert_eq!(cache.get("k", 1000.0), Some(1));
        assert_eq!(cache.get("k", 1099.999), Some(1));
        assert_eq!(cache.get("k", 1100.0), None);
        assert!(cache.is_empty(), "expired entry is removed");
    }

    #[test]
    fn ttl_is_absolute_reads_do_not_extend_it() {
        let mut cache = MembershipCache::new(10, 100.0);
        cache.insert("k".into(), 1, 0.0);
        for t in [10.0, 40.0, 70.0, 99.0] {
            assert_eq!(cache.get("k", t), Some(1));
        }
        assert_eq!(cache.get("k", 100.0), None);
    }

    #[test]
    fn reinsert_restarts_ttl_and_replaces_value() {
        let mut cache = MembershipCache::new(2, 100.0);
        cache.insert("k".into(), 1, 0.0);
        cache.insert("k".into(), 2, 50.0);
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.get("k", 120.0), Some(2));
        assert_eq!(cache.get("k", 150.0), None);
    }

    #[test]
    fn full_cache_evicts_least_recently_inserted_when_nothing_read() {
        let mut cache = MembershipCache::new(2, 1000.0);
        cache.insert("a".into(), 1, 0.0);
        cache.insert("b".into(), 2, 0.0);
        cache.insert("c".into(), 3, 0.0);
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get("a", 1.0), None);
        assert_eq!(cache.get("b", 1.0), Some(2));
        assert_eq!(cache.get("c", 1.0), Some(3));
    }

    #[test]
    fn recently_read_entry_survives_eviction() {
        let mut cache = MembershipCache::new(2, 1000.0);
        cache.insert("a".into(), 1, 0.0);
        cache.insert("b".into(), 2, 0.0);
        assert_eq!(cache.get("a", 1.0), Some(1)); // a is now most recently used
        cache.insert("c".into(), 3, 2.0);
        assert_eq!(cache.get("b", 3.0), None, "b was least recently used");
        assert_eq!(cache.get("a", 3.0), Some(1));
        assert_eq!(cache.get("c", 3.0), Some(3));
    }

    #[test]
    fn zero_ttl_caches_nothing() {
        let mut cache = MembershipCache::new(2, 0.0);
        cache.insert("a".into(), 1, 0.0);
        assert!(cache.is_empty());
        assert_eq!(cache.get("a", 0.0), None);
    }

    #[test]
    fn large_cache_stays_bounded_and_fast() {
        let mut cache = MembershipCache::new(1000, 1e12);
        for i in 0..100_000u32 {
            cache.insert(format!("k{i}"), i, 0.0);
            // keep k0 hot: it must never be evicted
            assert_eq!(cache.get("k0", 0.0), Some(0));
        }
        assert_eq!(cache.len(), 1000);
        assert_eq!(cache.get("k99999", 0.0), Some(99_999));
        assert_eq!(cache.get("k1", 0.0), None);
    }

    #[test]
    fn single_flight_shares_one_future_and_finish_checks_id() {
        let mut flights: SingleFlight<u32> = SingleFlight::default();
        assert!(flights.join("k").is_none());
        let started = std::rc::Rc::new(std::cell::Cell::new(0));
        let s = started.clone();
        let first = flights.begin("k".into(), move |_| {
            async move {
                s.set(s.get() + 1);
                7
            }
            .boxed_local()
        });
        assert_eq!(started.get(), 0, "begin does not poll");
        let joined = flights.join("k").unwrap();
        assert_eq!(block_on(first), 7);
        assert_eq!(block_on(joined), 7);
        assert_eq!(started.get(), 1, "the query ran once");
        assert!(flights.finish("k", 999).is_none());
        assert_eq!(flights.len(), 1, "wrong id is a no-op");
        assert!(flights.finish("k", 1).is_some());
        assert!(flights.is_empty());
    }
}
