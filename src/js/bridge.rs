//! The facade's bridge: a few plain JavaScript functions that the bindings call on hot paths.
//!
//! wasm-bindgen wraps every import that may throw in an exception handler (`catch` imports
//! allocate an arguments list and a closure per call). These functions cannot throw (the facade
//! defines them so), so they are imported without one: reading the clock, awaiting a promise,
//! reading a flag client's answer, calling a tracker method, and building result objects each
//! cost one plain call. Until the facade installs the bridge, callers use their general fallback.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The object `bridge()` in js/bridge.js installs.
    pub type Bridge;

    /// `performance.now()` (or `Date.now()` where there is no `performance`).
    #[wasm_bindgen(method)]
    fn now(this: &Bridge) -> f64;

    /// When `value` is a promise or a thenable: reports its settlement to
    /// `settlePromise(id, ok, value)` and returns true. Otherwise (also when reading its `then`
    /// throws) returns false: the value is the result as it is. Never throws.
    #[wasm_bindgen(method, js_name = awaitValue)]
    fn await_value(this: &Bridge, value: &JsValue, id: u32) -> bool;

    /// The error the last failed `call` threw.
    #[wasm_bindgen(method, js_name = takeError)]
    fn take_error(this: &Bridge) -> JsValue;

    /// `setTimeout` that reports to `settlePromise(id, true, undefined)` after `ms`, unref'd when
    /// asked (where the host's timers have `unref`); returns the handle (undefined if the host
    /// refused to start a timer: then it never fires).
    #[wasm_bindgen(method, js_name = startTimer)]
    fn start_timer(this: &Bridge, ms: i32, id: u32, unref: bool) -> JsValue;

    /// `clearTimeout(handle)`.
    #[wasm_bindgen(method, js_name = stopTimer)]
    fn stop_timer(this: &Bridge, handle: &JsValue);

    /// Relays `signal`'s abort event to `settlePromise(id, true, reason)` through a promise
    /// whose reaction is registered now (so it runs in the current async context); returns the
    /// listener for `offAbort`, or undefined when the signal refuses listeners.
    #[wasm_bindgen(method, js_name = onAbort)]
    fn on_abort(this: &Bridge, signal: &JsValue, id: u32) -> JsValue;

    /// Removes a listener `onAbort` added; true when it had already fired (its report is on
    /// the way).
    #[wasm_bindgen(method, js_name = offAbort)]
    fn off_abort(this: &Bridge, signal: &JsValue, listener: &JsValue) -> bool;

    /// The facts about a context that validation needs (see `context_facts` in value.rs for the
    /// layout); nothing else of the context is read.
    #[wasm_bindgen(method, js_name = contextFacts)]
    fn context_facts(this: &Bridge, context: &JsValue) -> JsValue;
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
/// gets here) callers answer with a neutral value. The bindings declare the bridge methods they
/// use next to the code that uses them (extern blocks over `Bridge` in their own files).
pub fn with<R>(f: impl FnOnce(&Bridge) -> R) -> Option<R> {
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

/// Relays `signal`'s abort to slot `id`; the listener to remove later, if one was added.
pub fn on_abort(signal: &JsValue, id: u32) -> Option<JsValue> {
    with(|b| b.on_abort(signal, id)).filter(|l| !l.is_undefined())
}

/// Removes an abort relay; true when it had already fired.
pub fn off_abort(signal: &JsValue, listener: &JsValue) -> bool {
    with(|b| b.off_abort(signal, listener)).unwrap_or(false)
}

/// The error the last failed bridge call kept.
pub fn take_error() -> JsValue {
    with(Bridge::take_error).unwrap_or(JsValue::UNDEFINED)
}

/// What validation reads of a context.
pub fn context_facts(context: &JsValue) -> JsValue {
    with(|b| b.context_facts(context)).unwrap_or(JsValue::UNDEFINED)
}

/// Starts a timer reporting to slot `id`.
pub fn start_timer(ms: i32, id: u32, unref: bool) -> JsValue {
    with(|b| b.start_timer(ms, id, unref)).unwrap_or(JsValue::UNDEFINED)
}

/// Stops a timer `start_timer` started.
pub fn stop_timer(handle: &JsValue) {
    with(|b| b.stop_timer(handle));
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
