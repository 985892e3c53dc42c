//! The stores implemented in Rust (`redis.rs`, `dynamodb.rs`) as the JavaScript side sees
//! them: which one a manager was offered, and the answers of their frozen store objects'
//! `getMetadata()` / `getMembership(hash)`, shared so both stores use one copy of the code.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use js_sys::{Function, Object, Promise};
use wasm_bindgen::prelude::*;

use super::promise::{complete, promise};
use super::value::set;
use crate::segments::redis::MembershipEntries;
use crate::segments::StoreMetadata;

/// A membership query on a Rust store.
pub type MembershipQuery = LocalBoxFuture<'static, Result<Option<MembershipEntries>, JsValue>>;
/// A metadata query on a Rust store.
pub type MetadataQuery = LocalBoxFuture<'static, Result<Option<StoreMetadata>, JsValue>>;

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

/// `getMetadata()`: a promise of `{ lastUpToDate }` (null when never synchronized).
pub fn metadata_promise(query: MetadataQuery) -> Promise {
    promise(async move {
        let metadata = query.await?;
        let o = Object::new();
        let last = metadata.and_then(|m| m.last_up_to_date);
        set(&o, "lastUpToDate", &last.map(JsValue::from_f64).unwrap_or(JsValue::NULL));
        Ok(o.into())
    })
}

/// `getMembership(hash)`: reports a null-prototype `{ ref: included }` object, or null for no
/// data, to `resolve` (or the failure to `reject`).
pub fn complete_membership(query: Result<MembershipQuery, JsValue>, resolve: Function, reject: Function) {
    complete(
        async move {
            let Some(entries) = query?.await? else {
                return Ok(JsValue::NULL);
            };
            let o = Object::create(&JsValue::NULL.into());
            for (r, included) in entries {
                let _ = js_sys::Reflect::set(&o, &JsValue::from_str(&r), &JsValue::from_bool(included));
            }
            Ok(o.into())
        },
        resolve,
        reject,
    );
}
