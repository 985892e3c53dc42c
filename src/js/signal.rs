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
    // The caller's signal may be a proxy or a subclass with throwing accessors: every call on
    // it is `catch`, so nothing the caller does can throw through wasm.
    #[wasm_bindgen(method, getter, catch)]
    fn aborted(this: &AbortSignal) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    fn reason(this: &AbortSignal) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = addEventListener)]
    fn add_listener(this: &AbortSignal, kind: &str, listener: &js_sys::Function) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = removeEventListener)]
    fn remove_listener(this: &AbortSignal, kind: &str, listener: &js_sys::Function) -> Result<(), JsValue>;

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

/// `value` as an AbortSignal, if it is one whose `aborted` state can be read.
pub fn as_signal(value: &JsValue) -> Option<AbortSignal> {
    let signal = value.dyn_ref::<AbortSignal>()?;
    signal.aborted().ok()?;
    Some(signal.clone())
}

/// Removes the abort listener when the operation finishes first.
struct Listener {
    signal: AbortSignal,
    closure: Closure<dyn FnMut()>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.signal.remove_listener("abort", self.closure.as_ref().unchecked_ref());
    }
}

/// A future that resolves with the abort reason when `signal` aborts (at once if it already has).
pub fn abort_future(signal: AbortSignal) -> AbortFuture<JsValue> {
    if signal.aborted().unwrap_or(false) {
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
    if signal.add_listener("abort", closure.as_ref().unchecked_ref()).is_err() {
        // A signal that refuses listeners can never be seen to abort.
        return futures::future::pending().boxed_local();
    }
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
