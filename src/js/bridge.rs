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

    /// The error the last failed `call` threw.
    #[wasm_bindgen(method, js_name = takeError)]
    fn take_error(this: &Bridge) -> JsValue;

    /// The index in `Stage::ALL` of a value that is one of the six stage strings (the facade
    /// maps the names `stageNames()` gives it), else -1. No string is copied into the wasm.
    #[wasm_bindgen(method)]
    fn stage(this: &Bridge, value: &JsValue) -> i32;

    /// `setTimeout` that reports to `settlePromise(id, true, undefined)` after `ms`, unref'd when
    /// asked (where the host's timers have `unref`); returns the handle (undefined if the host
    /// refused to start a timer: then it never fires).
    #[wasm_bindgen(method, js_name = startTimer)]
    fn start_timer(this: &Bridge, ms: i32, id: u32, unref: bool) -> JsValue;

    /// `clearTimeout(handle)`.
    #[wasm_bindgen(method, js_name = stopTimer)]
    fn stop_timer(this: &Bridge, handle: &JsValue);

    /// `resolve({origin, success, value | error})`: a read's outcome handed to its promise.
    #[wasm_bindgen(method, js_name = resolveRead)]
    fn resolve_read(this: &Bridge, resolve: &Function, origin: &JsValue, success: bool, payload: &JsValue);

    /// `resolve({authoritative, nonAuthoritative?})` from two origin results (the second only
    /// when `has_second`).
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(method, js_name = resolveWrite)]
    fn resolve_write(
        this: &Bridge,
        resolve: &Function,
        origin: &JsValue,
        success: bool,
        payload: &JsValue,
        has_second: bool,
        second_origin: &JsValue,
        second_success: bool,
        second_payload: &JsValue,
    );

    /// Relays `signal`'s abort event to `settlePromise(id, true, reason)` through a promise
    /// whose reaction is registered now (so it runs in the current async context); returns the
    /// listener for `offAbort`, or undefined when the signal refuses listeners.
    #[wasm_bindgen(method, js_name = onAbort)]
    fn on_abort(this: &Bridge, signal: &JsValue, id: u32) -> JsValue;

    /// Removes a listener `onAbort` added; true when it had already fired (its report is on
    /// the way).
    #[wasm_bindgen(method, js_name = offAbort)]
    fn off_abort(this: &Bridge, signal: &JsValue, listener: &JsValue) -> bool;

    /// Calls origin `f(payload, signal)` and reports to `settlePromise(id, ok, value, ms)` —
    /// synchronously for a plain value or a throw, on settlement for a promise or thenable — with
    /// the milliseconds from the call to its settlement; a `failure(error)` value reports
    /// `(false, error)`.
    #[wasm_bindgen(method, js_name = callOrigin)]
    fn call_origin(this: &Bridge, f: &Function, payload: &JsValue, signal: &JsValue, id: u32);

    /// `f(payload, signal)` then `g(payload, signal)`, each timed and failure-checked as
    /// `callOrigin` does, reported together to `settleBoth(id, …)` once both settled.
    #[wasm_bindgen(method, js_name = callBoth)]
    fn call_both(this: &Bridge, f: &Function, g: &JsValue, payload: &JsValue, signal: &JsValue, id: u32);

    /// `client.migrationVariation(flagKey, context, defaultStage)`, the method looked up now. The
    /// answer is classified as `answer_code` lays out (an object answer's fields are handed to
    /// `answerFields(id, …)` first); a promise answer returns `PENDING` and later reports its
    /// code as `settlePromise(id, ok, reason, code)`. A throw returns the `THREW` code with the
    /// error kept for `takeError`.
    #[wasm_bindgen(method, js_name = askClient)]
    fn ask_client(
        this: &Bridge,
        client: &JsValue,
        flag_key: &JsValue,
        context: &JsValue,
        default: &JsValue,
        id: u32,
    ) -> i32;

    /// `tracker[TRACKER_METHODS[method]](a, b)`, the method looked up now; false when it threw
    /// (or is not a function), the error kept for `takeError`.
    #[wasm_bindgen(method, js_name = trackerCall)]
    fn tracker_call(this: &Bridge, tracker: &JsValue, method: u32, a: &JsValue, b: &JsValue) -> bool;

    /// `tracker.invoked(origin)`, then `tracker.latency(origin, ms)` unless `ms` is NaN, then
    /// `tracker.error(origin)` when `failed`, each looked up now and in its own `try`. Returns
    /// a mask of the calls that threw (1 invoked, 2 latency, 4 error), their errors kept, in
    /// that order, as one list for `takeError`.
    #[wasm_bindgen(method, js_name = trackerOrigin)]
    fn tracker_origin(this: &Bridge, tracker: &JsValue, origin: &JsValue, ms: f64, failed: bool) -> u32;

    /// `tracker.consistency(check)`, looked up now, with a check that calls `comparison(old,
    /// new)` and returns its truthiness: 1 or 0 as the comparison answered, -1 when it was not
    /// run (or threw, into the tracker), -2 when `consistency` itself threw (kept for
    /// `takeError`).
    #[wasm_bindgen(method, js_name = trackerConsistency)]
    fn tracker_consistency(this: &Bridge, tracker: &JsValue, comparison: &JsValue, old: &JsValue, new: &JsValue)
        -> i32;

    /// `tracker.createEvent()` (looked up now): 0 it made an event, which the bridge keeps for
    /// the next `sendEvent(client, undefined)`; 1 it made none; 2 it threw (kept for
    /// `takeError`).
    #[wasm_bindgen(method, js_name = createEvent)]
    fn create_event(this: &Bridge, tracker: &JsValue) -> i32;

    /// `client.trackMigrationOp(event)` (the event `createEvent` kept when `event` is
    /// undefined), looked up now: 0 sent, 1 it threw (kept for `takeError`), 2 the client has
    /// no such method now.
    #[wasm_bindgen(method, js_name = sendEvent)]
    fn send_event(this: &Bridge, client: &JsValue, event: &JsValue) -> i32;

    /// `comparison(old, new)` as 1 (truthy) or 0; -1 when it threw (kept for `takeError`).
    #[wasm_bindgen(method)]
    fn compare(this: &Bridge, comparison: &Function, old: &JsValue, new: &JsValue) -> i32;

    /// The facts about a context that validation needs (see `context_facts` in value.rs for the
    /// layout); nothing else of the context is read.
    #[wasm_bindgen(method, js_name = contextFacts)]
    fn context_facts(this: &Bridge, context: &JsValue) -> JsValue;

    /// Builds a `migration_op` event from fields the core laid out (a NaN number or a negative
    /// `consistent` is a field left out) with the caller's own context object. With a client,
    /// hands it to `client.trackMigrationOp` (looked up now): 0 sent, 1 it threw (kept for
    /// `takeError`), 2 the client has no such method now. With `client` undefined, keeps it for
    /// `takeEvent` and returns 0.
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(method, js_name = ownEvent)]
    fn own_event(
        this: &Bridge,
        client: &JsValue,
        creation_date: f64,
        operation: &JsValue,
        context: &JsValue,
        flag_key: &JsValue,
        value: &JsValue,
        default: &JsValue,
        reason: &JsValue,
        variation: f64,
        version: f64,
        sampling_ratio: f64,
        invoked: u32,
        consistent: i32,
        check_ratio: f64,
        latency_old: f64,
        latency_new: f64,
        errors: u32,
    ) -> i32;

    /// The event `ownEvent` kept.
    #[wasm_bindgen(method, js_name = takeEvent)]
    fn take_event(this: &Bridge) -> JsValue;

    /// Classifies an evaluation object the caller built as `askClient` classifies an answer
    /// (its fields handed to `answerFields(id, …)`).
    #[wasm_bindgen(method, js_name = readAnswer)]
    fn read_answer(this: &Bridge, answer: &JsValue, id: u32) -> i32;
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

/// Resolves a read's promise with its result object.
pub fn resolve_read(resolve: &Function, origin: &JsValue, success: bool, payload: &JsValue) {
    with(|b| b.resolve_read(resolve, origin, success, payload));
}

/// One origin's part of a write result: origin, success, value or error.
pub type Side<'a> = (&'a JsValue, bool, &'a JsValue);

/// Resolves a write's promise with its result object.
pub fn resolve_write(resolve: &Function, first: Side<'_>, second: Option<Side<'_>>) {
    let none = JsValue::UNDEFINED;
    let (o2, s2, p2) = second.unwrap_or((&none, false, &none));
    with(|b| b.resolve_write(resolve, first.0, first.1, first.2, second.is_some(), o2, s2, p2));
}

/// Relays `signal`'s abort to slot `id`; the listener to remove later, if one was added.
pub fn on_abort(signal: &JsValue, id: u32) -> Option<JsValue> {
    with(|b| b.on_abort(signal, id)).filter(|l| !l.is_undefined())
}

/// Removes an abort relay; true when it had already fired.
pub fn off_abort(signal: &JsValue, listener: &JsValue) -> bool {
    with(|b| b.off_abort(signal, listener)).unwrap_or(false)
}

/// Calls an origin; it reports to slot `id`.
pub fn call_origin(f: &Function, payload: &JsValue, signal: &JsValue, id: u32) {
    with(|b| b.call_origin(f, payload, signal, id));
}

/// Calls two origins at once; both report to slot `id` together.
pub fn call_both(f: &Function, g: &JsValue, payload: &JsValue, signal: &JsValue, id: u32) {
    with(|b| b.call_both(f, g, payload, signal, id));
}

/// Asks a flag client for a stage; see `Bridge::ask_client`.
pub fn ask_client(client: &JsValue, flag_key: &JsValue, context: &JsValue, default: &JsValue, id: u32) -> i32 {
    with(|b| b.ask_client(client, flag_key, context, default, id)).unwrap_or(ANSWER_THREW)
}

/// The error the last failed bridge call kept.
pub fn take_error() -> JsValue {
    with(Bridge::take_error).unwrap_or(JsValue::UNDEFINED)
}

/// Calls tracker method number `method` (in `TRACKER_METHODS` order); `Err` carries the throw.
pub fn tracker_call(tracker: &JsValue, method: u32, a: &JsValue, b: &JsValue) -> Result<(), JsValue> {
    match with(|bridge| bridge.tracker_call(tracker, method, a, b)) {
        Some(false) => Err(take_error()),
        _ => Ok(()),
    }
}

/// An external tracker's calls for one origin call; see `Bridge::tracker_origin`.
pub fn tracker_origin(tracker: &JsValue, origin: &JsValue, ms: f64, failed: bool) -> u32 {
    with(|b| b.tracker_origin(tracker, origin, ms, failed)).unwrap_or(0)
}

/// The errors a bridge call kept as a list.
pub fn take_error_list() -> Vec<JsValue> {
    super::value::array_items(&take_error()).unwrap_or_default()
}

/// An external tracker's consistency check of a JavaScript comparison; see
/// `Bridge::tracker_consistency`.
pub fn tracker_consistency(tracker: &JsValue, comparison: &JsValue, old: &JsValue, new: &JsValue) -> i32 {
    with(|b| b.tracker_consistency(tracker, comparison, old, new)).unwrap_or(-1)
}

/// Whether an external tracker made an event (kept by the bridge); `Err` when it threw.
pub fn create_event(tracker: &JsValue) -> Result<bool, JsValue> {
    match with(|b| b.create_event(tracker)) {
        Some(0) => Ok(true),
        Some(2) => Err(take_error()),
        _ => Ok(false),
    }
}

/// Hands an event to the client's `trackMigrationOp`; `Err` carries its throw.
pub fn send_event(client: &JsValue, event: &JsValue) -> Result<(), JsValue> {
    match with(|b| b.send_event(client, event)) {
        Some(1) => Err(take_error()),
        _ => Ok(()),
    }
}

/// A comparison's answer; `Err` carries its throw.
pub fn compare(comparison: &Function, old: &JsValue, new: &JsValue) -> Result<bool, JsValue> {
    match with(|b| b.compare(comparison, old, new)) {
        Some(-1) => Err(take_error()),
        Some(answer) => Ok(answer == 1),
        None => Ok(false),
    }
}

/// What validation reads of a context.
pub fn context_facts(context: &JsValue) -> JsValue {
    with(|b| b.context_facts(context)).unwrap_or(JsValue::UNDEFINED)
}

/// The fields of an own event, as `Bridge::own_event` takes them after the client.
pub struct OwnEventFields<'a> {
    pub creation_date: f64,
    pub operation: &'a JsValue,
    pub context: &'a JsValue,
    pub flag_key: &'a JsValue,
    pub value: &'a JsValue,
    pub default: &'a JsValue,
    pub reason: &'a JsValue,
    pub variation: f64,
    pub version: f64,
    pub sampling_ratio: f64,
    /// Bit 0: old invoked, bit 1: new invoked.
    pub invoked: u32,
    pub consistent: i32,
    pub check_ratio: f64,
    pub latency: [f64; 2],
    /// Bit 0: old errored, bit 1: new errored.
    pub errors: u32,
}

/// Builds an own event and sends it to `client`, or keeps it when `client` is undefined; see
/// `Bridge::own_event`.
pub fn own_event(client: &JsValue, f: &OwnEventFields<'_>) -> i32 {
    let [latency_old, latency_new] = f.latency;
    with(|b| {
        b.own_event(
            client,
            f.creation_date,
            f.operation,
            f.context,
            f.flag_key,
            f.value,
            f.default,
            f.reason,
            f.variation,
            f.version,
            f.sampling_ratio,
            f.invoked,
            f.consistent,
            f.check_ratio,
            latency_old,
            latency_new,
            f.errors,
        )
    })
    .unwrap_or(2)
}

/// The event the last `own_event` without a client built.
pub fn take_event() -> JsValue {
    with(Bridge::take_event).unwrap_or(JsValue::UNDEFINED)
}

/// Classifies an evaluation object; see `Bridge::read_answer`.
pub fn read_answer(answer: &JsValue, id: u32) -> i32 {
    with(|b| b.read_answer(answer, id)).unwrap_or(ANSWER_NOT_A_STAGE)
}

/// `askClient` codes: 0–5 a stage (index in `Stage::ALL`), then these; `ANSWER_TAKES_EVENTS`
/// is added when the client had a `trackMigrationOp` method when it was asked.
pub const ANSWER_NOT_A_STAGE: i32 = 6;
pub const ANSWER_OBJECT: i32 = 7;
pub const ANSWER_THREW: i32 = 8;
pub const ANSWER_TAKES_EVENTS: i32 = 16;
/// The answer is a promise: its code arrives through the slot.
pub const ANSWER_PENDING: i32 = -1;

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
