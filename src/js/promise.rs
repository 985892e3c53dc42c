//! Awaiting JavaScript promises, timers and abort signals from Rust, cheaply and in the caller's
//! async context.
//!
//! `wasm_bindgen_futures::JsFuture` makes two Rust closures per promise, each a JavaScript
//! function with its own finalizer, and so does a closure-based `setTimeout`. Instead the
//! facade's bridge (see bridge.rs) registers plain JavaScript callbacks (`promise.then`,
//! `setTimeout`, an abort listener relayed through a promise) that report back into a waiting
//! slot through the exported `deliver(id, ok, value)` (or `deliverTimed`, `deliverBoth`,
//! `answered`: the same with what the bridge measured or classified). The callbacks are registered
//! while the operation's task is being polled, so they run in the async context of the
//! operation's caller, and the slot's waker polls the task right there (`crate::util::task`).

use std::cell::RefCell;
use std::future::Future;

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::Function;

use super::bridge;
use super::codes::{Answer, Pair};
use crate::util::slots::{self, Slots};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// How a promise or call ended: `Ok(value)` or `Err(reason)`.
pub type JsResult = Result<JsValue, JsValue>;

/// What a slot receives.
pub struct Report {
    pub outcome: JsResult,
    /// The milliseconds the bridge timed (`deliverTimed`, `deliverBoth`); NaN otherwise.
    pub ms: f64,
    /// The `Answer` code of a flag client's answer (`answered`, `answerFields`).
    pub answer: u32,
    /// The second outcome of a `deliverBoth` report.
    second: Option<(JsResult, f64)>,
}

// Why a thread_local: the bridge reports settlements through free exports (`deliver`,
// `deliverTimed`, `deliverBoth`, `answered`) with a slot id, not a handle, so the slots live with
// the instance: one table for every pending wait (crate::util::slots), reused as they settle.
thread_local! {
    /// The slots the bridge reports to (the table and its rules: `crate::util::slots`).
    static SLOTS: RefCell<Slots<Report>> = const { RefCell::new(Slots::new()) };
}

/// A wait for one report from the bridge.
pub type Wait = slots::Wait<Report>;

/// A new waiting slot; its id is what the bridge reports to.
pub fn wait() -> Wait {
    Wait::new(&SLOTS)
}

impl Report {
    pub fn of(ok: bool, value: JsValue) -> Self {
        Report { outcome: outcome(ok, value), ms: f64::NAN, answer: Answer::NotAStage as u32, second: None }
    }
}

/// Called by the bridge when promise (timer, abort relay) `id` settles.
#[wasm_bindgen]
pub fn deliver(id: u32, ok: bool, value: JsValue) {
    report(id, Report::of(ok, value));
}

/// Called by the bridge when origin call `id` settles, `ms` after it was called.
#[wasm_bindgen(js_name = deliverTimed)]
pub fn deliver_timed(id: u32, ok: bool, value: JsValue, ms: f64) {
    report(id, Report { ms, ..Report::of(ok, value) });
}

/// Called by the bridge when a flag client's promise answer `id` resolved to a value that is not
/// an object: its `Answer` code.
#[wasm_bindgen]
pub fn answered(id: u32, answer: u32) {
    report(id, Report { answer, ..Report::of(true, JsValue::UNDEFINED) });
}

fn outcome(ok: bool, value: JsValue) -> JsResult {
    if ok {
        Ok(value)
    } else {
        Err(value)
    }
}

/// Called by the bridge when both origins of a `callBoth` settled: each outcome and its time;
/// `succeeded` has the `Pair` flags of those that succeeded.
#[wasm_bindgen(js_name = deliverBoth)]
pub fn deliver_both(id: u32, succeeded: u32, value: JsValue, ms: f64, value2: JsValue, ms2: f64) {
    let first = outcome(succeeded & Pair::FirstSucceeded as u32 != 0, value);
    let second = outcome(succeeded & Pair::SecondSucceeded as u32 != 0, value2);
    report(id, Report { outcome: first, ms, answer: Answer::NotAStage as u32, second: Some((second, ms2)) });
}

/// Puts `delivered` in slot `id` and wakes its task (an outcome whose operation is gone is dropped).
fn report(id: u32, delivered: Report) {
    slots::deliver(&SLOTS, id, delivered);
}

/// Both outcomes of a `deliverBoth` report (a single report's second outcome reads as a failure
/// with undefined).
pub fn both(wait: Wait) -> impl Future<Output = [(JsResult, f64); 2]> {
    wait.map(|r| {
        let second = r.second.unwrap_or((Err(JsValue::UNDEFINED), f64::NAN));
        [(r.outcome, r.ms), second]
    })
}

/// The outcome alone.
#[cfg(feature = "segments")]
pub fn outcome_of(wait: Wait) -> impl Future<Output = JsResult> {
    wait.map(|report| report.outcome)
}

/// Resolves after `ms` through the bridge's `setTimeout` (unref'd when `unref`): one plain
/// call to start, stopped if dropped first.
pub fn sleep(ms: f64, unref: bool) -> LocalBoxFuture<'static, ()> {
    let ms = if ms.is_finite() { ms.ceil().max(0.0).min(f64::from(i32::MAX)) as i32 } else { i32::MAX };
    let wait = wait();
    let handle = bridge::start_timer(ms, wait.id(), unref);
    wait.on_cancel(move || {
        bridge::stop_timer(&handle);
        true
    })
    .map(|_| ())
    .boxed_local()
}

/// Awaits `value` if it is a promise or thenable; otherwise it is the result at once (the
/// stores' answers).
#[cfg(feature = "segments")]
pub fn awaited(value: JsValue) -> LocalBoxFuture<'static, JsResult> {
    let wait = wait();
    if bridge::await_value(&value, wait.id()) {
        return outcome_of(wait).boxed_local();
    }
    wait.release();
    futures::future::ready(Ok(value)).boxed_local()
}

#[wasm_bindgen]
extern "C" {
    /// A promise's own resolve or reject function, which never throws.
    type Resolver;

    /// `resolve.call(undefined, value)` (or `reject`'s), imported without an exception handler.
    #[wasm_bindgen(method, js_name = call)]
    fn call(this: &Resolver, context: &JsValue, value: &JsValue);
}

fn call_resolver(resolver: &Function, value: &JsValue) {
    resolver.unchecked_ref::<Resolver>().call(&JsValue::UNDEFINED, value);
}

/// Runs `op` as a task of its own — polled at once, in the caller's async context — and reports
/// its outcome to `resolve`/`reject` (the facade's `new Promise` executor arguments).
pub fn complete(op: impl Future<Output = JsResult> + 'static, resolve: Function, reject: Function) {
    run_reporting(op, resolve, reject, |resolve, v| call_resolver(resolve, &v));
}

/// A promise for `op`, run as its own task like [`complete`] (for calls that return a promise to
/// the facade rather than taking its executor's functions).
pub fn promise(op: impl Future<Output = JsResult> + 'static) -> js_sys::Promise {
    let mut op = Some(op);
    js_sys::Promise::new(&mut |resolve, reject| {
        if let Some(op) = op.take() {
            complete(op, resolve, reject);
        }
    })
}

/// Like [`complete`], with `ok` handing a success to `resolve` (building its result object in
/// the same bridge call).
pub fn run_reporting<T: 'static>(
    op: impl Future<Output = Result<T, JsValue>> + 'static,
    resolve: Function,
    reject: Function,
    ok: impl FnOnce(&Function, T) + 'static,
) {
    crate::util::task::spawn(async move {
        match op.await {
            Ok(v) => ok(&resolve, v),
            Err(e) => call_resolver(&reject, &e),
        }
    });
}
