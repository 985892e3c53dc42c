//! The stores implemented in Rust (`redis.rs`, `dynamodb.rs`) as a manager sees them: which one
//! it was offered, and their queries. (Their frozen objects' answers: `store_answer.rs`.)

use std::rc::Rc;

use wasm_bindgen::prelude::*;

pub use super::store_answer::{MembershipQuery, MetadataQuery};

/// A store implemented in Rust, offered with the frozen object made for it.
pub enum Native {
    Redis(Rc<crate::segments::redis::RedisStore<super::redis::JsRedisHost>>),
    DynamoDb(super::dynamodb::Store),
}

impl Native {
    /// The Rust store offered with `store`, if any (every offer is taken).
    pub fn offered(store: &JsValue) -> Option<Native> {
        let redis = super::redis::take_offered(store).map(Native::Redis);
        let dynamo = super::dynamodb::take_offered(store).map(Native::DynamoDb);
        redis.or(dynamo)
    }

    pub fn metadata(&self) -> MetadataQuery {
        match self {
            Native::Redis(redis) => super::redis::metadata(redis),
            Native::DynamoDb(dynamo) => super::dynamodb::metadata(dynamo),
        }
    }

    pub fn membership(&self, context_hash: &str) -> MembershipQuery {
        match self {
            Native::Redis(redis) => super::redis::membership_entries(redis, context_hash),
            Native::DynamoDb(dynamo) => super::dynamodb::membership_entries(dynamo, context_hash),
        }
    }
}
