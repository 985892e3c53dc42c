//! The bridge: the plain JavaScript functions the bindings call on hot paths, imported from the
//! facade's js/bridge.js (its `bridge` namespace: the functions of js/bridge/functions.js). Their
//! TypeScript declaration is bridge.d.mts beside this file: `tsc -p js` checks the functions against it, and tests/node/bridge-signatures.test.mjs checks it against
//! this block (names, argument counts and types), so a dropped or added argument fails.
//!
//! None of them may throw (the facade defines them so): wasm-bindgen's `catch` imports
//! allocate an arguments list and a closure per call, and these are imported without one.
//! Numbers with a meaning are the enums of codes.rs; data wider than six arguments goes in the
//! record (record.rs).
//!
//! One value is handed over outside a signature, named in each signature that sets it: a
//! caller's method that threw leaves the thrown value for `takeThrown()`, and the call answers
//! `Call::Threw` (or `Answer::Threw`, `Check::Threw`). Returning the value itself would cost a
//! presence check per call, a crossing of its own.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(raw_module = "../bridge.js", js_namespace = bridge)]
extern "C" {
    /// Called once when the wasm starts, with the names the facade maps codes to.
    pub fn started(stages: js_sys::Array, origins: js_sys::Array, operations: js_sys::Array, methods: js_sys::Array);

    /// `performance.now()` (or `Date.now()` where there is no `performance`).
    pub fn now() -> f64;

    /// The value a caller's method threw, left by the last call that answered `Threw`.
    #[wasm_bindgen(js_name = takeThrown)]
    pub fn take_thrown() -> JsValue;

    /// When `value` is a promise or thenable: reports its settlement to `deliver(id, …)` and
    /// returns true. Otherwise (also when reading its `then` throws) false.
    #[wasm_bindgen(js_name = awaitValue)]
    pub fn await_value(value: &JsValue, id: u32) -> bool;

    /// `setTimeout` that reports `deliver(id, true, undefined)` after `ms`, unref'd when asked;
    /// the handle, or undefined if the host refused (then it never fires).
    #[wasm_bindgen(js_name = startTimer)]
    pub fn start_timer(ms: i32, id: u32, unref: bool) -> JsValue;

    /// `clearTimeout(handle)`.
    #[wasm_bindgen(js_name = stopTimer)]
    pub fn stop_timer(handle: &JsValue);

    /// Relays `signal`'s abort to `deliver(id, true, reason)` through a promise whose reaction is
    /// registered now (so it runs in the current async context); the listener for `offAbort`,
    /// or undefined when the signal refuses listeners.
    #[wasm_bindgen(js_name = onAbort)]
    pub fn on_abort(signal: &JsValue, id: u32) -> JsValue;

    /// Removes a listener `onAbort` added; true when it had already fired (its report is on the way).
    #[wasm_bindgen(js_name = offAbort)]
    pub fn off_abort(signal: &JsValue, listener: &JsValue) -> bool;

    /// What validation reads of a context (`facts_from` in context_facts.rs reads the layout).
    #[wasm_bindgen(js_name = contextFacts)]
    pub fn context_facts(context: &JsValue) -> JsValue;

    /// The `Answer` stage code of a value that is exactly a stage name, else `Answer::NotAStage`.
    pub fn stage(value: &JsValue) -> u32;

    /// `client.migrationVariation(flagKey, context, defaultStage)`, looked up now, classified as
    /// an `Answer` (an object's fields handed to `answerFields(id, …)` first; a promise is
    /// `Pending`, its code reported later to slot `id`), `| Answer::TakesEvents` when the client
    /// has `trackMigrationOp`.
    #[wasm_bindgen(js_name = askClient)]
    pub fn ask_client(client: &JsValue, flag_key: &JsValue, context: &JsValue, default: &JsValue, id: u32) -> u32;

    /// Whether `client` (a weak reference, as for `askClient`) has a `trackMigrationOp` method now.
    #[wasm_bindgen(js_name = takesEvents)]
    pub fn takes_events(client: &JsValue) -> bool;

    /// Classifies an evaluation object the caller built, as `askClient` does an answer.
    #[wasm_bindgen(js_name = readAnswer)]
    pub fn read_answer(answer: &JsValue, id: u32) -> u32;

    /// A weak reference to the caller's function `f`, which the wasm keeps in its place while the
    /// facade keeps `f` itself (js/bridge/held.js): no strong reference from the wasm (a GC root)
    /// then keeps a migrator whose functions refer to it. The functions that take `client`, `f`,
    /// `g`, `comparison` or `listener` take such a reference.
    pub fn weakly(f: &JsValue) -> JsValue;

    /// `logger[level](message)` when it has that method (`logger`: a weak reference, as above);
    /// what the logger throws is dropped.
    #[wasm_bindgen(js_name = logTo)]
    pub fn log_to(logger: &JsValue, level: &str, message: &str);

    /// Calls origin `f(payload, signal)` and reports `deliverTimed(id, ok, value, ms)`, at once
    /// for a plain value or a throw, on settlement for a promise; a `failure(error)` value
    /// reports `(false, error)`.
    #[wasm_bindgen(js_name = callOrigin)]
    pub fn call_origin(f: &JsValue, payload: &JsValue, signal: &JsValue, id: u32);

    /// `f(payload, signal)` then `g(payload, signal)`, each as `callOrigin` does, reported
    /// together to `deliverBoth(id, …)` once both settled.
    #[wasm_bindgen(js_name = callBoth)]
    pub fn call_both(f: &JsValue, g: &JsValue, payload: &JsValue, signal: &JsValue, id: u32);

    /// `callOrigin(f, …, first)` then `callOrigin(g, …, second)`: two origins started together,
    /// each reported as it settles (background mode).
    #[wasm_bindgen(js_name = callEach)]
    pub fn call_each(f: &JsValue, g: &JsValue, payload: &JsValue, signal: &JsValue, first: u32, second: u32);

    /// `comparison(old, new)` as a `Check`.
    pub fn compare(comparison: &JsValue, old: &JsValue, new: &JsValue) -> u32;

    /// `listener(argument)` (a migrator's `onMismatch`, a guard's `onChange`): a `Call`.
    pub fn notify(listener: &JsValue, argument: &JsValue) -> u32;

    /// `tracker[method](a, b)` for a `TrackerMethod`, looked up now: a `Call`.
    #[wasm_bindgen(js_name = trackerCall)]
    pub fn tracker_call(tracker: &JsValue, method: u32, a: &JsValue, b: &JsValue) -> u32;

    /// `tracker.consistency(check)` with a check that runs `comparison(old, new)`: a `Check`.
    #[wasm_bindgen(js_name = trackerConsistency)]
    pub fn tracker_consistency(tracker: &JsValue, comparison: &JsValue, old: &JsValue, new: &JsValue) -> u32;

    /// Replays the `calls` origin calls of the record (`TrackerField`) onto `tracker`, each
    /// method in its own `try`; then, when `last`, `tracker.createEvent()` and
    /// `client.trackMigrationOp(event)` (`client` a weak reference, as for `askClient`): a
    /// `Settle`.
    #[wasm_bindgen(js_name = settleTracker)]
    pub fn settle_tracker(tracker: &JsValue, client: &JsValue, calls: u32, last: bool) -> u32;

    /// Builds cutover's own `migration_op` event from the record (laid out by event.rs) and the
    /// caller's context, and hands it to `client.trackMigrationOp`: a `Call`.
    #[wasm_bindgen(js_name = ownEvent)]
    pub fn own_event(client: &JsValue, context: &JsValue, flag_key: &JsValue, reason: &JsValue) -> u32;

    /// The same event as an object (for `OpTracker#build()`).
    #[wasm_bindgen(js_name = buildEvent)]
    pub fn build_event(context: &JsValue, flag_key: &JsValue, reason: &JsValue) -> JsValue;

    /// `instrument.record(value, attributes)` (a histogram) or `instrument.add(…)`: a `Call`.
    #[wasm_bindgen(js_name = recordMetric)]
    pub fn record_metric(instrument: &JsValue, histogram: bool, value: f64, attributes: &JsValue) -> u32;

    /// `pending.resolve({ origin, success, value | error })` for a `Side`.
    #[wasm_bindgen(js_name = resolveRead)]
    pub fn resolve_read(pending: &JsValue, side: u32, payload: &JsValue);

    /// `pending.resolve({ authoritative, nonAuthoritative? })`; `second` is `Side::None` when
    /// one origin ran.
    #[wasm_bindgen(js_name = resolveWrite)]
    pub fn resolve_write(pending: &JsValue, first: u32, payload: &JsValue, second: u32, second_payload: &JsValue);

    /// `pending.reject(error)`.
    #[wasm_bindgen(js_name = rejectPending)]
    pub fn reject_pending(pending: &JsValue, error: &JsValue);

    /// `pending.waitUntil(promise)` with a new promise for the operation's background part,
    /// resolved at `partEnded(pending)` (kept in `pending.ended`): a `Call`.
    #[wasm_bindgen(js_name = handOver)]
    pub fn hand_over(pending: &JsValue) -> u32;

    /// The operation (its background part included) has ended: resolves `handOver`'s promise.
    #[wasm_bindgen(js_name = partEnded)]
    pub fn part_ended(pending: &JsValue);

    /// `pending.signal` when it is an `AbortSignal` whose `aborted` can be read, else undefined.
    #[wasm_bindgen(js_name = signalOf)]
    pub fn signal_of(pending: &JsValue) -> JsValue;

    /// Writes `old` and `new` onto the tape (tape.rs has the layout), at most `max_nodes` nodes
    /// each and nothing deeper than `max_depth`, sending the texts of keys it has not sent before
    /// (`internKeys`) first: a `TapeStatus`. With `keep`, each node's value, and what reading it
    /// threw, stay for `tapeValue` until `releaseTape`.
    pub fn flatten(old: &JsValue, new: &JsValue, max_nodes: u32, max_depth: u32, keep: bool) -> u32;

    /// The value kept for node `ordinal` of the tape written with `keep` (`thrown`: what reading
    /// it threw), undefined when none.
    #[wasm_bindgen(js_name = tapeValue)]
    pub fn tape_value(ordinal: u32, thrown: bool) -> JsValue;

    /// Makes the string ids of the tape written with `keep` canonical (each the first old
    /// string's with its text), as the differences walk needs; only once the pair was found
    /// different, so that an equal pair never pays for it.
    #[wasm_bindgen(js_name = canonicaliseTape)]
    pub fn canonicalise_tape();

    /// Forgets the values kept for the tape written with `keep`.
    #[wasm_bindgen(js_name = releaseTape)]
    pub fn release_tape();

    /// When `value` is a fetch `Response`: clones it and reads the clone into a `sameResponse`
    /// snapshot `{ status, headers, body }` (the `headers` named, the body at most
    /// `max_body_bytes` bytes, JSON when its content type is), reported once to
    /// `deliver(id, …)` (a failure for a body too long or that failed), and returns the reading
    /// for `stopReading`. Undefined, reporting nothing, for any other value.
    #[wasm_bindgen(js_name = readResponse)]
    pub fn read_response(value: &JsValue, headers: &JsValue, max_body_bytes: f64, id: u32) -> JsValue;

    /// Stops a reading `readResponse` started (its report still comes, as a failure).
    #[wasm_bindgen(js_name = stopReading)]
    pub fn stop_reading(reading: &JsValue);

    /// A frozen `{ membership, status }`, a Big Segments lookup's answer (an object literal:
    /// 40 B in V8 against 56 B made field by field, one per cached context).
    #[wasm_bindgen(js_name = answerObject)]
    pub fn answer_object(membership: &JsValue, status: &JsValue) -> JsValue;
}

/// A `Call` answer as a result: the thrown value for `Threw`.
pub fn call_result(code: u32) -> Result<(), JsValue> {
    match super::codes::Call::from_code(code) {
        Some(super::codes::Call::Threw) => Err(take_thrown()),
        _ => Ok(()),
    }
}
