//! `BigSegmentStoreManager`, `hashContextKey` and `bigSegmentRef` for JavaScript; a JavaScript
//! store object as a core `BigSegmentStore`.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::{Function, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::host::js_host;
use super::promise::{complete, promise, settle};
use super::value::{finite, get, got, intern, method, range_error, set, string_arg, type_error};
use crate::host::HostValue;
use crate::segments::membership::counted_entries;
use crate::segments::{
    hash::big_segment_ref_of_number, hash_context_key, BigSegmentStore, BigSegmentStoreManager, BigSegmentStoreStatus,
    BigSegmentsConfig, BigSegmentsOptionValues, BigSegmentsStatus, ConfigErrorKind, ListenerId, Lookup, OptionValue,
    StoreMetadata,
};

/// A store written in JavaScript: `getMetadata()`, `getMembership(hash)` (or LaunchDarkly's
/// `getUserMembership`), and optionally `close()`. Its methods are looked up when they are
/// called (a stub installed later takes effect); construction only checks that they exist.
pub struct JsStore {
    target: JsValue,
    empty: JsMembership,
    /// The Rust store behind a `redisBigSegmentStore` object, queried directly.
    redis: Option<Rc<crate::segments::redis::RedisStore<super::redis::JsRedisHost>>>,
}

/// A membership as the cache keeps it: the frozen object, and promises of the frozen
/// `{membership, status}` answers made from it so far, one per status. A warm lookup hands out
/// the same resolved promise of the same answer object again instead of building them per call.
#[derive(Clone)]
pub struct JsMembership(Rc<MembershipAnswers>);

struct MembershipAnswers {
    membership: JsValue,
    /// Per status: the answer object and a resolved promise of it.
    answers: RefCell<[Option<(JsValue, JsValue)>; 4]>,
}

impl JsMembership {
    fn new(membership: JsValue) -> Self {
        JsMembership(Rc::new(MembershipAnswers { membership, answers: RefCell::new(Default::default()) }))
    }

    /// The answer for `status` (`promise`: a resolved promise of it).
    fn answer(&self, status: BigSegmentsStatus, promise: bool) -> JsValue {
        let slot = status as usize;
        let pick = |(object, resolved): &(JsValue, JsValue)| if promise { resolved.clone() } else { object.clone() };
        if let Some(Some(answer)) = self.0.answers.borrow().get(slot) {
            return pick(answer);
        }
        let object = answer_object(&self.0.membership, status);
        let answer = (object.clone(), js_sys::Promise::resolve(&object).into());
        let picked = pick(&answer);
        if let Some(cached) = self.0.answers.borrow_mut().get_mut(slot) {
            *cached = Some(answer);
        }
        picked
    }
}

/// A frozen `{membership, status}`.
fn answer_object(membership: &JsValue, status: BigSegmentsStatus) -> JsValue {
    let o = Object::new();
    set(&o, "membership", membership);
    set(&o, "status", intern(status.as_str()));
    frozen(o)
}

impl JsStore {
    fn from_js(store: &JsValue) -> Result<Self, JsValue> {
        let missing = |what: &str| {
            type_error(&format!("store must be an object with getMetadata and {what} methods, {}", got(store)))
        };
        method(store, "getMetadata").ok_or_else(|| missing("getMembership"))?;
        method(store, "getMembership")
            .or_else(|| method(store, "getUserMembership"))
            .ok_or_else(|| missing("getMembership (or getUserMembership)"))?;
        Ok(JsStore {
            target: store.clone(),
            empty: JsMembership::new(frozen(Object::create(&JsValue::NULL.into()))),
            redis: super::redis::take_offered(store),
        })
    }
}

fn frozen(o: Object) -> JsValue {
    Object::freeze(&o).into()
}

#[wasm_bindgen]
extern "C" {
    /// `Object.keys`, a throw (a proxy that refuses) caught.
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    fn object_keys(value: &JsValue) -> Result<js_sys::Array, JsValue>;
}

/// A store's membership answer as a frozen null-prototype object of the entries the core
/// counts (`segments::membership`). Reads the answer's own enumerable keys (none when it is not
/// an object or refuses to list them; a key whose read throws is unreadable); keys are data
/// (a `__proto__` key is an ordinary entry).
fn membership_from(answer: &JsValue) -> Option<JsMembership> {
    if answer.is_undefined() || answer.is_null() {
        return None;
    }
    let keys = if answer.is_object() { object_keys(answer).ok() } else { None };
    let read = keys.iter().flat_map(|keys| keys.iter()).map(|key| {
        let value = js_sys::Reflect::get(answer, &key).ok().and_then(|v| v.as_bool());
        (key, value)
    });
    let o = Object::create(&JsValue::NULL.into());
    for (key, included) in counted_entries(read) {
        let _ = js_sys::Reflect::set(&o, &key, &JsValue::from_bool(included));
    }
    Some(JsMembership::new(frozen(o)))
}

/// A frozen null-prototype membership object from the entries a Rust store found.
fn membership_object(entries: &[(String, bool)]) -> JsValue {
    let o = Object::create(&JsValue::NULL.into());
    for (r, included) in entries {
        let _ = js_sys::Reflect::set(&o, &JsValue::from_str(r), &JsValue::from_bool(*included));
    }
    frozen(o)
}

fn call_settled(
    f: Option<Function>,
    this: &JsValue,
    arg: Option<&JsValue>,
) -> LocalBoxFuture<'static, Result<JsValue, JsValue>> {
    let Some(f) = f else {
        let error = type_error("the store no longer has the method cutover called");
        return futures::future::ready(Err(error)).boxed_local();
    };
    let called = match arg {
        Some(a) => f.call1(this, a),
        None => f.call0(this),
    };
    match called {
        Ok(v) => settle(v),
        Err(e) => futures::future::ready(Err(e)).boxed_local(),
    }
}

impl BigSegmentStore for JsStore {
    type Membership = JsMembership;
    type Error = JsValue;

    fn get_metadata(&self) -> LocalBoxFuture<'static, Result<Option<StoreMetadata>, JsValue>> {
        if let Some(redis) = &self.redis {
            return super::redis::metadata(redis);
        }
        call_settled(method(&self.target, "getMetadata"), &self.target, None)
            .map(|r| {
                let answer = r?;
                if answer.is_undefined() || answer.is_null() {
                    return Ok(None);
                }
                Ok(Some(StoreMetadata { last_up_to_date: finite(&get(&answer, "lastUpToDate")) }))
            })
            .boxed_local()
    }

    fn get_membership(&self, context_hash: &str) -> LocalBoxFuture<'static, Result<Option<JsMembership>, JsValue>> {
        if let Some(redis) = &self.redis {
            return super::redis::membership_entries(redis, context_hash)
                .map(|r| r.map(|entries| entries.map(|entries| JsMembership::new(membership_object(&entries)))))
                .boxed_local();
        }
        let f = method(&self.target, "getMembership").or_else(|| method(&self.target, "getUserMembership"));
        call_settled(f, &self.target, Some(&JsValue::from_str(context_hash)))
            .map(|r| r.map(|answer| membership_from(&answer)))
            .boxed_local()
    }

    fn empty_membership(&self) -> JsMembership {
        self.empty.clone()
    }

    fn close(&self) -> LocalBoxFuture<'static, ()> {
        match method(&self.target, "close") {
            None => futures::future::ready(()).boxed_local(),
            f => call_settled(f, &self.target, None).map(|_| ()).boxed_local(),
        }
    }
}

/// One numeric option read by hand, not through `serde_wasm_bindgen::from_value` into the
/// core's `#[derive(Deserialize)]` `BigSegmentsOptionValues` — measured (issue 12): that one
/// call cost +16.6 KB of gzipped wasm (82,715 → 99,308 B; its type errors format floats, which
/// links core's float formatting) and took the npm tarball to 125,640 B, over its 120,000 B
/// bound. It also read `null` as absent and a BigInt as a number, where `null` and `10n` are a
/// TypeError. `undefined` (or a missing key) is absent; a read that throws reads as absent.
fn option_value(options: &JsValue, name: &'static str) -> OptionValue {
    let v = get(options, name);
    if v.is_undefined() {
        OptionValue::Absent
    } else if let Some(n) = v.as_f64() {
        OptionValue::Number(n)
    } else {
        OptionValue::Other
    }
}

/// A lookup's frozen answer.
fn lookup_object(lookup: Lookup<JsMembership>) -> JsValue {
    match lookup.membership {
        Some(membership) => membership.answer(lookup.status, false),
        None => answer_object(&JsValue::NULL, lookup.status),
    }
}

/// A resolved promise of a lookup's frozen answer (shared by warm lookups of one membership).
fn lookup_promise(lookup: Lookup<JsMembership>) -> JsValue {
    match lookup.membership {
        Some(membership) => membership.answer(lookup.status, true),
        None => js_sys::Promise::resolve(&answer_object(&JsValue::NULL, lookup.status)).into(),
    }
}

/// `{available, stale}`, as the core's serde type defines it. serde-wasm-bindgen is faster here
/// than the hand-built object it replaced: `statusProvider.lastStatus` 0.16–0.21 µs against
/// 0.44–0.60 µs, `stats()` (the counters) 0.74–0.83 µs against 1.9–2.7 µs (Node 20, same run);
/// both serializers cost +1.25 KB of gzipped wasm.
fn status_object(status: BigSegmentStoreStatus) -> JsValue {
    serde_wasm_bindgen::to_value(&status).unwrap_or(JsValue::UNDEFINED)
}

#[wasm_bindgen]
pub struct WasmBigSegmentStoreManager {
    inner: BigSegmentStoreManager<JsStore>,
    /// The context key of the last warm-path lookup; the facade keeps its own copy in step and
    /// sends no key when the caller passed the same string again.
    last_key: std::cell::RefCell<String>,
}

#[wasm_bindgen]
impl WasmBigSegmentStoreManager {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<WasmBigSegmentStoreManager, JsValue> {
        if !options.is_object() {
            return Err(type_error(&format!("options must be an object, {}", got(&options))));
        }
        let store = get(&options, "store");
        let store = if store.is_undefined() || store.is_null() { None } else { Some(JsStore::from_js(&store)?) };
        let values = BigSegmentsOptionValues {
            context_cache_size: option_value(&options, BigSegmentsConfig::CONTEXT_CACHE_SIZE),
            context_cache_time_ms: option_value(&options, BigSegmentsConfig::CONTEXT_CACHE_TIME_MS),
            status_poll_interval_ms: option_value(&options, BigSegmentsConfig::STATUS_POLL_INTERVAL_MS),
            stale_after_ms: option_value(&options, BigSegmentsConfig::STALE_AFTER_MS),
            query_timeout_ms: option_value(&options, BigSegmentsConfig::QUERY_TIMEOUT_MS),
        };
        let config_error = |e: crate::segments::ConfigError| match e.kind {
            ConfigErrorKind::Range => range_error(&e.message),
            ConfigErrorKind::Type => type_error(&e.message),
        };
        let config = BigSegmentsConfig::from_options(&values).map_err(config_error)?;
        let host = js_host(&get(&options, "logger"))?;
        let inner = BigSegmentStoreManager::new(store, config, host).map_err(config_error)?;
        Ok(WasmBigSegmentStoreManager { inner, last_key: Default::default() })
    }

    pub fn start(&self) {
        self.inner.start();
    }

    /// Looks up `context_key` and reports to `resolve`/`reject` (the facade's promise executor).
    #[wasm_bindgen(js_name = getUserMembership)]
    pub fn get_user_membership(&self, context_key: JsValue, resolve: Function, reject: Function) {
        let lookup = string_arg(&context_key, "contextKey").map(|key| self.inner.get_user_membership(&key));
        complete(
            async move {
                let lookup = lookup?.await.map_err(|closed| JsValue::from(js_sys::Error::new(&closed.to_string())))?;
                Ok(lookup_object(lookup))
            },
            resolve,
            reject,
        );
    }

    /// The lookup's result object when it needs no waiting (a warm cache), else `undefined`.
    /// The answer when no waiting is needed, else `undefined`. Called with strings only (the
    /// facade checks): a `&str` parameter crosses in the call itself, without a callback.
    /// A resolved promise of the answer of a lookup the cache can give at once, else undefined. `context_key` is
    /// `None` when it is the very string the previous call passed; `now` is the bridge's clock,
    /// read by the facade (one crossing fewer per warm lookup).
    #[wasm_bindgen(js_name = lookupNow)]
    pub fn lookup_now(&self, context_key: Option<String>, now: f64) -> JsValue {
        let mut last = self.last_key.borrow_mut();
        if let Some(key) = context_key {
            *last = key;
        }
        match self.inner.lookup_at(&last, now) {
            Some(Ok(lookup)) => lookup_promise(lookup),
            _ => JsValue::UNDEFINED,
        }
    }

    #[wasm_bindgen(js_name = getStatus)]
    pub fn get_status(&self) -> Promise {
        let status = self.inner.get_status();
        promise(async move { Ok(status_object(status.await)) })
    }

    #[wasm_bindgen(js_name = lastStatus)]
    pub fn last_status(&self) -> JsValue {
        self.inner.last_status().map(status_object).unwrap_or(JsValue::UNDEFINED)
    }

    /// Registers `listener`; returns the id to remove it with.
    #[wasm_bindgen(js_name = addListener)]
    pub fn add_listener(&self, listener: JsValue) -> Result<f64, JsValue> {
        let listener = listener
            .dyn_into::<Function>()
            .map_err(|v| type_error(&format!("listener must be a function, {}", got(&v))))?;
        let id = self.inner.status_provider().add_listener(Rc::new(move |status| {
            listener.call1(&JsValue::UNDEFINED, &status_object(status)).map(|_| ()).map_err(|e| e.describe())
        }));
        Ok(id.0 as f64)
    }

    #[wasm_bindgen(js_name = removeListener)]
    pub fn remove_listener(&self, id: f64) -> bool {
        self.inner.status_provider().remove_listener(ListenerId(id as u64))
    }

    pub fn close(&self) -> Promise {
        let closing = self.inner.close();
        promise(async move {
            closing.await;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Running counts (lookups, cache hits and misses, store calls), for demos and benchmarks.
    pub fn counters(&self) -> JsValue {
        serde_wasm_bindgen::to_value(&self.inner.counters()).unwrap_or(JsValue::UNDEFINED)
    }
}

/// base64(SHA-256(UTF-8 key)), padded.
#[wasm_bindgen(js_name = hashContextKey)]
pub fn hash_context_key_export(context_key: JsValue) -> Result<String, JsValue> {
    let key = string_arg(&context_key, "hashContextKey: contextKey")?;
    Ok(hash_context_key(&key))
}

/// `${segmentKey}.g${generation}`; the generation rule is the core's (`segments::hash`).
#[wasm_bindgen(js_name = bigSegmentRef)]
pub fn big_segment_ref_export(segment_key: JsValue, generation: JsValue) -> Result<String, JsValue> {
    let key = string_arg(&segment_key, "bigSegmentRef: segmentKey")?;
    let n = generation
        .as_f64()
        .ok_or_else(|| type_error(&format!("bigSegmentRef: generation must be a number, {}", got(&generation))))?;
    big_segment_ref_of_number(&key, n).map_err(|e| range_error(&e.to_string()))
}
