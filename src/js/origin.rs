//! Origins and comparisons for JavaScript: the caller's functions as the core's `OriginFn` and
//! `Comparison`, called by the bridge.

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::bridge;
use super::codes::Check;
use super::promise::{both, wait, Wait};
use super::signal::{dom_exception, AbortController, AbortSignal};
use super::value::{failure_brand, got};
use crate::error::Error;
use crate::migration::{CallControl, Comparison, OriginCall, OriginFn, Timed};

/// Nothing when `value` is a function, else a TypeError naming it.
pub fn must_be_function(value: &JsValue, name: &str) -> Result<(), Error> {
    if value.is_instance_of::<Function>() {
        return Ok(());
    }
    Err(Error::Type(format!("{name} must be a function, {}", got(value))))
}

/// Aborts the signal an origin was given.
struct JsCallControl(Option<AbortController>);

impl CallControl<JsValue> for JsCallControl {
    fn time_out(&self, after_ms: f64) -> JsValue {
        let message = format!("origin timed out after {} ms", crate::util::text::number(after_ms));
        let error = dom_exception(&message, "TimeoutError");
        if let Some(c) = &self.0 {
            c.abort_with(&error);
        }
        error
    }
    fn abort(&self, reason: &JsValue) {
        if let Some(c) = &self.0 {
            c.abort_with(reason);
        }
    }
}

/// The control of a call that cannot be cancelled (no timeout, no caller signal): a
/// zero-sized box, no allocation per call.
struct NoControl;

impl CallControl<JsValue> for NoControl {
    fn time_out(&self, after_ms: f64) -> JsValue {
        JsCallControl(None).time_out(after_ms)
    }
    fn abort(&self, _reason: &JsValue) {}
}

/// An origin call's outcome with the time the bridge measured: at once when it already
/// reported (an origin that returned a plain value), else when it does.
fn timed_outcome(mut wait: Wait) -> LocalBoxFuture<'static, Timed<JsValue>> {
    match wait.take_report() {
        Some(r) => futures::future::ready((r.outcome, Some(r.ms))).boxed_local(),
        None => wait.map(|r| (r.outcome, Some(r.ms))).boxed_local(),
    }
}

/// An origin function `(payload, signal) => value | Promise<value>`, called by the bridge, which
/// times it where it settles and reads a `failure(error)` value as a failure.
pub struct JsOrigin {
    /// The weak reference `bridge::weakly` made: the facade keeps the function.
    f: JsValue,
    /// Given to calls that cannot be cancelled: never aborts, made once.
    idle_signal: AbortSignal,
}

impl JsOrigin {
    pub fn new(f: JsValue, idle_signal: AbortSignal) -> Self {
        JsOrigin { f, idle_signal }
    }
}

impl OriginFn<JsValue> for JsOrigin {
    fn call(&self, payload: Option<&JsValue>, cancellable: bool) -> OriginCall<JsValue> {
        let (signal, controller) = if cancellable {
            let c = AbortController::new();
            (c.signal(), Some(c))
        } else {
            (self.idle_signal.clone(), None)
        };
        let wait = wait();
        let none = JsValue::UNDEFINED;
        bridge::call_origin(&self.f, payload.unwrap_or(&none), &signal, wait.id());
        let outcome = timed_outcome(wait);
        let control: Box<dyn CallControl<JsValue>> = match controller {
            Some(c) => Box::new(JsCallControl(Some(c))),
            None => Box::new(NoControl),
        };
        OriginCall { outcome, control }
    }
    fn timed_by_host(&self) -> bool {
        true
    }
    fn handle(&self) -> Option<&JsValue> {
        Some(&self.f)
    }
    fn call_each(
        &self,
        other: &dyn OriginFn<JsValue>,
        payload: Option<&JsValue>,
    ) -> Option<[LocalBoxFuture<'static, Timed<JsValue>>; 2]> {
        let other = other.handle()?;
        let (first, second) = (wait(), wait());
        let none = JsValue::UNDEFINED;
        bridge::call_each(&self.f, other, payload.unwrap_or(&none), &self.idle_signal, first.id(), second.id());
        Some([timed_outcome(first), timed_outcome(second)])
    }
    fn call_both(
        &self,
        other: &dyn OriginFn<JsValue>,
        payload: Option<&JsValue>,
    ) -> Option<LocalBoxFuture<'static, [Timed<JsValue>; 2]>> {
        let other = other.handle()?;
        let wait = wait();
        let none = JsValue::UNDEFINED;
        bridge::call_both(&self.f, other, payload.unwrap_or(&none), &self.idle_signal, wait.id());
        let timed = |(settled, ms): (Result<JsValue, JsValue>, f64)| (settled, Some(ms));
        Some(both(wait).map(move |[first, second]| [timed(first), timed(second)]).boxed_local())
    }
}

/// The caller's `comparison(old, new)`, as the weak reference `bridge::weakly` made.
pub struct JsComparison(pub JsValue);

impl Comparison<JsValue> for JsComparison {
    fn compare(&self, old: &JsValue, new: &JsValue) -> Result<bool, JsValue> {
        match Check::from_code(bridge::compare(&self.0, old, new)) {
            Some(Check::Threw) => Err(bridge::take_thrown()),
            answer => Ok(answer == Some(Check::Consistent)),
        }
    }
    fn handle(&self) -> Option<&JsValue> {
        Some(&self.0)
    }
}

/// The symbol `failure(error)` marks its result with.
#[wasm_bindgen(js_name = failureBrand)]
pub fn failure_brand_export() -> JsValue {
    failure_brand()
}
