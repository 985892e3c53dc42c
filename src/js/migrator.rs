//! `Migrator` for JavaScript: one export runs a read or a write and settles the facade's promise.

use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::bridge;
use super::codes::{Hint, Side};
use super::flag_key::op_flag_key;
use super::signal::{abort_future, AbortSignal};
use super::stage::stage_at;
use super::value::{get, got};
use crate::error::Error;
use crate::migration::Origin;
use crate::migration::{AbortFuture, DefaultStage, Migrator, Operation, OperationRequest, OperationResult, Outcome};

#[wasm_bindgen]
pub struct WasmMigrator {
    pub(super) inner: Migrator<JsValue>,
}

impl WasmMigrator {
    pub fn new(inner: Migrator<JsValue>) -> Self {
        WasmMigrator { inner }
    }
}

/// The default stage the hints name, or the caller's value read as text.
fn hinted_default(hints: u32, default: &JsValue) -> DefaultStage {
    match stage_at(hints & Hint::StageBits as u32) {
        Some(stage) => DefaultStage::Valid(stage),
        None => DefaultStage::Invalid(super::stage::printed(default)),
    }
}

/// The caller's abort signal as the core's abort future, when the hints say there is one.
fn abort_of(hints: u32, pending: &JsValue) -> Result<Option<AbortFuture<JsValue>>, JsValue> {
    if hints & Hint::Signal as u32 == 0 {
        return Ok(None);
    }
    let signal = bridge::signal_of(pending);
    if signal.is_undefined() {
        let given = get(pending, "signal");
        // The owner, as the facade names it (a cold path: read off the pending operation).
        let class = if get(pending, "launchDarklyShape").is_truthy() { "LDMigration" } else { "Migrator" };
        let method = if hints & Hint::Write as u32 != 0 { "write" } else { "read" };
        let message = format!("{class}#{method}: options.signal must be an AbortSignal, {}", got(&given));
        return Err(Error::Type(message).into());
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
    let flag_key = op_flag_key(&flag_key, hints & Hint::SameKey as u32 != 0)?;
    let abort = abort_of(hints, pending)?;
    let default_stage = hinted_default(hints, &default);
    Ok(OperationRequest { flag_key, context, default_stage, payload: Some(payload), abort })
}

/// One origin's part of a result object: its `Side`, and its value or error.
fn side(r: &OperationResult<JsValue>) -> (u32, &JsValue) {
    let side = match (r.origin, &r.result) {
        (Origin::Old, Ok(_)) => Side::OldSucceeded,
        (Origin::Old, Err(_)) => Side::OldFailed,
        (Origin::New, Ok(_)) => Side::NewSucceeded,
        (Origin::New, Err(_)) => Side::NewFailed,
    };
    (side as u32, r.result.as_ref().unwrap_or_else(|e| e))
}

/// Settles the facade's promise with what the core answered.
fn answer(pending: &JsValue, operation: Operation, answered: Result<&Outcome<JsValue>, &JsValue>) {
    match answered {
        Ok(outcome) => resolve(pending, operation, outcome),
        Err(e) => bridge::reject_pending(pending, e),
    }
}

/// Hands an outcome to the facade's promise, shaped as the operation's result.
fn resolve(pending: &JsValue, operation: Operation, outcome: &Outcome<JsValue>) {
    let (first, payload) = side(&outcome.authoritative);
    match (operation, &outcome.non_authoritative) {
        (Operation::Read, _) => bridge::resolve_read(pending, first, payload),
        (Operation::Write, None) => {
            bridge::resolve_write(pending, first, payload, Side::None as u32, &JsValue::UNDEFINED);
        }
        (Operation::Write, Some(second)) => {
            let (second, second_payload) = side(second);
            bridge::resolve_write(pending, first, payload, second, second_payload);
        }
    }
}

#[wasm_bindgen]
impl WasmMigrator {
    /// Runs a read or a write (`hints` says which, and what else the facade knows: see
    /// `Hint`) and settles `pending`, the facade's `{resolve, reject, signal}`.
    pub fn run(
        &self,
        flag_key: JsValue,
        hints: u32,
        context: JsValue,
        default_stage: JsValue,
        payload: JsValue,
        pending: JsValue,
    ) {
        let operation = if hints & Hint::Write as u32 != 0 { Operation::Write } else { Operation::Read };
        let request = match request(flag_key, hints, context, default_stage, payload, &pending) {
            Ok(request) => request,
            Err(e) => return bridge::reject_pending(&pending, &e),
        };
        // One closure type for both cases: `Migrator::run` and its flows are generic over it, and a
        // second instantiation cost 6.6 KB of gzipped wasm. With a `waitUntil`, `pending` also
        // resolves its promise when the operation (background part included) ends.
        let wait_until = hints & Hint::WaitUntil as u32 != 0;
        let pending = Rc::new(pending);
        let answering = pending.clone();
        let run = self.inner.run(operation, request, move |answered, background| {
            let handed =
                if background && wait_until { bridge::call_result(bridge::hand_over(&answering)) } else { Ok(()) };
            answer(&answering, operation, answered);
            handed
        });
        // `pending` carries the facade's `held` list, which keeps the functions the core calls
        // (js/bridge/held.js): this task keeps it until the operation, background part included,
        // has ended.
        crate::util::task::spawn(async move {
            run.await;
            if wait_until {
                bridge::part_ended(&pending);
            }
        });
    }

    /// The kept mismatches as a fresh array of `Mismatch` objects, oldest first.
    pub fn mismatches(&self) -> js_sys::Array {
        self.inner.mismatches().iter().map(|m| super::mismatches::mismatch_object(m)).collect()
    }

    /// A promise that resolves when every background part started before the call has ended.
    pub fn settled(&self) -> js_sys::Promise {
        let settled = self.inner.settled();
        super::promise::promise(async move {
            settled.await;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// The statistics as plain data (`null` for a latency not measured yet, plain objects).
    pub fn stats(&self) -> JsValue {
        super::stats::stats_object(&self.inner.stats())
    }

    /// `guard(flagKey)`: `{ state, since, reason }` of the flag key's guard.
    pub fn guard(&self, flag_key: JsValue) -> Result<JsValue, JsValue> {
        let key = super::value::string_arg(&flag_key, "Migrator#guard: flagKey")?;
        Ok(super::guard::flag_object(&self.inner.guard(&key)))
    }

    /// The guard-state gauge's observations, `[value, attributes]` per flag key.
    #[wasm_bindgen(js_name = guardGauges)]
    pub fn guard_gauges(&self) -> js_sys::Array {
        super::guard::gauge_observations(&self.inner.guard_gauges())
    }

    #[wasm_bindgen(js_name = resetStats)]
    pub fn reset_stats(&self) {
        self.inner.reset_stats();
    }
}
