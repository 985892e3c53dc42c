//! Reading JavaScript values without throwing: properties, methods, arrays, numbers, string
//! arguments, and the short descriptions of values that error messages use.

use js_sys::{Function, Object, Reflect, Symbol};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::Error;
use crate::host::HostValue;

use super::intern::intern;

#[wasm_bindgen]
extern "C" {
    /// `Object.keys`, a throw (a proxy that refuses) caught.
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    pub fn object_keys(value: &JsValue) -> Result<js_sys::Array, JsValue>;

    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn array_is_array(target: &JsValue) -> Result<bool, JsValue>;
}

/// `Array.isArray(value)`; false for a revoked proxy (which makes `isArray` throw).
pub fn is_array(value: &JsValue) -> bool {
    array_is_array(value).unwrap_or(false)
}

/// Longest array read from the host; anything longer is refused as a whole.
const MAX_ARRAY: u32 = 1_000_000;

/// The items of an array-like host value, read through `Reflect` so that a proxy whose traps
/// throw gives `None` instead of an exception through wasm.
pub fn array_items(value: &JsValue) -> Option<Vec<JsValue>> {
    let length = Reflect::get(value, intern("length")).ok()?.as_f64()?;
    if !(0.0..=f64::from(MAX_ARRAY)).contains(&length) {
        return None;
    }
    (0..length as u32).map(|i| Reflect::get_u32(value, i).ok()).collect()
}

pub fn get(target: &JsValue, key: &'static str) -> JsValue {
    Reflect::get(target, intern(key)).unwrap_or(JsValue::UNDEFINED)
}

pub fn set(target: &Object, key: &'static str, value: &JsValue) {
    let _ = Reflect::set(target, intern(key), value);
}

/// `target[key]` when it is a function.
pub fn method(target: &JsValue, key: &'static str) -> Option<Function> {
    if !target.is_object() && !target.is_function() {
        return None;
    }
    get(target, key).dyn_into::<Function>().ok()
}

/// A string argument, or a TypeError naming it: `<what> must be a string, got …`.
pub fn string_arg(value: &JsValue, what: &str) -> Result<String, JsValue> {
    value.as_string().ok_or_else(|| Error::Type(format!("{what} must be a string, {}", got(value))).into())
}

// The error constructors live with the conversion of the core's errors; the Big Segments
// bindings still name them here.
#[cfg(feature = "segments")]
pub use super::error::range_error;
pub use super::error::type_error;

/// A value's `typeof`, as a name that lives in the binary (`"string"`, `"bigint"`, …).
#[cfg(feature = "segments")]
pub fn type_name(value: &JsValue) -> &'static str {
    if value.is_string() {
        "string"
    } else if value.as_bool().is_some() {
        "boolean"
    } else if value.is_bigint() {
        "bigint"
    } else if value.is_symbol() {
        "symbol"
    } else if value.is_function() {
        "function"
    } else if value.is_undefined() {
        "undefined"
    } else if value.as_f64().is_some() {
        "number"
    } else {
        "object"
    }
}

/// A short description of a value's type for error messages: `got number 5`, `got string "5"`.
pub fn got(value: &JsValue) -> String {
    let kind = value.js_typeof().as_string().unwrap_or_default();
    if value.is_null() {
        return "got null".into();
    }
    if value.is_undefined() || value.is_object() || value.is_function() || value.is_symbol() {
        return format!("got {kind}");
    }
    if let Some(text) = value.as_string() {
        return format!("got string {}", crate::util::text::quoted(&text));
    }
    format!("got {kind} {}", value.describe())
}

/// The registry symbol that marks a value made by `failure(error)`.
pub fn failure_brand() -> JsValue {
    Symbol::for_("cutover.failure").into()
}

/// A finite number, else `None`.
pub fn finite_f64(n: f64) -> Option<f64> {
    n.is_finite().then_some(n)
}

/// An integer from a number that is one.
pub fn integer_f64(n: f64) -> Option<i64> {
    finite_f64(n).filter(|n| n.fract() == 0.0 && n.abs() < 9.0e15).map(|n| n as i64)
}

/// A finite number from a JavaScript number, else `None`.
#[cfg(feature = "segments")]
pub fn finite(value: &JsValue) -> Option<f64> {
    value.as_f64().and_then(finite_f64)
}
