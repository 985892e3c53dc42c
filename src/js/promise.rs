//! Awaiting JavaScript promises and timers from Rust, cheaply.
//!
//! `wasm_bindgen_futures::JsFuture` makes two Rust closures per promise, each a JavaScript
//! function with its own finalizer, and so does a closure-based `setTimeout`. An operation awaits
//! several promises, so instead the facade's bridge (see bridge.rs) calls `promise.then(ok,
//! fail)` or `setTimeout` with plain JavaScript callbacks that report back through the exported
//! `settlePromise(id, ok, value)` into a waiting slot.

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

type Settled = Result<JsValue, JsValue>;

/// Where a promise's outcome meets the future waiting for it (single-threaded: an `Rc`, not a
/// channel).
#[derive(Default)]
struct Slot {
    settled: Option<Settled>,
    waker: Option<Waker>,
}

type SharedSlot = Rc<RefCell<Slot>>;

#[derive(Default)]
struct Pending {
    /// Waiting slots by id; an id is freed only when its promise settles, so it is never
    /// reused while JavaScript may still report on it.
    slots: Vec<Option<SharedSlot>>,
    free: Vec<u32>,
}

/// The future side of a slot.
struct Settling(SharedSlot);

impl Future for Settling {
    type Output = Settled;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Settled> {
        let mut slot = self.0.borrow_mut();
        match slot.settled.take() {
            Some(settled) => Poll::Ready(settled),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

thread_local! {
    static PENDING: RefCell<Pending> = RefCell::default();
}

/// Called by the bridge when promise `id` settles.
#[wasm_bindgen(js_name = settlePromise)]
pub fn settle_promise(id: u32, ok: bool, value: JsValue) {
    let slot = PENDING.with(|p| {
        let mut p = p.borrow_mut();
        let slot = p.slots.get_mut(id as usize).and_then(Option::take);
        if slot.is_some() {
            p.free.push(id);
        }
        slot
    });
    // The operation may have been abandoned (aborted); then the outcome is simply dropped.
    if let Some(slot) = slot {
        let waker = {
            let mut slot = slot.borrow_mut();
            slot.settled = Some(if ok { Ok(value) } else { Err(value) });
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// A new waiting slot and its id.
fn register() -> (u32, SharedSlot) {
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
    (id, slot)
}

/// Frees slot `id` if it still holds `slot` (it may have settled, and the id been reused).
fn release_if_held(id: u32, slot: &SharedSlot) {
    let held = PENDING
        .with(|p| p.borrow().slots.get(id as usize).is_some_and(|s| s.as_ref().is_some_and(|s| Rc::ptr_eq(s, slot))));
    if held {
        release(id);
    }
}

/// A bridge timer: stopped (and its slot freed) if the sleep is dropped before it fires.
struct Timer {
    id: u32,
    slot: SharedSlot,
    handle: JsValue,
    fired: std::cell::Cell<bool>,
}

impl Drop for Timer {
    fn drop(&mut self) {
        if !self.fired.get() {
            bridge::stop_timer(&self.handle);
            release_if_held(self.id, &self.slot);
        }
    }
}

/// Resolves after `ms` through the bridge's `setTimeout` (unref'd when `unref`): one plain
/// call to start, none of wasm-bindgen's closure machinery. (Without a bridge, which
/// `bridge::required` rules out for every object that sleeps, it never resolves.)
pub fn sleep(ms: f64, unref: bool) -> LocalBoxFuture<'static, ()> {
    if !bridge::installed() {
        return futures::future::pending().boxed_local();
    }
    let ms = if ms.is_finite() { ms.ceil().max(0.0).min(f64::from(i32::MAX)) as i32 } else { i32::MAX };
    let (id, slot) = register();
    let handle = bridge::start_timer(ms, id, unref);
    let timer = Timer { id, slot: slot.clone(), handle, fired: Default::default() };
    async move {
        let _ = Settling(slot).await;
        timer.fired.set(true);
    }
    .boxed_local()
}

/// Frees a slot that nothing will report on.
fn release(id: u32) {
    PENDING.with(|p| {
        let mut p = p.borrow_mut();
        if let Some(slot) = p.slots.get_mut(id as usize) {
            if slot.take().is_some() {
                p.free.push(id);
            }
        }
    });
}

/// Awaits `value` if it is a promise or thenable; otherwise it is the result at once.
pub fn settle(value: JsValue) -> LocalBoxFuture<'static, Settled> {
    if bridge::installed() {
        // One call decides and, for a promise or thenable, starts waiting.
        let (id, slot) = register();
        if bridge::await_value(&value, id) {
            return Settling(slot).boxed_local();
        }
        release(id);
        return futures::future::ready(Ok(value)).boxed_local();
    }
    // Without a bridge (ruled out by `bridge::required` for every object that awaits).
    futures::future::ready(Err(js_sys::TypeError::new("cutover's promise bridge is not installed").into()))
        .boxed_local()
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

/// Runs `op` and reports its outcome to `resolve`/`reject` (the facade's `new Promise` executor
/// arguments), instead of building a promise around a Rust closure.
pub fn complete(op: impl std::future::Future<Output = Settled> + 'static, resolve: Function, reject: Function) {
    wasm_bindgen_futures::spawn_local(async move {
        match op.await {
            Ok(v) => call_settler(&resolve, &v),
            Err(e) => call_settler(&reject, &e),
        }
    });
}
