//! `Migrator` for JavaScript: one export runs a read or a write and settles the facade's promise.

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::bridge::{with, Bridge};
use super::signal::{abort_future, AbortSignal};
use super::stage::stage_at;
use super::value::{get, got, intern, op_flag_key, string_of};
use crate::error::Error;
use crate::migration::{AbortFuture, DefaultStage, Migrator, Operation, OperationRequest, OperationResult, Outcome};

#[wasm_bindgen]
extern "C" {
    /// `pending.resolve({origin, success, value | error})`: a read's outcome.
    #[wasm_bindgen(method, js_name = resolveRead)]
    fn resolve_read(this: &Bridge, pending: &JsValue, origin: &JsValue, success: bool, payload: &JsValue);

    /// `pending.resolve({authoritative, nonAuthoritative?})` from two origin results (the second
    /// only when `has_second`).
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(method, js_name = resolveWrite)]
    fn resolve_write(
        this: &Bridge,
        pending: &JsValue,
        origin: &JsValue,
        success: bool,
        payload: &JsValue,
        has_second: bool,
        second_origin: &JsValue,
        second_success: bool,
        second_payload: &JsValue,
    );

    /// `pending.reject(error)`.
    #[wasm_bindgen(method, js_name = rejectPending)]
    fn reject_pending(this: &Bridge, pending: &JsValue, error: &JsValue);

    /// `pending.signal` when it is an `AbortSignal` whose `aborted` state can be read, else
    /// undefined.
    #[wasm_bindgen(method, js_name = signalOf)]
    fn signal_of(this: &Bridge, pending: &JsValue) -> JsValue;
}

/// What the facade already knows of an operation, packed in `hints`. Bits 0–2: the default
/// stage's index in `Stage::ALL`, or `HINT_NOT_A_STAGE`.
pub const HINT_NOT_A_STAGE: u32 = 7;
/// The flag key is the very string the previous operation passed.
pub const HINT_SAME_KEY: u32 = 8;
/// The operation is a write (else a read).
pub const HINT_WRITE: u32 = 16;
/// The caller passed an abort signal (in `pending.signal`).
pub const HINT_SIGNAL: u32 = 32;

#[wasm_bindgen]
pub struct WasmMigrator {
    inner: Migrator<JsValue>,
}

impl WasmMigrator {
    pub fn new(inner: Migrator<JsValue>) -> Self {
        WasmMigrator { inner }
    }
}

/// The default stage the hints name, or the caller's value read as text.
fn hinted_default(hints: u32, default: &JsValue) -> DefaultStage {
    match stage_at((hints & HINT_NOT_A_STAGE) as i32) {
        Some(stage) => DefaultStage::Valid(stage),
        None => DefaultStage::Invalid(string_of(default)),
    }
}

/// The caller's abort signal as the core's abort future, when the hints say there is one.
fn abort_of(hints: u32, pending: &JsValue) -> Result<Option<AbortFuture<JsValue>>, JsValue> {
    if hints & HINT_SIGNAL == 0 {
        return Ok(None);
    }
    let signal = with(|b| b.signal_of(pending)).unwrap_or(JsValue::UNDEFINED);
    if signal.is_undefined() {
        let given = get(pending, "signal");
        return Err(Error::Type(format!("options.signal must be an AbortSignal, {}", got(&given))).into());
    }
    Ok(Some(abort_future(signal.unchecked_into::<AbortSignal>())))
}

fn request(
    flag_key: JsValue,
    hints: u32,
    context: JsValue,
    default: JsValue,
    payload: JsValue,
    pending: &JsValue,
) -> Result<OperationRequest<JsValue>, JsValue> {
    let flag_key = op_flag_key(&flag_key, hints & HINT_SAME_KEY != 0)?;
    let abort = abort_of(hints, pending)?;
    let default_stage = hinted_default(hints, &default);
    Ok(OperationRequest { flag_key, context, default_stage, payload: Some(payload), abort })
}

/// One origin's part of a result object: origin, success, value or error.
fn side(r: &OperationResult<JsValue>) -> (&'static JsValue, bool, &JsValue) {
    let origin = intern(r.origin.as_str());
    match &r.result {
        Ok(value) => (origin, true, value),
        Err(error) => (origin, false, error),
    }
}

/// Hands an outcome to the facade's promise, shaped as the operation's result.
fn resolve(b: &Bridge, pending: &JsValue, operation: Operation, outcome: &Outcome<JsValue>) {
    let (origin, success, payload) = side(&outcome.authoritative);
    match (operation, &outcome.non_authoritative) {
        (Operation::Read, _) => b.resolve_read(pending, origin, success, payload),
        (Operation::Write, None) => {
            let none = JsValue::UNDEFINED;
            b.resolve_write(pending, origin, success, payload, false, &none, false, &none);
        }
        (Operation::Write, Some(second)) => {
            let (o2, s2, p2) = side(second);
            b.resolve_write(pending, origin, success, payload, true, o2, s2, p2);
        }
    }
}

#[wasm_bindgen]
impl WasmMigrator {
    /// Runs a read or a write (`hints` says which, and what else the facade knows: see the
    /// `HINT_*` bits) and settles `pending`, the facade's `{resolve, reject, signal}`.
    pub fn run(
        &self,
        flag_key: JsValue,
        hints: u32,
        context: JsValue,
        default_stage: JsValue,
        payload: JsValue,
        pending: JsValue,
    ) {
        let operation = if hints & HINT_WRITE != 0 { Operation::Write } else { Operation::Read };
        let op = request(flag_key, hints, context, default_stage, payload, &pending)
            .map(|request| self.inner.run(operation, request));
        crate::util::task::spawn(async move {
            let settled = match op {
                Ok(op) => op.await,
                Err(e) => Err(e),
            };
            with(|b| match &settled {
                Ok(outcome) => resolve(b, &pending, operation, outcome),
                Err(e) => b.reject_pending(&pending, e),
            });
        });
    }

    /// The statistics as plain data (`null` for a latency not measured yet, plain objects).
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        Ok(self.inner.stats().serialize(&serde_wasm_bindgen::Serializer::json_compatible())?)
    }

    #[wasm_bindgen(js_name = resetStats)]
    pub fn reset_stats(&self) {
        self.inner.reset_stats();
    }
}
