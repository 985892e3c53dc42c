//! `MigratorBuilder` and `Migrator` for JavaScript: origins and comparisons as core trait objects.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::bridge;
use super::client::JsClient;
use super::host::js_host;
use super::promise::{settle_with, Wait};
use super::signal::{abort_future, as_signal, dom_exception, AbortController, AbortSignal};
use super::value::{failure_brand, got, intern, op_flag_key, range_error, string_of, to_js, type_error};
use crate::host::Host;
use crate::migration::{
    ArgumentError, CallControl, Comparison, DefaultStage, Migrator, MigratorBuilder, OperationRequest, OperationResult,
    OriginCall, OriginFn, ReadOrigins, Stage, Timed, WriteOrigins,
};

fn argument_error(e: ArgumentError) -> JsValue {
    match e {
        ArgumentError::Type(m) => type_error(&m),
        ArgumentError::Range(m) => range_error(&m),
    }
}

fn function(value: &JsValue, name: &str) -> Result<Function, JsValue> {
    value
        .dyn_ref::<Function>()
        .cloned()
        .ok_or_else(|| type_error(&format!("{name} must be a function, {}", got(value))))
}

/// Aborts the signal an origin was given.
struct JsCallControl(Option<AbortController>);

impl CallControl<JsValue> for JsCallControl {
    fn time_out(&self, after_ms: f64) -> JsValue {
        let error =
            dom_exception(&format!("origin timed out after {} ms", crate::text::number(after_ms)), "TimeoutError");
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

/// An origin function `(payload, signal) => value | Promise<value>`, called by the bridge, which
/// times it where it settles and reads a `failure(error)` value as a failure.
struct JsOrigin {
    f: Function,
    /// Given to calls that cannot be cancelled: never aborts, made once.
    idle_signal: AbortSignal,
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

impl OriginFn<JsValue> for JsOrigin {
    fn call(&self, payload: Option<&JsValue>, cancellable: bool) -> OriginCall<JsValue> {
        let (signal, controller) = if cancellable {
            let c = AbortController::new();
            (c.signal(), Some(c))
        } else {
            (self.idle_signal.clone(), None)
        };
        let mut wait = Wait::new();
        bridge::call_origin(&self.f, payload.unwrap_or(&JsValue::UNDEFINED), &signal, wait.id());
        let outcome = match wait.take_now() {
            Some((settled, ms)) => futures::future::ready((settled, Some(ms))).boxed_local(),
            None => wait.map(|(settled, ms)| (settled, Some(ms))).boxed_local(),
        };
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
        Some(self.f.as_ref())
    }
    fn call_both(
        &self,
        other: &dyn OriginFn<JsValue>,
        payload: Option<&JsValue>,
    ) -> Option<LocalBoxFuture<'static, [Timed<JsValue>; 2]>> {
        let other = other.handle()?;
        let wait = Wait::new();
        bridge::call_both(&self.f, other, payload.unwrap_or(&JsValue::UNDEFINED), &self.idle_signal, wait.id());
        let timed = |(settled, ms): (Result<JsValue, JsValue>, f64)| (settled, Some(ms));
        Some(wait.both().map(move |[first, second]| [timed(first), timed(second)]).boxed_local())
    }
}

struct JsComparison(Function);

impl Comparison<JsValue> for JsComparison {
    fn compare(&self, old: &JsValue, new: &JsValue) -> Result<bool, JsValue> {
        bridge::compare(&self.0, old, new)
    }
    fn handle(&self) -> Option<&JsValue> {
        Some(self.0.as_ref())
    }
}

#[wasm_bindgen]
pub struct WasmMigratorBuilder {
    inner: RefCell<MigratorBuilder<JsValue>>,
    client: Rc<JsClient>,
    host: Host,
    idle_signal: AbortSignal,
}

fn boolean(value: &JsValue, name: &str) -> Result<bool, JsValue> {
    value.as_bool().ok_or_else(|| type_error(&format!("{name} must be a boolean, {}", got(value))))
}

#[wasm_bindgen]
impl WasmMigratorBuilder {
    #[wasm_bindgen(constructor)]
    pub fn new(client: JsValue, logger: JsValue) -> Result<WasmMigratorBuilder, JsValue> {
        Ok(WasmMigratorBuilder {
            inner: RefCell::new(MigratorBuilder::new()),
            client: Rc::new(JsClient::from_js(&client)?),
            host: js_host(&logger)?,
            idle_signal: AbortController::new().signal(),
        })
    }

    #[wasm_bindgen(js_name = readExecutionOrder)]
    pub fn read_execution_order(&self, order: JsValue) -> Result<(), JsValue> {
        let text = order.as_string().ok_or_else(|| {
            type_error(&format!("readExecutionOrder: order must be 'serial', 'random' or 'parallel', {}", got(&order)))
        })?;
        self.inner.borrow_mut().read_execution_order(&text).map_err(argument_error)
    }

    #[wasm_bindgen(js_name = trackLatency)]
    pub fn track_latency(&self, enabled: JsValue) -> Result<(), JsValue> {
        let enabled = boolean(&enabled, "trackLatency: enabled")?;
        self.inner.borrow_mut().track_latency(enabled);
        Ok(())
    }

    #[wasm_bindgen(js_name = trackErrors)]
    pub fn track_errors(&self, enabled: JsValue) -> Result<(), JsValue> {
        let enabled = boolean(&enabled, "trackErrors: enabled")?;
        self.inner.borrow_mut().track_errors(enabled);
        Ok(())
    }

    #[wasm_bindgen(js_name = originTimeout)]
    pub fn origin_timeout(&self, ms: JsValue) -> Result<(), JsValue> {
        let ms = ms
            .as_f64()
            .ok_or_else(|| type_error(&format!("originTimeout: ms must be a number of milliseconds, {}", got(&ms))))?;
        self.inner.borrow_mut().origin_timeout(ms).map_err(argument_error)
    }

    fn origin(&self, value: &JsValue, name: &str) -> Result<Rc<dyn OriginFn<JsValue>>, JsValue> {
        Ok(Rc::new(JsOrigin { f: function(value, name)?, idle_signal: self.idle_signal.clone() }))
    }

    pub fn read(&self, old: JsValue, new: JsValue, comparison: JsValue) -> Result<(), JsValue> {
        let old = self.origin(&old, "read: oldFn")?;
        let new = self.origin(&new, "read: newFn")?;
        let comparison: Option<Rc<dyn Comparison<JsValue>>> = if comparison.is_undefined() {
            None
        } else {
            Some(Rc::new(JsComparison(function(&comparison, "read: comparison")?)))
        };
        self.inner.borrow_mut().read(ReadOrigins { old, new, comparison });
        Ok(())
    }

    pub fn write(&self, old: JsValue, new: JsValue) -> Result<(), JsValue> {
        let old = self.origin(&old, "write: oldFn")?;
        let new = self.origin(&new, "write: newFn")?;
        self.inner.borrow_mut().write(WriteOrigins { old, new });
        Ok(())
    }

    /// Throws a plain Error carrying the exact config message; the facade rethrows it as
    /// `MigratorConfigError`.
    pub fn build(&self) -> Result<WasmMigrator, JsValue> {
        let migrator = self
            .inner
            .borrow()
            .build(self.client.clone(), self.host.clone())
            .map_err(|e| JsValue::from(js_sys::Error::new(&e.to_string())))?;
        Ok(WasmMigrator { inner: migrator })
    }
}

#[wasm_bindgen]
pub struct WasmMigrator {
    inner: Migrator<JsValue>,
}

/// One origin's result as the bridge's result objects take it.
fn side(r: &OperationResult<JsValue>) -> bridge::Side<'_> {
    let origin = intern(r.origin.as_str());
    match &r.result {
        Ok(value) => (origin, true, value),
        Err(error) => (origin, false, error),
    }
}

/// The caller's default stage as the core takes it (an invalid one is handled by SPEC A7.1).
pub fn default_stage(value: &JsValue) -> DefaultStage {
    match bridge::stage(value) {
        Some(stage) => DefaultStage::Valid(stage),
        None => DefaultStage::Invalid(string_of(value)),
    }
}

/// What the facade already knows of an operation's arguments, packed in one number: bits 0–2
/// the default stage's index in `Stage::ALL` (7: not a stage), bit 3 set when the flag key is
/// the very string the previous operation passed.
fn hinted_default(hints: u32, default: &JsValue) -> DefaultStage {
    match Stage::ALL.get((hints & 7) as usize) {
        Some(stage) => DefaultStage::Valid(*stage),
        None => DefaultStage::Invalid(string_of(default)),
    }
}

fn request(
    flag_key: JsValue,
    hints: u32,
    context: JsValue,
    default: JsValue,
    payload: JsValue,
    signal: Option<AbortSignal>,
) -> Result<OperationRequest<JsValue>, JsValue> {
    let flag_key = op_flag_key(&flag_key, hints & 8 != 0)?;
    let abort = match signal {
        None => None,
        Some(signal) => {
            let signal = as_signal(signal.as_ref())
                .ok_or_else(|| type_error(&format!("options.signal must be an AbortSignal, {}", got(&signal))))?;
            Some(abort_future(signal))
        }
    };
    Ok(OperationRequest {
        flag_key,
        context,
        default_stage: hinted_default(hints, &default),
        payload: Some(payload),
        abort,
    })
}

#[wasm_bindgen]
impl WasmMigrator {
    /// Runs a read and reports to `resolve`/`reject` (the facade's promise executor). The
    /// facade passes `options.signal` (undefined when there is none) and `hints` (see
    /// `hinted_default`).
    #[allow(clippy::too_many_arguments)]
    pub fn read(
        &self,
        flag_key: JsValue,
        hints: u32,
        context: JsValue,
        default_stage: JsValue,
        payload: JsValue,
        signal: Option<AbortSignal>,
        resolve: Function,
        reject: Function,
    ) {
        let op =
            request(flag_key, hints, context, default_stage, payload, signal).map(|request| self.inner.read(request));
        settle_with(async move { op?.await }, resolve, reject, |resolve, r| {
            let (origin, success, payload) = side(&r);
            bridge::resolve_read(resolve, origin, success, payload);
        });
    }

    /// Runs a write and reports to `resolve`/`reject` (the facade's promise executor).
    #[allow(clippy::too_many_arguments)]
    pub fn write(
        &self,
        flag_key: JsValue,
        hints: u32,
        context: JsValue,
        default_stage: JsValue,
        payload: JsValue,
        signal: Option<AbortSignal>,
        resolve: Function,
        reject: Function,
    ) {
        let op =
            request(flag_key, hints, context, default_stage, payload, signal).map(|request| self.inner.write(request));
        settle_with(async move { op?.await }, resolve, reject, |resolve, w| {
            bridge::resolve_write(resolve, side(&w.authoritative), w.non_authoritative.as_ref().map(side));
        });
    }

    pub fn stats(&self) -> Result<JsValue, JsValue> {
        Ok(to_js(&self.inner.stats().to_json()))
    }

    #[wasm_bindgen(js_name = resetStats)]
    pub fn reset_stats(&self) {
        self.inner.reset_stats();
    }
}

/// Parses a stage string or throws a TypeError naming `what`.
pub fn stage_arg(value: &JsValue, what: &str) -> Result<Stage, JsValue> {
    value.as_string().and_then(|s| Stage::parse(&s)).ok_or_else(|| {
        type_error(&format!(
            "{what} must be one of 'off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete', {}",
            got(value)
        ))
    })
}

/// Validates a stage for `fixedStage(stage)`; returns it.
#[wasm_bindgen(js_name = checkStage)]
pub fn check_stage(value: JsValue, what: &str) -> Result<JsValue, JsValue> {
    stage_arg(&value, what).map(|s| JsValue::from_str(s.as_str()))
}

/// The symbol `failure(error)` marks its result with.
#[wasm_bindgen(js_name = failureBrand)]
pub fn failure_brand_export() -> JsValue {
    failure_brand()
}
