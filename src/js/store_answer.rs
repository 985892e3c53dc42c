//! The answers of the Rust stores' frozen objects (`redisBigSegmentStore`,
//! `dynamoDbBigSegmentStore`): `getMetadata()` and `getMembership(hash)`, one copy for both.

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
