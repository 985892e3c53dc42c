//! What a store's host answered, read from JavaScript into the core's `HostData`
//! (`segments/host_data.rs`) as far as the core's `Select` asks: conversion only, every
//! judgement is the core's.

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;

use super::intern::intern;
use super::promise::awaited;
use super::value::{array_items, is_array, object_keys};
use crate::host::HostValue;
use crate::segments::host_data::{HostData, Select};

/// Deepest nesting read: a DynamoDB output's string-set members (output → `Item` → attribute →
/// `SS` → member) are the deepest values a store reads.
const MAX_DEPTH: u32 = 4;

#[wasm_bindgen]
extern "C" {
    /// `Object.prototype.toString.call(value)`: `[object Object]` for a plain object of any
    /// realm, `[object Undefined]`, `[object Map]`, … for the rest.
    #[wasm_bindgen(js_namespace = ["Object", "prototype", "toString"], js_name = call, catch)]
    fn object_tag(value: &JsValue) -> Result<String, JsValue>;
}

/// Calls the host's `f` on `this` with `arg` and reads `select` of its answer (awaited when it
/// is a promise).
pub fn call_host(
    f: &Function,
    this: &JsValue,
    arg: &JsValue,
    select: Select,
) -> LocalBoxFuture<'static, Result<HostData, JsValue>> {
    match f.call1(this, arg) {
        Ok(answer) => awaited(answer).map(move |r| r.map(|v| read(&v, select, 0))).boxed_local(),
        Err(e) => futures::future::ready(Err(e)).boxed_local(),
    }
}

fn unreadable() -> HostData {
    HostData::Other("an unreadable value".into())
}

/// Strings first, then arrays: most of what stores read (one crossing per string); everything
/// else by its tag.
fn read(value: &JsValue, select: Select, depth: u32) -> HostData {
    if let Some(text) = value.as_string() {
        return HostData::Text(text);
    }
    let too_deep = || HostData::Other("a value nested too deep".into());
    if is_array(value) {
        if depth >= MAX_DEPTH {
            return too_deep();
        }
        // The core's bound first: a wider list is left unread (converting is synchronous).
        let length = Reflect::get(value, intern("length")).ok().and_then(|n| n.as_f64()).unwrap_or(0.0);
        if let Some(wide) = HostData::unread_if_wide(length as usize) {
            return wide;
        }
        let items = array_items(value).map(|items| items.iter().map(|v| read(v, select, depth + 1)).collect());
        return items.map_or_else(|| HostData::Other("an unreadable array".into()), HostData::List);
    }
    let Ok(tag) = object_tag(value) else {
        return unreadable();
    };
    match tag.as_str() {
        "[object Object]" if depth >= MAX_DEPTH => too_deep(),
        "[object Object]" => map(value, select, depth + 1),
        "[object Undefined]" => HostData::Absent,
        "[object Null]" => HostData::Null,
        "[object Number]" => value.as_f64().map_or_else(|| HostData::Other("a Number object".into()), HostData::Number),
        "[object Boolean]" => {
            value.as_bool().map_or_else(|| HostData::Other("a Boolean object".into()), HostData::Bool)
        }
        // An error's own text (a Redis client's reply error, say).
        "[object Error]" => HostData::Other(value.describe()),
        tag => HostData::Other(format!("a {}", tag.strip_prefix("[object ").unwrap_or(tag).trim_end_matches(']'))),
    }
}

/// A plain object's fields `select` names, or all its own enumerable entries; a field whose read
/// throws is unreadable.
fn map(value: &JsValue, select: Select, depth: u32) -> HostData {
    let field = |key: &JsValue, select: Select| {
        Reflect::get(value, key).map_or_else(|_| unreadable(), |v| read(&v, select, depth))
    };
    if let Select::Fields(fields) = select {
        return HostData::Map(
            fields.iter().map(|(name, inner)| (name.to_string(), field(intern(name), *inner))).collect(),
        );
    }
    let Ok(keys) = object_keys(value) else {
        return HostData::Other("an object whose keys cannot be listed".into());
    };
    if let Some(wide) = HostData::unread_if_wide(keys.length() as usize) {
        return wide;
    }
    HostData::Map(keys.iter().filter_map(|key| Some((key.as_string()?, field(&key, Select::All)))).collect())
}
