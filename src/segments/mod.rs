//! Big Segments: the runtime-neutral core (SPEC Part B).
//!
//! - [`hash`]: context-key hashing and segment references.
//! - [`cache`]: the bounded LRU membership cache with an absolute TTL, and single flight;
//!   [`cache_index`]: its index of keys; [`cache_slots`]: its nodes, in pages.
//! - [`membership`]: which entries of a store's membership answer count.
//! - [`store`]: the store trait ([`BigSegmentStore`]) and its metadata answer.
//! - [`status`]: store status, the status provider and its listeners.
//! - [`config`]: the manager options, their defaults and range checks.
//! - [`manager`]: [`BigSegmentStoreManager`]: its state, counters and close.
//! - [`lookup`]: membership lookups through the cache and single-flight store queries.
//! - [`poller`]: status polls (never overlapping) and the background poller.
//! - [`schema_store`]: the stores whose schema the core knows ([`SchemaStore`]) and their one
//!   error type; [`host_data`]: their hosts' answers as plain data, which those stores parse.
//! - [`redis`]: the Redis store in Rust (SPEC B6), over a host that sends the commands.
//! - [`dynamodb`]: the DynamoDB store in Rust, over a host that sends `GetItem`.
//!
//! The store is a trait ([`BigSegmentStore`]) so the bindings can wrap a JavaScript object and
//! keep its membership objects as they are (`Membership` is opaque to the core).

pub mod cache;
pub mod cache_index;
pub mod cache_slots;
pub mod config;
pub mod dynamodb;
pub mod hash;
pub mod host_data;
pub mod lookup;
pub mod manager;
pub mod membership;
pub mod poller;
pub mod redis;
pub mod schema_store;
pub mod status;
pub mod store;

pub use config::{BigSegmentsConfig, BigSegmentsOptionValues, ConfigError, ConfigErrorKind, OptionValue};
pub use hash::{big_segment_ref, hash_context_key};
pub use lookup::{BigSegmentsStatus, Closed, Lookup};
pub use manager::{BigSegmentStoreManager, BigSegmentsCounters};
pub use schema_store::{SchemaStore, StoreError};
pub use status::{BigSegmentStoreStatus, ListenerId, StatusListener, StatusProvider};
pub use store::{BigSegmentStore, StoreMetadata};

#[cfg(test)]
mod manager_tests;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod schema_store_tests;
