//! `sameResponse({ headers, ignore, maxBodyBytes })` for JavaScript: the options converted (the
//! core checks them: `diff/response.rs`), and the comparison a migrator runs.
//!
//! Its core is a `WasmSameStructure` (same_structure.rs) that also knows how to read a Response
//! ([`Reading`]). As a read's comparison it is one that reads values first
//! (`Comparison::snapshot`): when an origin settles with a `Response`, the bridge
//! (`readResponse`, js/bridge/same_response.js) clones it and reads the clone's body into a
//! `{ status, headers, body }` snapshot, reported to a waiting slot; the caller gets the
//! Response itself, its body unread. The core then compares the two snapshots with the
//! structural walk and `ignore`, as `sameStructure` does. A value that is not a Response is its
//! own snapshot, compared as it is.

use std::rc::Rc;

use futures::FutureExt;
use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::bridge;
use super::promise::wait;
use super::response_reading::Reading;
use super::same_structure::{strings, Native, NativeComparison, WasmSameStructure};
use super::value::got;
use crate::diff::consistency::{Comparison, Snapshot};
use crate::diff::response::{header_not_a_string, headers_not_an_array, ResponseOptions, SAME_RESPONSE};
use crate::diff::{pattern, Ignore};
use crate::error::Error;

fn patterns_not_an_array() -> Error {
    pattern::not_an_array_of(SAME_RESPONSE)
}

fn pattern_not_a_string(position: usize) -> Error {
    pattern::not_a_string_of(SAME_RESPONSE, position)
}

#[wasm_bindgen]
impl WasmSameStructure {
    /// The core of `sameResponse(options)`, from the options as the facade read them (each
    /// undefined when absent): a `TypeError` or `RangeError` naming the one that is wrong.
    #[wasm_bindgen(js_name = forResponses)]
    pub fn for_responses(
        headers: JsValue,
        ignore: JsValue,
        max_body_bytes: JsValue,
    ) -> Result<WasmSameStructure, JsValue> {
        let headers = strings(&headers, headers_not_an_array, header_not_a_string)?;
        let ignore = strings(&ignore, patterns_not_an_array, pattern_not_a_string)?;
        let max = match max_body_bytes.as_f64() {
            _ if max_body_bytes.is_undefined() => None,
            Some(n) => Some(n),
            None => {
                return Err(Error::Type(format!(
                    "{SAME_RESPONSE}: maxBodyBytes must be a number, {}",
                    got(&max_body_bytes)
                ))
                .into())
            }
        };
        let options = ResponseOptions::new(headers.as_deref(), ignore.as_deref(), max)?;
        let names: Array = options.headers.iter().map(|name| JsValue::from_str(name)).collect();
        let reading = Reading { headers: names.into(), max_body_bytes: options.max_body_bytes };
        Ok(WasmSameStructure { native: Rc::new(Native::new(options.ignore)), reading: Some(Rc::new(reading)) })
    }
}

impl WasmSameStructure {
    /// The core's comparison for `MigratorBuilder#read`; `function` is the weak reference
    /// (`bridge::weakly`) to the one `sameStructure` (or `sameResponse`) returned, handed to
    /// trackers that call the comparison themselves.
    pub fn comparison(&self, function: JsValue) -> Rc<dyn Comparison<JsValue>> {
        let native = self.native.clone();
        match &self.reading {
            None => Rc::new(NativeComparison { native, function }),
            Some(reading) => Rc::new(ResponseComparison { native, function, reading: reading.clone() }),
        }
    }
}

/// `sameResponse`'s comparison inside a migrator: each value snapshotted, then the walk.
pub struct ResponseComparison {
    pub(super) native: Rc<Native>,
    pub(super) function: JsValue,
    pub(super) reading: Rc<Reading>,
}

impl Comparison<JsValue> for ResponseComparison {
    fn compare(&self, old: &JsValue, new: &JsValue) -> Result<bool, JsValue> {
        Ok(self.native.same(old, new).answer())
    }

    fn handle(&self) -> Option<&JsValue> {
        Some(&self.function)
    }

    fn ignore(&self) -> Option<&Ignore> {
        Some(self.native.ignore())
    }

    /// A Response is read by the bridge (stopped if the snapshot is dropped first); any other
    /// value is its own snapshot.
    fn snapshot(&self, value: &JsValue) -> Option<Snapshot<JsValue>> {
        let wait = wait();
        let Reading { headers, max_body_bytes } = &*self.reading;
        let reading = bridge::read_response(value, headers, *max_body_bytes, wait.id());
        if reading.is_undefined() {
            wait.release();
            return Some(futures::future::ready(Ok(value.clone())).boxed_local());
        }
        // Stopping does not rule the report out: a reading reports once whatever happens.
        let wait = wait.on_cancel(move || {
            bridge::stop_reading(&reading);
            false
        });
        Some(wait.map(|report| report.outcome).boxed_local())
    }
}
