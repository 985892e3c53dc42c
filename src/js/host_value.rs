//! JavaScript values as the core's opaque host values: how one is described in a message, what
//! validation reads of a context, and the error name metrics report.

use js_sys::JSON;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::context_facts::facts_from;
use super::value::get;
use crate::host::HostValue;
use crate::migration::context::ContextFacts;

impl HostValue for JsValue {
    fn describe(&self) -> String {
        if let Some(s) = self.as_string() {
            return s;
        }
        // `String(error)` runs the error's own `toString` (and its name/message getters), any
        // of which may throw: `string_of` catches that.
        if self.dyn_ref::<js_sys::Error>().is_some() {
            return string_of(self);
        }
        if self.is_object() {
            if let Ok(text) = JSON::stringify(self) {
                if let Some(text) = text.as_string() {
                    return text;
                }
            }
        }
        string_of(self)
    }

    /// Read by the bridge's `contextFacts`: only `kind`, `key` and `targetingKey` (for a
    /// multi-kind context, its attribute names and each nested `key` and `targetingKey`); the
    /// caller's object is never copied.
    fn context_facts(&self) -> ContextFacts {
        facts_from(&super::bridge::context_facts(self))
    }

    /// `error.type` of a failure: the thrown value's string `name` (an Error's class name).
    fn error_name(&self) -> Option<String> {
        if !self.is_object() {
            return None;
        }
        get(self, "name").as_string()
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_name = String)]
    fn js_string(value: &JsValue) -> Result<String, JsValue>;
}

/// JavaScript's `String(value)`.
pub fn string_of(value: &JsValue) -> String {
    js_string(value).unwrap_or_else(|_| "(a value that cannot be printed)".into())
}
