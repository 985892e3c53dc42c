//! The Big Segment store as the core sees it (SPEC B5): a trait, so the bindings can wrap a
//! JavaScript object and keep its membership objects as they are (`Membership` is opaque to the
//! core). The stores whose answers the core parses itself (Redis, DynamoDB) implement
//! `schema_store::SchemaStore` instead, which the bindings offer to the manager as one class.

use futures::future::LocalBoxFuture;
use futures::FutureExt;

use crate::host::HostValue;

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
