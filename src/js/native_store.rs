//! The stores written in Rust (`redisBigSegmentStore`, `dynamoDbBigSegmentStore`) as one
//! JavaScript class. Their frozen store objects call its methods; a manager over such an object
//! (and `launchDarklyBigSegmentStore`) is handed the class itself and queries it directly.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::{Function, Object, Promise};
use wasm_bindgen::prelude::*;

use super::promise::{complete, promise};
use super::value::{set, string_arg};
use crate::segments::schema_store::MembershipEntries;
use crate::segments::{SchemaStore, StoreError, StoreMetadata};

/// A query of a Rust store, its failure as JavaScript sees it.
pub type Query<T> = LocalBoxFuture<'static, Result<T, JsValue>>;

#[wasm_bindgen]
pub struct NativeStore {
    inner: Rc<dyn SchemaStore<HostError = JsValue>>,
}

/// The host's own error as it was; a malformed answer as an `Error` with the core's message, a
/// membership refused as too wide as a `RangeError` with it.
fn js_error(e: StoreError<JsValue>) -> JsValue {
    match e {
        StoreError::Host(e) => e,
        StoreError::Malformed(m) => js_sys::Error::new(&m).into(),
        StoreError::TooWide(w) => js_sys::RangeError::new(&w.to_string()).into(),
    }
}

/// A null-prototype `{ ref: included }` object of a Rust store's entries.
pub fn entries_object(entries: &[(String, bool)]) -> Object {
    let o = Object::create(&JsValue::NULL.into());
    for (r, included) in entries {
        let _ = js_sys::Reflect::set(&o, &JsValue::from_str(r), &JsValue::from_bool(*included));
    }
    o
}

impl NativeStore {
    fn over(store: impl SchemaStore<HostError = JsValue> + 'static) -> NativeStore {
        NativeStore { inner: Rc::new(store) }
    }

    pub fn metadata(&self) -> Query<StoreMetadata> {
        self.inner.metadata().map(|r| r.map_err(js_error)).boxed_local()
    }

    pub fn membership(&self, context_hash: &str) -> Query<Option<MembershipEntries>> {
        self.inner.membership(context_hash).map(|r| r.map_err(js_error)).boxed_local()
    }
}

#[wasm_bindgen]
impl NativeStore {
    /// `redisBigSegmentStore(host, options)`.
    pub fn redis(host: JsValue, options: JsValue) -> Result<NativeStore, JsValue> {
        Ok(NativeStore::over(super::redis::store(&host, &options)?))
    }

    /// `dynamoDbBigSegmentStore(host, options)`.
    #[wasm_bindgen(js_name = dynamoDb)]
    pub fn dynamo_db(host: JsValue, options: JsValue) -> Result<NativeStore, JsValue> {
        Ok(NativeStore::over(super::dynamodb::store(&host, &options)?))
    }

    /// Another handle on this store, for a manager to own (JavaScript gives up the handle it
    /// passes to the manager's constructor).
    pub fn share(&self) -> NativeStore {
        NativeStore { inner: self.inner.clone() }
    }

    /// A promise of `{ lastUpToDate }` (null when never synchronized).
    #[wasm_bindgen(js_name = getMetadata)]
    pub fn get_metadata(&self) -> Promise {
        let query = self.metadata();
        promise(async move {
            let o = Object::new();
            let last = query.await?.last_up_to_date;
            set(&o, "lastUpToDate", &last.map_or(JsValue::NULL, JsValue::from_f64));
            Ok(o.into())
        })
    }

    /// Reads the membership of `context_hash` and reports a null-prototype `{ ref: included }`
    /// object, or null for no data, to `resolve` (the failure to `reject`).
    #[wasm_bindgen(js_name = getMembership)]
    pub fn get_membership(&self, context_hash: JsValue, resolve: Function, reject: Function) {
        let query = string_arg(&context_hash, "contextHash").map(|hash| self.membership(&hash));
        let answer = async move { Ok(query?.await?.map_or(JsValue::NULL, |entries| entries_object(&entries).into())) };
        complete(answer, resolve, reject);
    }
}
