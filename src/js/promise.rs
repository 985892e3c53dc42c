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
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::Function;

use super::bridge;
use super::codes::{Answer, Pair};
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

/// One waiting slot. Slots live in one table, not behind a pointer each: an operation waits on
/// a few promises, and an allocation per wait measured as a tenth of a fixed-stage read.
enum Slot {
    Free,
    /// A `Wait` holds it; the report lands here.
    Waiting {
        report: Option<Report>,
        waker: Option<Waker>,
    },
    /// Its `Wait` was dropped; the id is freed when the report arrives.
    Abandoned,
}

#[derive(Default)]
struct Pending {
    /// An id is freed only when its report arrived or none can come, so it is never reused
    /// while JavaScript may still report on it.
    slots: Vec<Slot>,
    free: Vec<u32>,
}

thread_local! {
    static PENDING: RefCell<Pending> = RefCell::default();
}

impl Pending {
    fn release(&mut self, id: u32) {
        if let Some(slot) = self.slots.get_mut(id as usize) {
            if !matches!(slot, Slot::Free) {
                *slot = Slot::Free;
                self.free.push(id);
            }
        }
    }
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

/// Puts `delivered` in slot `id` and wakes its task.
pub fn report(id: u32, delivered: Report) {
    let waker = PENDING.with(|p| {
        let mut p = p.borrow_mut();
        match p.slots.get_mut(id as usize) {
            Some(Slot::Waiting { report, waker }) => {
                *report = Some(delivered);
                waker.take()
            }
            // Its operation is gone (aborted, timed out): the outcome is dropped.
            Some(Slot::Abandoned) => {
                p.release(id);
                None
            }
            _ => None,
        }
    });
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// A future for one report to slot `id`. Dropped before the report, it runs its cleanup
/// (stopping a timer, removing a listener); the slot's id stays taken until the report arrives
/// (a promise settles when it settles, an abort relay already under way still reports), unless
/// the cleanup rules a report out (a stopped timer), so an id is never reused while JavaScript
/// may still report on it.
pub struct Wait {
    id: u32,
    done: bool,
    /// Returns whether it ruled out a later report (then the id may be reused at once).
    cleanup: Option<Box<dyn FnOnce() -> bool>>,
}

impl Wait {
    /// A new waiting slot; its id is what the bridge reports to.
    pub fn new() -> Self {
        let waiting = Slot::Waiting { report: None, waker: None };
        let id = PENDING.with(|p| {
            let mut p = p.borrow_mut();
            match p.free.pop() {
                Some(id) => {
                    if let Some(slot) = p.slots.get_mut(id as usize) {
                        *slot = waiting;
                    }
                    id
                }
                None => {
                    p.slots.push(waiting);
                    u32::try_from(p.slots.len() - 1).unwrap_or(u32::MAX)
                }
            }
        });
        Wait { id, done: false, cleanup: None }
    }

    pub fn id(&self) -> u32 {
        self.id
    }

    /// Runs `cleanup` if this wait is dropped before its report arrives; it returns whether it
    /// ruled out a later report (a stopped timer, a relay removed before it fired).
    pub fn on_cancel(mut self, cleanup: impl FnOnce() -> bool + 'static) -> Self {
        self.cleanup = Some(Box::new(cleanup));
        self
    }

    /// Gives the slot up when nothing reported or will report to it (the bridge answered
    /// synchronously by other means).
    pub fn release(mut self) {
        self.done = true;
        PENDING.with(|p| p.borrow_mut().release(self.id));
    }

    /// Both outcomes of a `deliverBoth` report (a single report's second outcome reads as a
    /// failure with undefined).
    pub fn both(mut self) -> impl Future<Output = [(JsResult, f64); 2]> {
        futures::future::poll_fn(move |cx| match self.take_report() {
            Some(r) => {
                let second = r.second.unwrap_or((Err(JsValue::UNDEFINED), f64::NAN));
                Poll::Ready([(r.outcome, r.ms), second])
            }
            None => {
                self.register(cx);
                Poll::Pending
            }
        })
    }

    fn register(&self, cx: &Context<'_>) {
        PENDING.with(|p| {
            if let Some(Slot::Waiting { waker, .. }) = p.borrow_mut().slots.get_mut(self.id as usize) {
                match waker {
                    Some(w) if w.will_wake(cx.waker()) => {}
                    _ => *waker = Some(cx.waker().clone()),
                }
            }
        });
    }

    /// The report, if it already arrived (a bridge call that reported synchronously).
    pub fn take_report(&mut self) -> Option<Report> {
        let report = PENDING.with(|p| {
            let mut p = p.borrow_mut();
            let report = match p.slots.get_mut(self.id as usize) {
                Some(Slot::Waiting { report, .. }) => report.take(),
                _ => None,
            }?;
            p.release(self.id);
            Some(report)
        })?;
        self.done = true;
        Some(report)
    }

    /// The outcome alone.
    pub fn outcome(self) -> impl Future<Output = JsResult> {
        self.map(|report| report.outcome)
    }
}

impl Future for Wait {
    type Output = Report;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Report> {
        if let Some(report) = self.take_report() {
            return Poll::Ready(report);
        }
        self.register(cx);
        Poll::Pending
    }
}

impl Drop for Wait {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let silenced = self.cleanup.take().is_some_and(|cleanup| cleanup());
        let id = self.id;
        PENDING.with(|p| {
            let mut p = p.borrow_mut();
            let reported = matches!(p.slots.get(id as usize), Some(Slot::Waiting { report: Some(_), .. }));
            if silenced || reported {
                p.release(id);
            } else if let Some(slot) = p.slots.get_mut(id as usize) {
                *slot = Slot::Abandoned;
            }
        });
    }
}

/// Resolves after `ms` through the bridge's `setTimeout` (unref'd when `unref`): one plain
/// call to start, stopped if dropped first.
pub fn sleep(ms: f64, unref: bool) -> LocalBoxFuture<'static, ()> {
    let ms = if ms.is_finite() { ms.ceil().max(0.0).min(f64::from(i32::MAX)) as i32 } else { i32::MAX };
    let wait = Wait::new();
    let handle = bridge::start_timer(ms, wait.id(), unref);
    wait.on_cancel(move || {
        bridge::stop_timer(&handle);
        true
    })
    .map(|_| ())
    .boxed_local()
}

/// Awaits `value` if it is a promise or thenable; otherwise it is the result at once.
pub fn awaited(value: JsValue) -> LocalBoxFuture<'static, JsResult> {
    let wait = Wait::new();
    if bridge::await_value(&value, wait.id()) {
        return wait.outcome().boxed_local();
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
