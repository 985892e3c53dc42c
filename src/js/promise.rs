//! Awaiting JavaScript promises, timers and abort signals from Rust, cheaply and in the caller's
//! async context.
//!
//! `wasm_bindgen_futures::JsFuture` makes two Rust closures per promise, each a JavaScript
//! function with its own finalizer, and so does a closure-based `setTimeout`. Instead the
//! facade's bridge (see bridge.rs) registers plain JavaScript callbacks (`promise.then`,
//! `setTimeout`, an abort listener relayed through a promise) that report back through the
//! exported `settlePromise(id, ok, value, ms)` into a waiting slot. The callbacks are registered
//! while the operation's task is being polled, so they run in the async context of the
//! operation's caller, and the slot's waker polls the task right there (`crate::task`).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::Function;

use super::bridge;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A settled promise: `Ok(value)` or `Err(reason)`.
pub type Settled = Result<JsValue, JsValue>;

/// What a slot receives: the outcome, and the milliseconds the bridge measured (NaN when it
/// measured nothing).
struct Report {
    settled: Settled,
    ms: f64,
}

/// Where a promise's outcome meets the future waiting for it (single-threaded: an `Rc`, not a
/// channel).
#[derive(Default)]
struct Slot {
    report: Option<Report>,
    waker: Option<Waker>,
}

type SharedSlot = Rc<RefCell<Slot>>;

#[derive(Default)]
struct Pending {
    /// Waiting slots by id; an id is freed only when it settles or its waiter is dropped, so it
    /// is never reused while JavaScript may still report on it for that waiter.
    slots: Vec<Option<SharedSlot>>,
    free: Vec<u32>,
}

thread_local! {
    static PENDING: RefCell<Pending> = RefCell::default();
}

/// Called by the bridge when promise (timer, abort relay) `id` settles; `ms` is what the bridge
/// timed, if anything.
#[wasm_bindgen(js_name = settlePromise)]
pub fn settle_promise(id: u32, ok: bool, value: JsValue, ms: f64) {
    let slot = PENDING.with(|p| {
        let mut p = p.borrow_mut();
        let slot = p.slots.get_mut(id as usize).and_then(Option::take);
        if slot.is_some() {
            p.free.push(id);
        }
        slot
    });
    // The waiter may have been dropped (an aborted operation); then the outcome is dropped too.
    if let Some(slot) = slot {
        let waker = {
            let mut slot = slot.borrow_mut();
            slot.report = Some(Report { settled: if ok { Ok(value) } else { Err(value) }, ms });
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// A future for one report to slot `id`. Dropped before the report, it runs its cleanup
/// (stopping a timer, removing a listener); the slot's id stays taken until the report arrives
/// (a promise settles when it settles, an abort relay already under way still reports), unless
/// the cleanup guarantees there will be none (a stopped timer), so an id is never reused while
/// JavaScript may still report on it.
pub struct Wait {
    id: u32,
    slot: SharedSlot,
    done: bool,
    /// Returns whether it ruled out a later report (then the id may be reused at once).
    cleanup: Option<Box<dyn FnOnce() -> bool>>,
}

impl Wait {
    /// A new waiting slot; its id is what the bridge reports to.
    pub fn new() -> Self {
        let slot = SharedSlot::default();
        let id = PENDING.with(|p| {
            let mut p = p.borrow_mut();
            match p.free.pop() {
                Some(id) => {
                    if let Some(free) = p.slots.get_mut(id as usize) {
                        *free = Some(slot.clone());
                    }
                    id
                }
                None => {
                    p.slots.push(Some(slot.clone()));
                    u32::try_from(p.slots.len() - 1).unwrap_or(u32::MAX)
                }
            }
        });
        Wait { id, slot, done: false, cleanup: None }
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
        self.free();
        self.done = true;
    }

    /// Frees the slot's id for reuse: nothing will report to it.
    fn free(&self) {
        let id = self.id;
        PENDING.with(|p| {
            let mut p = p.borrow_mut();
            let held = p.slots.get(id as usize).is_some_and(|s| s.as_ref().is_some_and(|s| Rc::ptr_eq(s, &self.slot)));
            if held {
                if let Some(slot) = p.slots.get_mut(id as usize) {
                    *slot = None;
                }
                p.free.push(id);
            }
        });
    }

    /// The report, if it already arrived (a bridge call that settled synchronously).
    pub fn take_now(&mut self) -> Option<(Settled, f64)> {
        let report = self.slot.borrow_mut().report.take()?;
        self.done = true;
        Some((report.settled, report.ms))
    }

    /// The outcome alone.
    pub fn outcome(self) -> impl Future<Output = Settled> {
        self.map(|(settled, _)| settled)
    }
}

impl Future for Wait {
    type Output = (Settled, f64);
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<(Settled, f64)> {
        if let Some(report) = self.take_now() {
            return Poll::Ready(report);
        }
        self.slot.borrow_mut().waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for Wait {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        self.slot.borrow_mut().waker = None;
        if let Some(cleanup) = self.cleanup.take() {
            if cleanup() {
                self.free();
            }
        }
    }
}

/// Resolves after `ms` through the bridge's `setTimeout` (unref'd when `unref`): one plain
/// call to start, stopped if dropped first. (Without a bridge, which `bridge::required` rules
/// out for every object that sleeps, it never resolves.)
pub fn sleep(ms: f64, unref: bool) -> LocalBoxFuture<'static, ()> {
    if !bridge::installed() {
        return futures::future::pending().boxed_local();
    }
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
pub fn settle(value: JsValue) -> LocalBoxFuture<'static, Settled> {
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
    type Settler;

    /// `settle.call(undefined, value)`, imported without an exception handler.
    #[wasm_bindgen(method, js_name = call)]
    fn call(this: &Settler, context: &JsValue, value: &JsValue);
}

fn call_settler(settle: &Function, value: &JsValue) {
    settle.unchecked_ref::<Settler>().call(&JsValue::UNDEFINED, value);
}

/// Runs `op` as a task of its own — polled at once, in the caller's async context — and reports
/// its outcome to `resolve`/`reject` (the facade's `new Promise` executor arguments).
pub fn complete(op: impl Future<Output = Settled> + 'static, resolve: Function, reject: Function) {
    settle_with(op, resolve, reject, |resolve, v| call_settler(resolve, &v));
}

/// A promise for `op`, run as its own task like [`complete`] (for calls that return a promise to
/// the facade rather than taking its executor's functions).
pub fn promise(op: impl Future<Output = Settled> + 'static) -> js_sys::Promise {
    let mut op = Some(op);
    js_sys::Promise::new(&mut |resolve, reject| {
        if let Some(op) = op.take() {
            complete(op, resolve, reject);
        }
    })
}

/// Like [`complete`], with `ok` handing a success to `resolve` (building its result object in
/// the same bridge call).
pub fn settle_with<T: 'static>(
    op: impl Future<Output = Result<T, JsValue>> + 'static,
    resolve: Function,
    reject: Function,
    ok: impl FnOnce(&Function, T) + 'static,
) {
    crate::task::spawn(async move {
        match op.await {
            Ok(v) => ok(&resolve, v),
            Err(e) => call_settler(&reject, &e),
        }
    });
}
