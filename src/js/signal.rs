//! AbortController / AbortSignal / DOMException, and the caller's signal as a core abort future.

use std::cell::RefCell;
use std::rc::Rc;

use futures::channel::oneshot;
use futures::FutureExt;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

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
    #[wasm_bindgen(method, getter)]
    pub fn aborted(this: &AbortSignal) -> bool;
    #[wasm_bindgen(method, getter)]
    pub fn reason(this: &AbortSignal) -> JsValue;
    #[wasm_bindgen(method, js_name = addEventListener)]
    fn add_listener(this: &AbortSignal, kind: &str, listener: &js_sys::Function);
    #[wasm_bindgen(method, js_name = removeEventListener)]
    fn remove_listener(this: &AbortSignal, kind: &str, listener: &js_sys::Function);

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
    let reason = signal.reason();
    if reason.is_undefined() {
        dom_exception("This operation was aborted", "AbortError")
    } else {
        reason
    }
}

/// Checks that `value` is an AbortSignal.
pub fn as_signal(value: &JsValue) -> Option<AbortSignal> {
    value.dyn_ref::<AbortSignal>().cloned()
}

/// Removes the abort listener when the operation finishes first.
struct Listener {
    signal: AbortSignal,
    closure: Closure<dyn FnMut()>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.signal.remove_listener("abort", self.closure.as_ref().unchecked_ref());
    }
}

/// A future that resolves with the abort reason when `signal` aborts (at once if it already has).
pub fn abort_future(signal: AbortSignal) -> AbortFuture<JsValue> {
    if signal.aborted() {
        let reason = abort_reason(&signal);
        return async move { reason }.boxed_local();
    }
    let (tx, rx) = oneshot::channel::<JsValue>();
    let tx = Rc::new(RefCell::new(Some(tx)));
    let s = signal.clone();
    let closure = Closure::<dyn FnMut()>::new(move || {
        if let Some(tx) = tx.borrow_mut().take() {
            let _ = tx.send(abort_reason(&s));
        }
    });
    signal.add_listener("abort", closure.as_ref().unchecked_ref());
    let listener = Listener { signal, closure };
    async move {
        let reason = rx.await;
        drop(listener);
        match reason {
            Ok(reason) => reason,
            Err(_) => futures::future::pending().await,
        }
    }
    .boxed_local()
}
