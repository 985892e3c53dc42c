//! A JavaScript `MigrationClient` and a flag system's own tracker as core trait objects.

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use super::bridge;
use super::promise::settle;
use super::value::{finite, flag_key_js, got, integer, intern, method, to_js, type_error};
use crate::migration::{
    ExternalTracker, MigrationClient, OfferedTracker, Operation, Origin, OutgoingEvent, ServedEvaluation, Stage,
};

pub struct JsClient {
    target: JsValue,
    variation: Function,
    track: Option<Function>,
}

impl JsClient {
    pub fn from_js(client: &JsValue) -> Result<Self, JsValue> {
        let variation = method(client, "migrationVariation").ok_or_else(|| {
            type_error(&format!("client must be an object with a migrationVariation method, {}", got(client)))
        })?;
        Ok(JsClient { target: client.clone(), variation, track: method(client, "trackMigrationOp") })
    }
}

fn stage_of(value: &JsValue) -> Option<Stage> {
    bridge::stage(value)
}

/// Reads what `migrationVariation` returned: a stage string, or a `StageEvaluation` object.
pub fn served_from(answer: &JsValue) -> ServedEvaluation<JsValue> {
    if answer.is_string() {
        return ServedEvaluation::stage(stage_of(answer));
    }
    if !answer.is_object() {
        return ServedEvaluation::stage(None);
    }
    match bridge::read_answer(answer) {
        Some(fields) => served_from_fields(&fields),
        None => ServedEvaluation::stage(None),
    }
}

impl MigrationClient<JsValue> for JsClient {
    fn migration_variation(
        &self,
        flag_key: &str,
        context: &JsValue,
        default: Stage,
    ) -> LocalBoxFuture<'static, Result<ServedEvaluation<JsValue>, JsValue>> {
        let answer = self.variation.call3(&self.target, &flag_key_js(flag_key), context, intern(default.as_str()));
        match answer {
            Err(e) => futures::future::ready(Err(e)).boxed_local(),
            Ok(answer) => settle(answer).map(|r| r.map(|a| served_from(&a))).boxed_local(),
        }
    }

    fn tracks_events(&self) -> bool {
        self.track.is_some()
    }

    fn track_migration_op(&self, event: OutgoingEvent<JsValue>) -> Result<(), JsValue> {
        let Some(track) = &self.track else {
            return Ok(());
        };
        let event = match event {
            OutgoingEvent::Own(e) => to_js(&e.to_json()),
            OutgoingEvent::External(e) => e,
        };
        track.call1(&self.target, &event).map(|_| ())
    }
}

type Check = Box<dyn FnMut() -> Result<bool, JsValue>>;

thread_local! {
    static CHECKS: std::cell::RefCell<Vec<Check>> = const { std::cell::RefCell::new(Vec::new()) };
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

/// What the bridge's `readAnswer` lays out, in this order (js/api.js builds the same list):
/// `value, variationIndex, reason` (when an object), `flagVersion, checkRatio, samplingRatio,
/// tracker` (unless null), the name of the first of the six tracker methods that is not a
/// function (if any), then the six methods.
fn served_from_fields(fields: &Array) -> ServedEvaluation<JsValue> {
    let at = |i: u32| fields.get_unchecked(i);
    let tracker = at(6);
    let tracker = if tracker.is_undefined() {
        None
    } else if let Some(missing) = at(7).as_string() {
        Some(OfferedTracker::Unusable { missing })
    } else {
        let method = |i: u32| at(i).unchecked_into::<Function>();
        Some(OfferedTracker::Usable(Box::new(JsExternalTracker {
            target: tracker,
            op: method(8),
            invoked: method(9),
            latency: method(10),
            error: method(11),
            consistency: method(12),
            create_event: method(13),
        })))
    };
    let reason = at(2);
    ServedEvaluation {
        value: stage_of(&at(0)),
        variation: integer(&at(1)),
        reason: (!reason.is_undefined()).then_some(reason),
        version: integer(&at(3)),
        check_ratio: finite(&at(4)),
        sampling_ratio: finite(&at(5)),
        tracker,
    }
}

/// LaunchDarkly's `LDMigrationTracker` shape.
pub struct JsExternalTracker {
    target: JsValue,
    op: Function,
    invoked: Function,
    latency: Function,
    error: Function,
    consistency: Function,
    create_event: Function,
}

fn origin_js(origin: Origin) -> &'static JsValue {
    intern(origin.as_str())
}

impl ExternalTracker<JsValue> for JsExternalTracker {
    fn op(&self, op: Operation) -> Result<(), JsValue> {
        bridge::call_method(&self.op, &self.target, intern(op.as_str()), &JsValue::UNDEFINED)
    }
    fn invoked(&self, origin: Origin) -> Result<(), JsValue> {
        bridge::call_method(&self.invoked, &self.target, origin_js(origin), &JsValue::UNDEFINED)
    }
    fn latency(&self, origin: Origin, ms: f64) -> Result<(), JsValue> {
        bridge::call_method(&self.latency, &self.target, origin_js(origin), &JsValue::from_f64(ms))
    }
    fn error(&self, origin: Origin) -> Result<(), JsValue> {
        bridge::call_method(&self.error, &self.target, origin_js(origin), &JsValue::UNDEFINED)
    }
    fn consistency(&self, check: Box<dyn FnMut() -> Result<bool, JsValue>>) -> Result<(), JsValue> {
        // The tracker calls `check` synchronously, if at all. One long-lived JavaScript function
        // runs whichever check is on top of a stack (checks may nest through re-entrant calls),
        // instead of a new wasm closure per operation.
        CHECKS.with(|c| c.borrow_mut().push(check));
        let called =
            CHECK_FN.with(|f| bridge::call_method(&self.consistency, &self.target, f.as_ref(), &JsValue::UNDEFINED));
        CHECKS.with(|c| c.borrow_mut().pop());
        called
    }
    fn create_event(&self) -> Result<Option<JsValue>, JsValue> {
        let event = self.create_event.call0(&self.target)?;
        Ok((!event.is_undefined() && !event.is_null()).then_some(event))
    }
    fn handle(&self) -> JsValue {
        self.target.clone()
    }
}
