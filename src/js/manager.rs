//! `BigSegmentStoreManager` for JavaScript: the core's manager (`segments/manager.rs`, with
//! `lookup.rs` and `poller.rs`) over a JavaScript store, its options, answers and status objects.

use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::host::{js_host, LoggerKeeper};
use super::native_store::NativeStore;
use super::promise::{complete, promise};
use super::store::{answer_object, JsMembership, JsStore};
use super::value::{get, got, string_arg, type_error, type_name};
use crate::host::HostValue;
use crate::segments::{
    BigSegmentStoreManager, BigSegmentStoreStatus, BigSegmentsConfig, BigSegmentsOptionValues, ListenerId, Lookup,
    OptionValue,
};

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
    } else if v.is_null() {
        OptionValue::Other("null")
    } else {
        OptionValue::Other(type_name(&v))
    }
}

/// A lookup's frozen answer.
fn lookup_object(lookup: Lookup<JsMembership>) -> JsValue {
    match lookup.membership {
        Some(mut membership) => membership.answer(lookup.status),
        None => answer_object(&JsValue::NULL, lookup.status),
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
    /// The context key of the last warm-path lookup; the facade keeps its own copy in step
    /// (`LastString`, js/util.js) and sends no key when the caller passed the same string again.
    last_key: std::cell::RefCell<Option<String>>,
}

#[wasm_bindgen]
impl WasmBigSegmentStoreManager {
    /// `instruments`: what js/metrics.js created from `options.meter` (Big Segments table
    /// order), or undefined. `native`: a handle on the Rust store behind `options.store` when that
    /// is a `redisBigSegmentStore` or `dynamoDbBigSegmentStore` object (`NativeStore.share()`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        options: JsValue,
        instruments: JsValue,
        native: Option<NativeStore>,
    ) -> Result<WasmBigSegmentStoreManager, JsValue> {
        if !options.is_object() {
            return Err(type_error(&format!("options must be an object, {}", got(&options))));
        }
        let store = get(&options, "store");
        let store =
            if store.is_undefined() || store.is_null() { None } else { Some(JsStore::from_js(&store, native)?) };
        let values = BigSegmentsOptionValues {
            context_cache_size: option_value(&options, BigSegmentsConfig::CONTEXT_CACHE_SIZE),
            context_cache_time_ms: option_value(&options, BigSegmentsConfig::CONTEXT_CACHE_TIME_MS),
            status_poll_interval_ms: option_value(&options, BigSegmentsConfig::STATUS_POLL_INTERVAL_MS),
            stale_after_ms: option_value(&options, BigSegmentsConfig::STALE_AFTER_MS),
            query_timeout_ms: option_value(&options, BigSegmentsConfig::QUERY_TIMEOUT_MS),
        };
        let config = BigSegmentsConfig::from_options(&values).map_err(crate::error::Error::from)?;
        let mut host = js_host(&get(&options, "logger"), LoggerKeeper::Host)?;
        if !instruments.is_undefined() {
            host.metrics = Some(super::meter::JsMeterSink::sink(&instruments, host.logger.clone()));
        }
        let inner = BigSegmentStoreManager::new(store, config, host).map_err(crate::error::Error::from)?;
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

    /// The frozen answer of a lookup the cache can give at once (a warm cache), else undefined;
    /// the facade resolves a promise with it. The cache keeps the answer it made for the next
    /// warm lookup (`JsMembership::answer`). `context_key` is `None` when it is the very string
    /// the previous call passed (the facade checks that it is a string); `now` is the bridge's
    /// clock, read by the facade (one crossing fewer per warm lookup).
    #[wasm_bindgen(js_name = lookupNow)]
    pub fn lookup_now(&self, context_key: Option<String>, now: f64) -> JsValue {
        // The key is taken out for the lookup, whose metric sink may look up again (re-entrant:
        // that lookup's key, set meanwhile, is then the last one and stays).
        let previous = self.last_key.borrow_mut().take();
        let Some(key) = context_key.or(previous) else {
            return JsValue::UNDEFINED;
        };
        let answered = self.inner.answer_at(&key, now, |membership, status| match membership {
            Some(membership) => membership.answer(status),
            None => answer_object(&JsValue::NULL, status),
        });
        let mut last = self.last_key.borrow_mut();
        if last.is_none() {
            *last = Some(key);
        }
        match answered {
            Some(Ok(answer)) => answer,
            _ => JsValue::UNDEFINED,
        }
    }

    #[wasm_bindgen(js_name = getStatus)]
    pub fn get_status(&self) -> Promise {
        let status = self.inner.get_status();
        promise(async move { Ok(status_object(status.await)) })
    }

    /// The status gauge's value for the last status (undefined before the first poll).
    #[wasm_bindgen(js_name = statusGauge)]
    pub fn status_gauge(&self) -> Option<f64> {
        self.inner.last_status().map(crate::segments::BigSegmentStoreStatus::gauge)
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

    /// The membership queries' latency histogram (wire form), for migrationConsole.
    #[wasm_bindgen(js_name = storeLatencyWire)]
    pub fn store_latency_wire(&self) -> Vec<f64> {
        self.inner.store_latency_wire()
    }

    /// Running counts (lookups, cache hits and misses, store calls), for demos and benchmarks.
    pub fn counters(&self) -> JsValue {
        serde_wasm_bindgen::to_value(&self.inner.counters()).unwrap_or(JsValue::UNDEFINED)
    }
}
