//! The membership cache (bounded LRU with an absolute TTL) and single-flight bookkeeping for
//! store queries (SPEC B3).
//!
//! Both are plain data structures: they never call out (no store, logger or listener), so the
//! manager can use them inside a short `RefCell` borrow.

use futures::future::LocalBoxFuture;

use super::cache_index::KeyIndex;
use super::cache_slots::PagedSlots;
use crate::util::shared_future::SharedFuture;

/// "No node": the end of the recency list.
const NIL: u32 = u32::MAX;

/// One cached key: 32 bytes in wasm32 (a `Membership` of 8), plus the key's own allocation.
struct Node<M> {
    key: Box<str>,
    value: M,
    /// Monotonic ms when the entry was inserted; the TTL counts from here and is never reset.
    inserted_at: f64,
    /// Neighbours in the recency list (towards the most and the least recently used).
    newer: u32,
    older: u32,
}

/// Bounded least-recently-used cache keyed by the raw context key.
///
/// - An entry inserted at `t` with TTL `T` is a hit while `now - t < T`; at `now - t == T` it
///   is expired (and removed). Reading an entry makes it most recently used but does **not**
///   extend its life: the TTL is absolute from insertion.
/// - Inserting a new key into a full cache evicts the least recently used entry first.
/// - A TTL of 0 (or a capacity of 0) caches nothing.
///
/// Every operation is O(1): the index ([`KeyIndex`]) finds the slot of a key, and the slots (a
/// dense [`PagedSlots`]: a removed node's place is taken by the last one) form a doubly linked
/// list in recency order. The key is kept once, in its node (issue 32: memory per cached
/// context).
pub struct MembershipCache<M> {
    capacity: usize,
    ttl_ms: f64,
    index: KeyIndex,
    nodes: PagedSlots<Node<M>>,
    newest: u32,
    oldest: u32,
}

impl<M: Clone> MembershipCache<M> {
    pub fn new(capacity: usize, ttl_ms: f64) -> Self {
        MembershipCache {
            capacity,
            ttl_ms,
            index: KeyIndex::default(),
            nodes: PagedSlots::new(capacity),
            newest: NIL,
            oldest: NIL,
        }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    fn node(&self, slot: u32) -> Option<&Node<M>> {
        self.nodes.get(slot as usize)
    }

    fn node_mut(&mut self, slot: u32) -> Option<&mut Node<M>> {
        self.nodes.get_mut(slot as usize)
    }

    /// The slot of `key`, if it is cached.
    fn find(&self, key: &str) -> Option<u32> {
        let nodes = &self.nodes;
        self.index.get(key, &|slot| nodes.get(slot as usize).map(|n| &*n.key))
    }

    /// Takes `slot` out of the recency list (it stays allocated).
    fn unlink(&mut self, slot: u32) {
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
    fn push_newest(&mut self, slot: u32) {
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

    /// Removes the entry in `slot` entirely; the last node moves into its place.
    fn remove_slot(&mut self, slot: u32) {
        self.unlink(slot);
        let nodes = &self.nodes;
        let key_of = |s: u32| nodes.get(s as usize).map(|n| &*n.key);
        let Some(node) = nodes.get(slot as usize) else {
            return;
        };
        self.index.remove(&node.key, &key_of);
        let last = nodes.len() - 1;
        if slot as usize != last {
            let Some((key, newer, older)) = nodes.get(last).map(|n| (&n.key, n.newer, n.older)) else {
                return;
            };
            self.index.relocate(key, slot, &key_of);
            match self.node_mut(newer) {
                Some(n) => n.older = slot,
                None => self.newest = slot,
            }
            match self.node_mut(older) {
                Some(n) => n.newer = slot,
                None => self.oldest = slot,
            }
        }
        self.nodes.swap_remove(slot as usize);
    }

    /// The cached value for `key` if it is still fresh at `now_ms`; marks it most recently used.
    /// An expired entry is removed.
    pub fn get(&mut self, key: &str, now_ms: f64) -> Option<&mut M> {
        // A repeat of the most recently used key (a hot context) is found without hashing.
        let slot = match self.node(self.newest) {
            Some(node) if &*node.key == key => self.newest,
            _ => self.find(key)?,
        };
        let fresh = now_ms - self.node(slot)?.inserted_at < self.ttl_ms;
        if !fresh {
            self.remove_slot(slot);
            return None;
        }
        if slot != self.newest {
            self.unlink(slot);
            self.push_newest(slot);
        }
        self.node_mut(slot).map(|n| &mut n.value)
    }

    /// Stores `value` for `key` as of `now_ms`, replacing any previous entry (and restarting its
    /// TTL). Evicts least recently used entries while the cache is full.
    pub fn insert(&mut self, key: String, value: M, now_ms: f64) {
        if self.capacity == 0 || self.ttl_ms.is_nan() || self.ttl_ms <= 0.0 {
            return;
        }
        if let Some(slot) = self.find(&key) {
            self.remove_slot(slot);
        }
        while self.nodes.len() >= self.capacity && self.oldest != NIL {
            self.remove_slot(self.oldest);
        }
        let slot = self.nodes.len();
        if slot >= NIL as usize {
            return; // slots are u32: more than 4 billion contexts are not cached
        }
        self.nodes.push(Node { key: key.into_boxed_str(), value, inserted_at: now_ms, newer: NIL, older: NIL });
        let slot = slot as u32;
        let nodes = &self.nodes;
        if let Some(node) = nodes.get(slot as usize) {
            self.index.insert(&node.key, slot, &|s| nodes.get(s as usize).map(|n| &*n.key));
        }
        self.push_newest(slot);
    }

    /// Drops every entry and frees their room.
    pub fn clear(&mut self) {
        self.index.clear();
        self.nodes.clear();
        self.newest = NIL;
        self.oldest = NIL;
    }
}

/// A query in flight, shared by every caller waiting for the same key.
pub type SharedQuery<T> = SharedFuture<T>;

/// In-flight queries by key, so concurrent misses for one key share one store call.
///
/// The query future is expected to call [`SingleFlight::finish`] with its id when it settles;
/// the id guards against removing a newer query for the same key. Found through a [`KeyIndex`]
/// as the cache's nodes are (no hash map instantiated for it: less wasm).
pub struct SingleFlight<T: Clone> {
    queries: Vec<(Box<str>, u64, SharedQuery<T>)>,
    index: KeyIndex,
    next_id: u64,
}

impl<T: Clone> Default for SingleFlight<T> {
    fn default() -> Self {
        SingleFlight { queries: Vec::new(), index: KeyIndex::default(), next_id: 0 }
    }
}

impl<T: Clone + 'static> SingleFlight<T> {
    fn slot(&self, key: &str) -> Option<usize> {
        let queries = &self.queries;
        self.index.get(key, &|s| queries.get(s as usize).map(|q| &*q.0)).map(|s| s as usize)
    }

    /// Removes the query in `slot`; the last one moves into its place.
    fn remove_slot(&mut self, slot: usize) -> Option<SharedQuery<T>> {
        let queries = &self.queries;
        let key_of = |s: u32| queries.get(s as usize).map(|q| &*q.0);
        self.index.remove(&queries.get(slot)?.0, &key_of);
        if let Some((last, _, _)) = queries.last().filter(|_| slot + 1 < queries.len()) {
            self.index.relocate(last, slot as u32, &key_of);
        }
        Some(self.queries.swap_remove(slot).2)
    }

    /// The query in flight for `key`, if any.
    pub fn join(&self, key: &str) -> Option<SharedQuery<T>> {
        self.queries.get(self.slot(key)?).map(|(_, _, query)| query.clone())
    }

    /// Registers a new query for `key`. `make` receives the query's id and must build the
    /// future lazily (it is not polled here).
    pub fn begin(&mut self, key: String, make: impl FnOnce(u64) -> LocalBoxFuture<'static, T>) -> SharedQuery<T> {
        self.next_id = self.next_id.wrapping_add(1);
        let id = self.next_id;
        let query = SharedFuture::new(make(id));
        if let Some(slot) = self.slot(&key) {
            self.remove_slot(slot);
        }
        let slot = self.queries.len() as u32;
        self.queries.push((key.into_boxed_str(), id, query.clone()));
        let queries = &self.queries;
        if let Some((key, _, _)) = queries.last() {
            self.index.insert(key, slot, &|s| queries.get(s as usize).map(|q| &*q.0));
        }
        query
    }

    /// Forgets the query `id` for `key` and returns its handle (for the caller to drop outside
    /// any borrow); a no-op when a different query is registered.
    pub fn finish(&mut self, key: &str, id: u64) -> Option<SharedQuery<T>> {
        let slot = self.slot(key)?;
        match self.queries.get(slot) {
            Some((_, current, _)) if *current == id => self.remove_slot(slot),
            _ => None,
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
        self.index.clear();
        self.queries.drain(..).map(|(_, _, query)| query).collect()
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
        assert_eq!(cache.get("k", 1000.0).copied(), Some(1));
        assert_eq!(cache.get("k", 1099.999).copied(), Some(1));
        assert_eq!(cache.get("k", 1100.0).copied(), None);
        assert!(cache.is_empty(), "expired entry is removed");
    }

    #[test]
    fn ttl_is_absolute_reads_do_not_extend_it() {
        let mut cache = MembershipCache::new(10, 100.0);
        cache.insert("k".into(), 1, 0.0);
        for t in [10.0, 40.0, 70.0, 99.0] {
            assert_eq!(cache.get("k", t).copied(), Some(1));
        }
        assert_eq!(cache.get("k", 100.0).copied(), None);
    }

    #[test]
    fn reinsert_restarts_ttl_and_replaces_value() {
        let mut cache = MembershipCache::new(2, 100.0);
        cache.insert("k".into(), 1, 0.0);
        cache.insert("k".into(), 2, 50.0);
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.get("k", 120.0).copied(), Some(2));
        assert_eq!(cache.get("k", 150.0).copied(), None);
    }

    #[test]
    fn full_cache_evicts_least_recently_inserted_when_nothing_read() {
        let mut cache = MembershipCache::new(2, 1000.0);
        cache.insert("a".into(), 1, 0.0);
        cache.insert("b".into(), 2, 0.0);
        cache.insert("c".into(), 3, 0.0);
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get("a", 1.0).copied(), None);
        assert_eq!(cache.get("b", 1.0).copied(), Some(2));
        assert_eq!(cache.get("c", 1.0).copied(), Some(3));
    }

    #[test]
    fn recently_read_entry_survives_eviction() {
        let mut cache = MembershipCache::new(2, 1000.0);
        cache.insert("a".into(), 1, 0.0);
        cache.insert("b".into(), 2, 0.0);
        assert_eq!(cache.get("a", 1.0).copied(), Some(1)); // a is now most recently used
        cache.insert("c".into(), 3, 2.0);
        assert_eq!(cache.get("b", 3.0).copied(), None, "b was least recently used");
        assert_eq!(cache.get("a", 3.0).copied(), Some(1));
        assert_eq!(cache.get("c", 3.0).copied(), Some(3));
    }

    #[test]
    fn zero_ttl_caches_nothing() {
        let mut cache = MembershipCache::new(2, 0.0);
        cache.insert("a".into(), 1, 0.0);
        assert!(cache.is_empty());
        assert_eq!(cache.get("a", 0.0).copied(), None);
    }

    #[test]
    fn large_cache_stays_bounded_and_fast() {
        let mut cache = MembershipCache::new(1000, 1e12);
        for i in 0..100_000u32 {
            cache.insert(format!("k{i}"), i, 0.0);
            // keep k0 hot: it must never be evicted
            assert_eq!(cache.get("k0", 0.0).copied(), Some(0));
        }
        assert_eq!(cache.len(), 1000);
        assert_eq!(cache.get("k99999", 0.0).copied(), Some(99_999));
        assert_eq!(cache.get("k1", 0.0).copied(), None);
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
