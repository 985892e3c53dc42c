//! A Big Segment store whose schema the core knows (Redis: `redis.rs`, DynamoDB: `dynamodb.rs`):
//! its host only carries the queries and their answers ([`HostData`](super::host_data)), and the
//! core reads those answers into membership entries. Everything such a store can fail with is one
//! [`StoreError`]: the host's own error, kept as it was, or an answer that breaks the schema.

use futures::future::LocalBoxFuture;

use super::membership::TooWide;
use super::store::StoreMetadata;
use crate::host::HostValue;

/// A membership as a schema store read it: `(segment ref, included)` pairs, sorted by ref.
pub type MembershipEntries = Vec<(String, bool)>;

/// A failed query of a schema store.
#[derive(Clone, Debug, PartialEq)]
pub enum StoreError<E> {
    /// The host failed (a thrown or rejected value, kept as it was).
    Host(E),
    /// The host answered, but not in the schema; the message names what was wrong and leaves
    /// out the context's hash (store errors are logged).
    Malformed(String),
    /// The host answered a membership wider than the bound (`membership::MAX_ENTRIES`),
    /// refused unread.
    TooWide(TooWide),
}

/// A failure of the schema's own, with no host error in it (an answer that breaks the schema
/// or is too wide), as the stores' parsers return it.
pub type SchemaError = StoreError<std::convert::Infallible>;

impl SchemaError {
    /// The same failure as a store error of any host.
    pub fn widen<E>(self) -> StoreError<E> {
        match self {
            StoreError::Host(never) => match never {},
            StoreError::Malformed(m) => StoreError::Malformed(m),
            StoreError::TooWide(w) => StoreError::TooWide(w),
        }
    }
}

impl<E: HostValue> HostValue for StoreError<E> {
    fn describe(&self) -> String {
        match self {
            StoreError::Host(e) => e.describe(),
            StoreError::Malformed(m) => m.clone(),
            StoreError::TooWide(w) => w.to_string(),
        }
    }
}

/// What a schema store's queries answer.
pub type StoreReply<T, E> = LocalBoxFuture<'static, Result<T, StoreError<E>>>;

/// A store whose answers the core parses. Both queries are `'static` futures that hold no
/// borrow of the store.
pub trait SchemaStore {
    type HostError: HostValue;

    /// When the store was last synchronized (`last_up_to_date: None`: never).
    fn metadata(&self) -> StoreReply<StoreMetadata, Self::HostError>;

    /// The membership of a hashed context key; `None` when the store has no data for it.
    fn membership(&self, context_hash: &str) -> StoreReply<Option<MembershipEntries>, Self::HostError>;
}

/// Combines a context's two sets: excluded refs map to false, included to true; include wins.
/// `None` when both are empty.
pub fn membership_of(included: Vec<String>, excluded: Vec<String>) -> Option<MembershipEntries> {
    if included.is_empty() && excluded.is_empty() {
        return None;
    }
    let mut entries: MembershipEntries =
        included.into_iter().map(|r| (r, true)).chain(excluded.into_iter().map(|r| (r, false))).collect();
    // By ref, `true` first, so that keeping the first of each ref makes include win.
    crate::util::sort::sort_unstable_by(&mut entries, |a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    entries.dedup_by(|later, first| later.0 == first.0);
    Some(entries)
}
