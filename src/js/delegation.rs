//! A flag system's own tracker (LaunchDarkly's `LDMigrationTracker` shape) as the core's
//! `ExternalTracker`: the object alone, each method looked up by the bridge when it is called.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use super::bridge::{self, call_result};
use super::codes::{Check, ClientMethod, Settle, TrackerCall, TrackerField, TrackerMethod};
use super::record::{self, RECORD_SLOTS};
use super::value::array_items;
use crate::migration::{ExternalTracker, Measurement, Operation, Origin, Settled, SEND_METHOD};

/// The tracker methods, in `TrackerMethod` order (the facade is told them when the wasm starts).
pub const TRACKER_METHODS: [&str; 6] = ["op", "invoked", "latency", "error", "consistency", "createEvent"];

type PendingCheck = Box<dyn FnMut() -> Result<bool, JsValue>>;

// Why a thread_local: a flag system's tracker is handed one JavaScript function for its
// consistency check, made once for the instance (CHECK_FN) instead of a wasm closure per operation
// (a closure is a JavaScript function, a table entry and a box, made and dropped each time); the
// check it runs is the top of CHECKS, a stack because checks nest through re-entrant calls.
thread_local! {
    static CHECKS: RefCell<Vec<PendingCheck>> = const { RefCell::new(Vec::new()) };
    static CHECK_FN: Closure<dyn FnMut() -> Result<bool, JsValue>> = Closure::new(run_current_check);
}

/// Runs the innermost pending consistency check. It is taken off the stack while it runs (it
/// may start a nested operation) and put back after.
fn run_current_check() -> Result<bool, JsValue> {
    let Some(mut check) = CHECKS.with(|c| c.borrow_mut().pop()) else {
        return Err(js_sys::Error::new("the consistency check was called after its operation finished").into());
    };
    let result = check();
    CHECKS.with(|c| c.borrow_mut().push(check));
    result
}

/// LaunchDarkly's `LDMigrationTracker` shape: the object alone, its methods read at each call,
/// and the client its event goes to.
pub struct JsExternalTracker {
    pub target: JsValue,
    /// The flag client that answered with this tracker (a weak reference, as `JsClient` holds
    /// it); undefined for an evaluation the caller built, which sends nothing.
    pub client: JsValue,
}

impl JsExternalTracker {
    fn call(&self, method: TrackerMethod, a: &JsValue, b: &JsValue) -> Result<(), JsValue> {
        call_result(bridge::tracker_call(&self.target, method as u32, a, b))
    }
}

/// Origin calls the record holds after the operation (an operation calls each origin at most
/// once, so two; more are replayed in further `settleTracker` calls).
const CALLS_PER_RECORD: usize = (RECORD_SLOTS - TrackerField::FirstCall as usize) / TrackerCall::Slots as usize;

/// Lays `calls` out in the record (`TrackerField`, `TrackerCall`) after `operation`.
fn write_measurements(operation: Option<Operation>, calls: &[(Origin, Option<f64>, bool)]) {
    let mut numbers = [f64::NAN; RECORD_SLOTS];
    if let (Some(op), Some(slot)) = (operation, numbers.get_mut(TrackerField::Operation as usize)) {
        *slot = op.index() as f64;
    }
    let starts = (TrackerField::FirstCall as usize..).step_by(TrackerCall::Slots as usize);
    for (&(origin, latency_ms, failed), at) in calls.iter().zip(starts) {
        let mut put = |field: TrackerCall, value: f64| {
            if let Some(slot) = numbers.get_mut(at + field as usize) {
                *slot = value;
            }
        };
        put(TrackerCall::Origin, origin.index() as f64);
        put(TrackerCall::Latency, latency_ms.unwrap_or(f64::NAN));
        put(TrackerCall::Failed, if failed { 1.0 } else { 0.0 });
    }
    record::write(numbers);
}

// The client's method is numbered right after the tracker's, so that one number names either.
const _: () = assert!(ClientMethod::TrackMigrationOp as usize == TRACKER_METHODS.len());

/// The name of the method a `settleTracker` code stands for (a `TrackerMethod`, or
/// `ClientMethod::TrackMigrationOp`).
fn method_name(code: f64) -> &'static str {
    match TRACKER_METHODS.get(code as usize) {
        Some(name) => name,
        None => SEND_METHOD,
    }
}

impl ExternalTracker<JsValue> for JsExternalTracker {
    fn consistency(&self, check: Box<dyn FnMut() -> Result<bool, JsValue>>) -> Result<(), JsValue> {
        // The tracker calls `check` synchronously, if at all. One long-lived JavaScript function
        // runs whichever check is on top of a stack (checks may nest through re-entrant calls),
        // instead of a new wasm closure per operation.
        CHECKS.with(|c| c.borrow_mut().push(check));
        let called = CHECK_FN.with(|f| self.call(TrackerMethod::Consistency, f.as_ref(), &JsValue::UNDEFINED));
        CHECKS.with(|c| c.borrow_mut().pop());
        called
    }
    fn consistency_of(
        &self,
        comparison: &JsValue,
        old: &JsValue,
        new: &JsValue,
    ) -> Option<Result<Option<bool>, JsValue>> {
        Some(match Check::from_code(bridge::tracker_consistency(&self.target, comparison, old, new)) {
            Some(Check::Threw) => Err(bridge::take_thrown()),
            Some(Check::Consistent) => Ok(Some(true)),
            Some(Check::Inconsistent) => Ok(Some(false)),
            Some(Check::NotRun) | None => Ok(None),
        })
    }
    fn settle(&self, measurements: &[Measurement]) -> Settled<JsValue> {
        let mut operation = None;
        let mut calls = Vec::with_capacity(CALLS_PER_RECORD);
        for m in measurements {
            match *m {
                Measurement::Op(op) => operation = Some(op),
                Measurement::Call { origin, latency_ms, failed } => calls.push((origin, latency_ms, failed)),
            }
        }
        let mut settled = Settled { made_event: false, thrown: Vec::new() };
        let mut chunks = calls.chunks(CALLS_PER_RECORD).peekable();
        loop {
            let chunk = chunks.next().unwrap_or_default();
            let last = chunks.peek().is_none();
            write_measurements(operation.take(), chunk);
            let code = bridge::settle_tracker(&self.target, &self.client, chunk.len() as u32, last);
            if code & Settle::Threw as u32 != 0 {
                let pairs = array_items(&bridge::take_thrown()).unwrap_or_default();
                for pair in pairs.chunks(2) {
                    if let [method, error] = pair {
                        settled.thrown.push((method_name(method.as_f64().unwrap_or(f64::NAN)), error.clone()));
                    }
                }
            }
            if last {
                settled.made_event = code & Settle::NoEvent as u32 == 0;
                return settled;
            }
        }
    }
    fn handle(&self) -> JsValue {
        self.target.clone()
    }
}
