//! `redisBigSegmentStore` for JavaScript: a Redis host function (any client) as a core
//! `RedisHost`, and the core Redis store exposed as a JavaScript store object.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::{Array, Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::promise::awaited as settle;
use super::value::{array_items, get, got, is_array, method, string_arg, type_error};
use crate::host::HostValue;
use crate::segments::redis::{RedisHost, RedisReply, RedisStore, RedisStoreError};

/// `{ command(args), pipeline?(commands) }`, or a bare command function.
pub struct JsRedisHost {
    target: JsValue,
    command: Function,
    pipeline: Option<Function>,
}

impl JsRedisHost {
    fn from_js(host: &JsValue) -> Result<Self, JsValue> {
        if let Some(f) = host.dyn_ref::<Function>() {
            return Ok(JsRedisHost { target: JsValue::UNDEFINED, command: f.clone(), pipeline: None });
        }
        let command = method(host, "command").ok_or_else(|| {
            type_error(&format!(
                "redisBigSegmentStore: host must be a function (args) => Promise or an object with a command method, {}",
                got(host)
            ))
        })?;
        Ok(JsRedisHost { target: host.clone(), command, pipeline: method(host, "pipeline") })
    }
}

fn strings(args: &[String]) -> Array {
    args.iter().map(|a| JsValue::from_str(a)).collect()
}

/// Deepest reply nesting read; the store's commands reply at depth 2 at most.
const MAX_REPLY_DEPTH: u32 = 4;

/// A JavaScript reply as the core's `RedisReply`.
fn reply_of(value: &JsValue, depth: u32) -> RedisReply {
    if value.is_undefined() || value.is_null() {
        RedisReply::Nil
    } else if let Some(s) = value.as_string() {
        RedisReply::Text(s)
    } else if let Some(n) = value.as_f64() {
        if n.fract() == 0.0 && n.abs() < 9.0e15 {
            RedisReply::Integer(n as i64)
        } else {
            RedisReply::Other(crate::util::text::number(n))
        }
    } else if is_array(value) {
        if depth >= MAX_REPLY_DEPTH {
            return RedisReply::Other("an array nested too deep".into());
        }
        match array_items(value) {
            Some(items) => RedisReply::Array(items.iter().map(|v| reply_of(v, depth + 1)).collect()),
            None => RedisReply::Other("an unreadable array".into()),
        }
    } else {
        RedisReply::Other(value.describe())
    }
}

fn call(f: &Function, this: &JsValue, arg: &JsValue) -> LocalBoxFuture<'static, Result<JsValue, JsValue>> {
    match f.call1(this, arg) {
        Ok(v) => settle(v),
        Err(e) => futures::future::ready(Err(e)).boxed_local(),
    }
}

impl RedisHost for JsRedisHost {
    type Error = JsValue;

    fn command(&self, args: Vec<String>) -> LocalBoxFuture<'static, Result<RedisReply, JsValue>> {
        call(&self.command, &self.target, &strings(&args)).map(|r| r.map(|v| reply_of(&v, 0))).boxed_local()
    }

    fn pipeline(
        &self,
        commands: Vec<Vec<String>>,
    ) -> Option<LocalBoxFuture<'static, Result<Vec<RedisReply>, JsValue>>> {
        let f = self.pipeline.as_ref()?;
        let commands: Array = commands.iter().map(|c| JsValue::from(strings(c))).collect();
        Some(
            call(f, &self.target, &commands)
                .map(|r| {
                    let replies = r?;
                    let items = if is_array(&replies) { array_items(&replies) } else { None };
                    let items = items.ok_or_else(|| {
                        type_error(&format!("Redis pipeline did not return an array, {}", got(&replies)))
                    })?;
                    Ok(items.iter().map(|v| reply_of(v, 1)).collect())
                })
                .boxed_local(),
        )
    }
}

fn store_error(e: RedisStoreError<JsValue>) -> JsValue {
    match e {
        RedisStoreError::Host(e) => e,
        RedisStoreError::Schema(m) => js_sys::Error::new(&m).into(),
    }
}

#[wasm_bindgen]
pub struct WasmRedisStore {
    inner: Rc<RedisStore<JsRedisHost>>,
}

thread_local! {
    /// A Redis store offered to the next manager with the store object made for it (see
    /// `offerRedisStore`).
    static OFFERED: std::cell::RefCell<Option<(Rc<RedisStore<JsRedisHost>>, JsValue)>> =
        const { std::cell::RefCell::new(None) };
}

/// Offers the next `BigSegmentStoreManager` the Redis store behind `facade` (the frozen store
/// object `redisBigSegmentStore` returned): when its `store` option is that very object, the
/// manager queries the Rust store directly instead of through the object's promise-returning
/// methods, which cannot have changed since the object is frozen.
#[wasm_bindgen(js_name = offerRedisStore)]
pub fn offer_redis_store(store: &WasmRedisStore, facade: JsValue) {
    OFFERED.with(|o| *o.borrow_mut() = Some((store.inner.clone(), facade)));
}

/// The offered Redis store, if `store` is the object it was offered with (the offer is taken
/// either way).
pub fn take_offered(store: &JsValue) -> Option<Rc<RedisStore<JsRedisHost>>> {
    let (redis, facade) = OFFERED.with(|o| o.borrow_mut().take())?;
    js_sys::Object::is(store, &facade).then_some(redis)
}

/// A membership query on the Rust store, as the entries it found.
pub fn membership_entries(
    store: &Rc<RedisStore<JsRedisHost>>,
    context_hash: &str,
) -> LocalBoxFuture<'static, Result<Option<crate::segments::redis::MembershipEntries>, JsValue>> {
    store.membership(context_hash).map(|r| r.map_err(store_error)).boxed_local()
}

/// A metadata query on the Rust store.
pub fn metadata(
    store: &Rc<RedisStore<JsRedisHost>>,
) -> LocalBoxFuture<'static, Result<Option<crate::segments::StoreMetadata>, JsValue>> {
    store.metadata().map(|r| r.map_err(store_error)).boxed_local()
}

#[wasm_bindgen]
impl WasmRedisStore {
    #[wasm_bindgen(constructor)]
    pub fn new(host: JsValue, options: JsValue) -> Result<WasmRedisStore, JsValue> {
        let host = JsRedisHost::from_js(&host)?;
        let prefix = if options.is_undefined() || options.is_null() {
            None
        } else if options.is_object() {
            let p = get(&options, "prefix");
            if p.is_undefined() || p.is_null() {
                None
            } else {
                Some(p.as_string().ok_or_else(|| {
                    type_error(&format!("redisBigSegmentStore: options.prefix must be a string, {}", got(&p)))
                })?)
            }
        } else {
            return Err(type_error(&format!("redisBigSegmentStore: options must be an object, {}", got(&options))));
        };
        Ok(WasmRedisStore { inner: Rc::new(RedisStore::new(host, prefix.as_deref())) })
    }

    #[wasm_bindgen(js_name = getMetadata)]
    pub fn get_metadata(&self) -> Promise {
        super::store_answer::metadata_promise(metadata(&self.inner))
    }

    /// Reads the membership of `context_hash` and reports to `resolve`/`reject` (the facade's
    /// promise executor).
    #[wasm_bindgen(js_name = getMembership)]
    pub fn get_membership(&self, context_hash: JsValue, resolve: Function, reject: Function) {
        let query = string_arg(&context_hash, "contextHash").map(|hash| membership_entries(&self.inner, &hash));
        super::store_answer::complete_membership(query, resolve, reject);
    }
}
