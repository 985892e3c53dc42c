//! A flag system's own tracker (LaunchDarkly's `LDMigrationTracker` shape) as the core's
//! `ExternalTracker`: the object alone, each method looked up by the bridge when it is called.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use super::bridge::{self, with, Bridge};
use super::value::{array_items, intern};
use crate::migration::{ExternalTracker, Operation, Origin};

#[wasm_bindgen]
extern "C" {
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
}

/// The tracker methods, in the order `trackerCall` numbers them (the facade reads the list from
/// `protocol()`).
pub const TRACKER_METHODS: [&str; 6] = ["op", "invoked", "latency", "error", "consistency", "createEvent"];

type Check = Box<dyn FnMut() -> Result<bool, JsValue>>;

thread_local! {
    static CHECKS: RefCell<Vec<Check>> = const { RefCell::new(Vec::new()) };
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

/// LaunchDarkly's `LDMigrationTracker` shape: the object alone, its methods read at each call.
pub struct JsExternalTracker {
    pub target: JsValue,
}

fn origin_js(origin: Origin) -> &'static JsValue {
    intern(origin.as_str())
}

impl JsExternalTracker {
    fn call(&self, method: u32, a: &JsValue, b: &JsValue) -> Result<(), JsValue> {
        match with(|bridge| bridge.tracker_call(&self.target, method, a, b)) {
            Some(false) => Err(bridge::take_error()),
            _ => Ok(()),
        }
    }
}

impl ExternalTracker<JsValue> for JsExternalTracker {
    fn op(&self, op: Operation) -> Result<(), JsValue> {
        self.call(0, intern(op.as_str()), &JsValue::UNDEFINED)
    }
    fn invoked(&self, origin: Origin) -> Result<(), JsValue> {
        self.call(1, origin_js(origin), &JsValue::UNDEFINED)
    }
    fn latency(&self, origin: Origin, ms: f64) -> Result<(), JsValue> {
        self.call(2, origin_js(origin), &JsValue::from_f64(ms))
    }
    fn error(&self, origin: Origin) -> Result<(), JsValue> {
        self.call(3, origin_js(origin), &JsValue::UNDEFINED)
    }
    fn record_call(&self, origin: Origin, latency_ms: Option<f64>, failed: bool) -> Vec<(&'static str, JsValue)> {
        let ms = latency_ms.unwrap_or(f64::NAN);
        let mask = with(|b| b.tracker_origin(&self.target, origin_js(origin), ms, failed)).unwrap_or(0);
        if mask == 0 {
            return Vec::new();
        }
        // What threw, in method order, as the bridge kept it.
        let mut thrown = array_items(&bridge::take_error()).unwrap_or_default().into_iter();
        [(1, "invoked"), (2, "latency"), (4, "error")]
            .into_iter()
            .filter(|(bit, _)| mask & bit != 0)
            .map(|(_, name)| (name, thrown.next().unwrap_or(JsValue::UNDEFINED)))
            .collect()
    }
    fn consistency(&self, check: Box<dyn FnMut() -> Result<bool, JsValue>>) -> Result<(), JsValue> {
        // The tracker calls `check` synchronously, if at all. One long-lived JavaScript function
        // runs whichever check is on top of a stack (checks may nest through re-entrant calls),
        // instead of a new wasm closure per operation.
        CHECKS.with(|c| c.borrow_mut().push(check));
        let called = CHECK_FN.with(|f| self.call(4, f.as_ref(), &JsValue::UNDEFINED));
        CHECKS.with(|c| c.borrow_mut().pop());
        called
    }
    fn consistency_of(
        &self,
        comparison: &JsValue,
        old: &JsValue,
        new: &JsValue,
    ) -> Option<Result<Option<bool>, JsValue>> {
        Some(match with(|b| b.tracker_consistency(&self.target, comparison, old, new)).unwrap_or(-1) {
            -2 => Err(bridge::take_error()),
            answer => Ok((answer >= 0).then_some(answer == 1)),
        })
    }
    fn create_event(&self) -> Result<Option<JsValue>, JsValue> {
        // The bridge keeps the event it made for the `track_migration_op` call that follows at
        // once (no JavaScript runs in between); undefined stands for it.
        match with(|b| b.create_event(&self.target)) {
            Some(0) => Ok(Some(JsValue::UNDEFINED)),
            Some(2) => Err(bridge::take_error()),
            _ => Ok(None),
        }
    }
    fn handle(&self) -> JsValue {
        self.target.clone()
    }
}
