//! A flag system's own tracker (LaunchDarkly's `LDMigrationTracker` shape) as the core's
//! `ExternalTracker`: the object alone, each method looked up by the bridge when it is called.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use super::bridge::{self, call_result};
use super::codes::{Call, Check, TrackerMethod};
use super::intern::intern;
use super::value::array_items;
use crate::migration::{ExternalTracker, Operation, Origin};

/// The tracker methods, in `TrackerMethod` order (the facade is told them when the wasm starts).
pub const TRACKER_METHODS: [&str; 6] = ["op", "invoked", "latency", "error", "consistency", "createEvent"];

type PendingCheck = Box<dyn FnMut() -> Result<bool, JsValue>>;

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

/// LaunchDarkly's `LDMigrationTracker` shape: the object alone, its methods read at each call.
pub struct JsExternalTracker {
    pub target: JsValue,
}

fn origin_js(origin: Origin) -> &'static JsValue {
    intern(origin.as_str())
}

impl JsExternalTracker {
    fn call(&self, method: TrackerMethod, a: &JsValue, b: &JsValue) -> Result<(), JsValue> {
        call_result(bridge::tracker_call(&self.target, method as u32, a, b))
    }
}

impl ExternalTracker<JsValue> for JsExternalTracker {
    fn op(&self, op: Operation) -> Result<(), JsValue> {
        self.call(TrackerMethod::Op, intern(op.as_str()), &JsValue::UNDEFINED)
    }
    fn invoked(&self, origin: Origin) -> Result<(), JsValue> {
        self.call(TrackerMethod::Invoked, origin_js(origin), &JsValue::UNDEFINED)
    }
    fn latency(&self, origin: Origin, ms: f64) -> Result<(), JsValue> {
        self.call(TrackerMethod::Latency, origin_js(origin), &JsValue::from_f64(ms))
    }
    fn error(&self, origin: Origin) -> Result<(), JsValue> {
        self.call(TrackerMethod::Error, origin_js(origin), &JsValue::UNDEFINED)
    }
    fn record_call(&self, origin: Origin, latency_ms: Option<f64>, failed: bool) -> Vec<(&'static str, JsValue)> {
        let ms = latency_ms.unwrap_or(f64::NAN);
        let threw = bridge::tracker_origin(&self.target, origin_js(origin), ms, failed);
        if threw == 0 {
            return Vec::new();
        }
        // What threw, in method order, as the bridge left it.
        let mut thrown = array_items(&bridge::take_thrown()).unwrap_or_default().into_iter();
        [TrackerMethod::Invoked, TrackerMethod::Latency, TrackerMethod::Error]
            .into_iter()
            .filter(|method| threw & (1 << *method as u32) != 0)
            .map(|method| {
                let name = TRACKER_METHODS.get(method as usize).copied().unwrap_or_default();
                (name, thrown.next().unwrap_or(JsValue::UNDEFINED))
            })
            .collect()
    }
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
    fn create_event(&self) -> Result<Option<JsValue>, JsValue> {
        // The bridge holds the event for the `sendHeldEvent` that follows at once (no
        // JavaScript runs in between; see bridge.rs), so what the core carries is a placeholder.
        match Call::from_code(bridge::create_event(&self.target)) {
            Some(Call::Done) => Ok(Some(JsValue::UNDEFINED)),
            Some(Call::Threw) => Err(bridge::take_thrown()),
            _ => Ok(None),
        }
    }
    fn handle(&self) -> JsValue {
        self.target.clone()
    }
}
