//! The facade's bridge: a few plain JavaScript functions that the bindings call on hot paths.
//!
//! wasm-bindgen wraps every import that may throw in an exception handler (`catch` imports
//! allocate an arguments list and a closure per call). These functions cannot throw (the facade
//! defines them so), so they are imported without one: reading the clock, awaiting a promise,
//! reading a flag client's answer, calling a tracker method, and building result objects each
//! cost one plain call. Until the facade installs the bridge, callers use their general fallback.

use std::cell::RefCell;

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::value::intern;
use crate::migration::Stage;

#[wasm_bindgen]
extern "C" {
    /// The object `bridge()` in js/api.js installs.
    pub type Bridge;

    /// `performance.now()` (or `Date.now()` where there is no `performance`).
    #[wasm_bindgen(method)]
    fn now(this: &Bridge) -> f64;

    /// When `value` is a promise or a thenable: reports its settlement to
    /// `settlePromise(id, ok, value)` and returns true. Otherwise (also when reading its `then`
    /// throws) returns false: the value is the result as it is. Never throws.
    #[wasm_bindgen(method, js_name = awaitValue)]
    fn await_value(this: &Bridge, value: &JsValue, id: u32) -> bool;

    /// The fields of a flag client's answer object in one call, laid out as
    /// `served_from_fields` in client.rs reads them; a property whose read throws is undefined.
    #[wasm_bindgen(method, js_name = readAnswer)]
    fn read_answer(this: &Bridge, answer: &JsValue) -> JsValue;

    /// `f.call(target, a, b)`; false when it threw (the error is kept for `take_error`).
    #[wasm_bindgen(method, js_name = call)]
    fn call_method(this: &Bridge, f: &Function, target: &JsValue, a: &JsValue, b: &JsValue) -> bool;

    /// The error the last failed `call` threw.
    #[wasm_bindgen(method, js_name = takeError)]
    fn take_error(this: &Bridge) -> JsValue;

    /// `{origin, success: true, value: payload}` or `{origin, success: false, error: payload}`.
    #[wasm_bindgen(method)]
    fn result(this: &Bridge, origin: &JsValue, success: bool, payload: &JsValue) -> JsValue;

    /// The index in `Stage::ALL` of a value that is one of the six stage strings (the facade
    /// maps the names `stageNames()` gives it), else -1. No string is copied into the wasm.
    #[wasm_bindgen(method)]
    fn stage(this: &Bridge, value: &JsValue) -> i32;

    /// A store's membership answer copied into a frozen null-prototype object with only its
    /// boolean values (an object's own enumerable keys; anything else reads as empty; a key
    /// whose read throws is left out).
    #[wasm_bindgen(method, js_name = copyMembership)]
    fn copy_membership(this: &Bridge, answer: &JsValue) -> JsValue;

    /// `setTimeout` that reports to `settlePromise(id, true, undefined)` after `ms`, unref'd when
    /// asked (where the host's timers have `unref`); returns the handle (undefined if the host
    /// refused to start a timer: then it never fires).
    #[wasm_bindgen(method, js_name = startTimer)]
    fn start_timer(this: &Bridge, ms: i32, id: u32, unref: bool) -> JsValue;

    /// `clearTimeout(handle)`.
    #[wasm_bindgen(method, js_name = stopTimer)]
    fn stop_timer(this: &Bridge, handle: &JsValue);

    /// `{authoritative}`, or `{authoritative, nonAuthoritative}` when the second is not undefined.
    #[wasm_bindgen(method, js_name = writeResult)]
    fn write_result(this: &Bridge, authoritative: &JsValue, non_authoritative: &JsValue) -> JsValue;
}

thread_local! {
    static BRIDGE: RefCell<Option<Bridge>> = const { RefCell::new(None) };
}

/// Installs the facade's bridge object.
#[wasm_bindgen(js_name = installBridge)]
pub fn install_bridge(bridge: Bridge) {
    BRIDGE.with(|b| *b.borrow_mut() = Some(bridge));
}

/// Runs `f` with the bridge. Without one (which `required` rules out for every object that
/// gets here) the callers below answer with a neutral value.
fn with<R>(f: impl FnOnce(&Bridge) -> R) -> Option<R> {
    BRIDGE.with(|b| b.borrow().as_ref().map(f))
}

/// The bridge's clock.
pub fn now() -> Option<f64> {
    with(Bridge::now)
}

/// Hands `value` to the bridge to await as slot `id`; false when it is not a promise or
/// thenable.
pub fn await_value(value: &JsValue, id: u32) -> bool {
    with(|b| b.await_value(value, id)).unwrap_or(false)
}

/// A read's (or a write side's) result object.
pub fn result(origin: &JsValue, success: bool, payload: &JsValue) -> JsValue {
    with(|b| b.result(origin, success, payload)).unwrap_or(JsValue::UNDEFINED)
}

/// A write's result object (`non_authoritative` undefined when only one side ran).
pub fn write_result(authoritative: &JsValue, non_authoritative: &JsValue) -> JsValue {
    with(|b| b.write_result(authoritative, non_authoritative)).unwrap_or(JsValue::UNDEFINED)
}

/// The fields of a flag client's answer object (see `served_from_fields` in client.rs).
pub fn read_answer(answer: &JsValue) -> Option<Array> {
    with(|b| b.read_answer(answer))?.dyn_into::<Array>().ok()
}

/// A store's membership answer as a frozen null-prototype object of its boolean entries.
pub fn copy_membership(answer: &JsValue) -> Option<JsValue> {
    with(|b| b.copy_membership(answer))
}

/// Starts a timer reporting to slot `id`.
pub fn start_timer(ms: i32, id: u32, unref: bool) -> JsValue {
    with(|b| b.start_timer(ms, id, unref)).unwrap_or(JsValue::UNDEFINED)
}

/// Stops a timer `start_timer` started.
pub fn stop_timer(handle: &JsValue) {
    with(|b| b.stop_timer(handle));
}

/// The stage names, in `Stage::ALL` order, for the facade's `stage` lookup.
#[wasm_bindgen(js_name = stageNames)]
pub fn stage_names() -> Array {
    Stage::ALL.iter().map(|s| intern(s.as_str())).collect()
}

/// The stage a JavaScript value names exactly, if any.
pub fn stage(value: &JsValue) -> Option<Stage> {
    let index = with(|b| b.stage(value))?;
    usize::try_from(index).ok().and_then(|i| Stage::ALL.get(i).copied())
}

/// `f.call(target, a, b)` for a method whose result is not needed; `Err` carries what it threw.
pub fn call_method(f: &Function, target: &JsValue, a: &JsValue, b: &JsValue) -> Result<(), JsValue> {
    with(|bridge| if bridge.call_method(f, target, a, b) { Ok(()) } else { Err(bridge.take_error()) }).unwrap_or(Ok(()))
}

/// Whether the bridge is installed.
pub fn installed() -> bool {
    BRIDGE.with(|b| b.borrow().is_some())
}

/// The bindings need the bridge for timers and promises: objects that use them are made only
/// after the facade installed it (every entry point of the package does, first).
pub fn required() -> Result<(), JsValue> {
    if installed() {
        Ok(())
    } else {
        Err(js_sys::TypeError::new("cutover's wasm bindings are used through the package's entry points").into())
    }
}
