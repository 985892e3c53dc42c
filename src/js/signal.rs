//! AbortController / AbortSignal / DOMException, and the caller's signal as a core abort future.

use futures::FutureExt;
use wasm_bindgen::prelude::*;

use super::bridge;
use super::promise::wait;
use crate::migration::AbortFuture;

#[wasm_bindgen]
extern "C" {
    #[derive(Clone)]
    pub type AbortController;
    #[wasm_bindgen(constructor)]
    pub fn new() -> AbortController;
    #[wasm_bindgen(method, getter)]
    pub fn signal(this: &AbortController) -> AbortSignal;
    #[wasm_bindgen(method, js_name = abort)]
    pub fn abort_with(this: &AbortController, reason: &JsValue);

    #[derive(Clone)]
    pub type AbortSignal;
    // The caller's signal may be a proxy or a subclass with throwing accessors: every call on
    // it is `catch`, so nothing the caller does can throw through wasm.
    #[wasm_bindgen(method, getter, catch)]
    fn aborted(this: &AbortSignal) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    fn reason(this: &AbortSignal) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_name = DOMException)]
    type DomException;
    #[wasm_bindgen(constructor, js_class = "DOMException")]
    fn new_dom_exception(message: &str, name: &str) -> DomException;
}

/// A `DOMException` with the given name (`TimeoutError`, `AbortError`).
pub fn dom_exception(message: &str, name: &str) -> JsValue {
    DomException::new_dom_exception(message, name).into()
}

/// Why the signal aborted: its `reason`, or an `AbortError` where the host has none.
pub fn abort_reason(signal: &AbortSignal) -> JsValue {
    let reason = signal.reason().unwrap_or(JsValue::UNDEFINED);
    if reason.is_undefined() {
        dom_exception("This operation was aborted", "AbortError")
    } else {
        reason
    }
}

/// A future that resolves with the abort reason when `signal` aborts (at once if it already has).
///
/// The bridge relays the abort event through a promise whose reaction it registers now, so the
/// operation goes on in its own caller's async context, not in that of whoever called `abort()`.
/// The listener is removed when the future is dropped first.
pub fn abort_future(signal: AbortSignal) -> AbortFuture<JsValue> {
    if signal.aborted().unwrap_or(false) {
        let reason = abort_reason(&signal);
        return async move { reason }.boxed_local();
    }
    let wait = wait();
    let listener = bridge::on_abort(&signal, wait.id());
    if listener.is_undefined() {
        // A signal that refuses listeners can never be seen to abort.
        return futures::future::pending().boxed_local();
    }
    let s = signal.clone();
    // Removed before it fired, the relay will not report: its slot is free again.
    let wait = wait.on_cancel(move || !bridge::off_abort(&s, &listener));
    async move {
        let _ = wait.await;
        abort_reason(&signal)
    }
    .boxed_local()
}
