//! What a store's host answered, read from JavaScript into the core's `HostData`
//! (`segments/host_data.rs`): conversion only, every judgement is the core's.

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;

use super::promise::settle;
use super::store::object_keys;
use super::value::{array_items, is_array};
use crate::host::HostValue;
use crate::segments::host_data::HostData;

/// Deepest nesting read: a DynamoDB output's string-set members (output → `Item` → attribute →
/// `SS` → member) are the deepest values a store reads.
const MAX_DEPTH: u32 = 4;

#[wasm_bindgen]
extern "C" {
    /// `Object.prototype.toString.call(value)`: `[object Object]` for a plain object of any realm.
    #[wasm_bindgen(js_namespace = ["Object", "prototype", "toString"], js_name = call, catch)]
    fn object_tag(value: &JsValue) -> Result<String, JsValue>;
}

/// Calls the host's `f` on `this` with `arg` and reads its answer, awaited when it is a promise.
pub fn call_host(f: &Function, this: &JsValue, arg: &JsValue) -> LocalBoxFuture<'static, Result<HostData, JsValue>> {
    match f.call1(this, arg) {
        Ok(answer) => settle(answer).map(|r| r.map(|v| read(&v, 0))).boxed_local(),
        Err(e) => futures::future::ready(Err(e)).boxed_local(),
    }
}

/// Arrays are tested before booleans and objects: Redis replies are mostly strings and arrays.
fn read(value: &JsValue, depth: u32) -> HostData {
    if value.is_undefined() {
        return HostData::Absent;
    }
    if value.is_null() {
        return HostData::Null;
    }
    if let Some(text) = value.as_string() {
        return HostData::Text(text);
    }
    if let Some(n) = value.as_f64() {
        return HostData::Number(n);
    }
    let too_deep = || HostData::Other("a value nested too deep".into());
    if is_array(value) {
        if depth >= MAX_DEPTH {
            return too_deep();
        }
        return match array_items(value) {
            Some(items) => HostData::List(items.iter().map(|v| read(v, depth + 1)).collect()),
            None => HostData::Other("an unreadable array".into()),
        };
    }
    if let Some(b) = value.as_bool() {
        return HostData::Bool(b);
    }
    if !value.is_object() {
        return HostData::Other(format!("a {}", value.js_typeof().as_string().unwrap_or_default()));
    }
    if depth >= MAX_DEPTH {
        return too_deep();
    }
    match object_tag(value).as_deref() {
        Ok("[object Object]") => entries(value, depth),
        // An error's own text (a Redis client's reply error, say).
        Ok("[object Error]") => HostData::Other(value.describe()),
        Ok(tag) => HostData::Other(format!("a {}", tag.strip_prefix("[object ").unwrap_or(tag).trim_end_matches(']'))),
        Err(_) => HostData::Other("an unreadable value".into()),
    }
}

/// A plain object's own enumerable entries; a value whose read throws is unreadable.
fn entries(value: &JsValue, depth: u32) -> HostData {
    let Ok(keys) = object_keys(value) else {
        return HostData::Other("an object whose keys cannot be listed".into());
    };
    let read_entry = |key: JsValue| {
        let field = Reflect::get(value, &key)
            .map_or_else(|_| HostData::Other("an unreadable value".into()), |field| read(&field, depth + 1));
        Some((key.as_string()?, field))
    };
    HostData::Map(keys.iter().filter_map(read_entry).collect())
}
