//! Big Segments: the runtime-neutral core (SPEC Part B).
//!
//! - [`hash`]: context-key hashing and segment references.
//! - [`cache`]: the bounded LRU membership cache with an absolute TTL, and single flight.
//! - [`membership`]: which entries of a store's membership answer count.
//! - [`status`]: store status, the status provider and its listeners.
//! - [`config`]: the manager options, their defaults and range checks.
//! - [`manager`]: [`BigSegmentStoreManager`]: its state, counters and close.
//! - [`lookup`]: membership lookups through the cache and single-flight store queries.
//! - [`poller`]: status polls (never overlapping) and the background poller.
//!
//! The store is a trait ([`BigSegmentStore`]) so the bindings can wrap a JavaScript object and
//! keep its membership objects as they are (`Membership` is opaque to the core).

use futures::future::LocalBoxFuture;
use futures::FutureExt;

use crate::host::HostValue;

pub mod cache;
pub mod config;
pub mod hash;
pub mod lookup;
pub mod manager;
pub mod membership;
pub mod poller;
pub mod redis;
pub mod status;

pub use config::{BigSegmentsConfig, BigSegmentsOptionValues, ConfigError, ConfigErrorKind, OptionValue};
pub use hash::{big_segment_ref, hash_context_key};
pub use lookup::{BigSegmentsStatus, Closed, Lookup};
pub use manager::{BigSegmentStoreManager, BigSegmentsCounters};
pub use status::{BigSegmentStoreStatus, ListenerId, StatusListener, StatusProvider};

/// What `getMetadata()` answered. `last_up_to_date` is epoch ms.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StoreMetadata {
    pub last_up_to_date: Option<f64>,
}

/// A Big Segment store (SPEC B5), as the core sees it.
///
/// Every method is called without any manager state borrowed, so an implementation may call
/// back into the manager synchronously. The returned futures are `'static` and `?Send`.
pub trait BigSegmentStore {
    /// A membership as the host represents it (e.g. a frozen JS object); cloned per lookup.
    type Membership: Clone + 'static;
    /// What a failed call produced (e.g. the thrown JS value); only described in logs.
    type Error: HostValue;

    /// `Ok(None)`: the store has no metadata (treated as stale).
    fn get_metadata(&self) -> LocalBoxFuture<'static, Result<Option<StoreMetadata>, Self::Error>>;

    /// Membership for a hashed context key. `Ok(None)` (no data) is cached as
    /// [`BigSegmentStore::empty_membership`].
    fn get_membership(
        &self,
        context_hash: &str,
    ) -> LocalBoxFuture<'static, Result<Option<Self::Membership>, Self::Error>>;

    /// The membership with no entries, used for a store answer of "no data".
    fn empty_membership(&self) -> Self::Membership;

    /// Releases the store's resources. Called at most once, by the manager's `close()`.
    fn close(&self) -> LocalBoxFuture<'static, ()> {
        futures::future::ready(()).boxed_local()
    }
}

#[cfg(test)]
mod manager_tests;
#[cfg(test)]
mod proptests;
