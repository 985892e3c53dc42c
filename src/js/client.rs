//! A JavaScript flag client as the core's `MigrationClient`.
//!
//! The client is held as the caller's object alone, through a weak reference (the facade keeps
//! the object: js/bridge/held.js): every method is looked up on it when it is called (a stub
//! installed after `build()` takes effect on the next operation), by the bridge, in the same call
//! that invokes it.

use std::cell::RefCell;

use futures::FutureExt;
use wasm_bindgen::prelude::*;

use super::bridge;
use super::codes::{Answer, AnswerField, TrackerMethod};
use super::delegation::{JsExternalTracker, TRACKER_METHODS};
use super::event::send_own_event;
use super::flag_key::flag_key_js;
use super::intern::intern;
use super::promise::{answered, wait};
use super::record;
use super::stage::stage_at;
use super::value::{finite_f64, got, integer_f64, method};
use crate::error::Error;
use crate::migration::client::Asked;
use crate::migration::event::CheckRatioOnWire;
use crate::migration::event::MigrationOpEvent;
use crate::migration::{MigrationClient, OfferedTracker, ServedEvaluation, Stage};

pub struct JsClient {
    /// The weak reference `bridge::weakly` made: the facade keeps the client (js/bridge/held.js).
    target: JsValue,
    check_ratio_on_wire: CheckRatioOnWire,
}

impl JsClient {
    /// `client` checked to have `migrationVariation`, held weakly: whoever keeps this keeps the
    /// client itself too (a migrator's facade). The `migrationVariation` export needs no one to:
    /// it asks the client at once, in the caller's call (its task is polled there), and only that.
    /// `owner`: who was given it, first in the message when it is not a client.
    pub fn from_js(client: &JsValue, owner: &str) -> Result<Self, Error> {
        method(client, "migrationVariation").ok_or_else(|| {
            Error::Type(format!("{owner}: client must be an object with a migrationVariation method, {}", got(client)))
        })?;
        Ok(JsClient { target: bridge::weakly(client), check_ratio_on_wire: CheckRatioOnWire::OmittedWhenOne })
    }

    /// This client, asking for every check ratio in its events when `always`.
    pub fn with_check_ratio_always(mut self, always: bool) -> Self {
        if always {
            self.check_ratio_on_wire = CheckRatioOnWire::Always;
        }
        self
    }
}

/// An answer object's fields as the bridge's `readAnswer` hands them over.
struct AnswerFields {
    numbers: [f64; record::RECORD_SLOTS],
    reason: Option<JsValue>,
    tracker: Option<JsValue>,
}

impl AnswerFields {
    fn number(&self, field: AnswerField) -> f64 {
        self.numbers.get(field as usize).copied().unwrap_or(f64::NAN)
    }
}

// Why a thread_local: `answerFields` is an export the bridge calls with a slot id and no handle
// to the operation that waits, so what it hands over waits here, by id, for that operation
// (usually one entry; none is left once the operations that asked have taken theirs).
thread_local! {
    /// Answer objects read by the bridge, by slot id, until the waiting operation takes them.
    static ANSWERS: RefCell<Vec<(u32, AnswerFields)>> = const { RefCell::new(Vec::new()) };
}

/// Called by the bridge with the references of a flag client's answer object, its numbers in the
/// record (`AnswerField`; each property read in its own `try`: one whose read throws is absent).
/// For the answer a promise resolved to, `AnswerField::Settles` is its `Answer` code, and slot
/// `id` is settled with it in the same call.
#[wasm_bindgen(js_name = answerFields)]
pub fn answer_fields(id: u32, reason: JsValue, tracker: JsValue) {
    let numbers = record::read();
    let mut fields = AnswerFields { numbers, reason: None, tracker: None };
    fields.reason = (fields.number(AnswerField::HasReason) == 1.0).then_some(reason);
    fields.tracker = (fields.number(AnswerField::HasTracker) == 1.0).then_some(tracker);
    let settles = fields.number(AnswerField::Settles);
    ANSWERS.with(|a| a.borrow_mut().push((id, fields)));
    if !settles.is_nan() {
        answered(id, settles as u32);
    }
}

fn take_fields(id: u32) -> Option<AnswerFields> {
    ANSWERS.with(|a| {
        let mut a = a.borrow_mut();
        let at = a.iter().position(|(i, _)| *i == id)?;
        Some(a.swap_remove(at).1)
    })
}

fn served_from_fields(mut f: AnswerFields, client: &JsValue) -> ServedEvaluation<JsValue> {
    // NaN (no method missing) reads as no `TrackerMethod`: `NaN as u32` would be 0, `Op`.
    let missing = Some(f.number(AnswerField::MissingMethod)).filter(|n| !n.is_nan());
    let missing = missing.and_then(|n| TrackerMethod::from_code(n as u32));
    let tracker = f.tracker.take().map(|target| match missing.and_then(|m| TRACKER_METHODS.get(m as usize)) {
        Some(missing) => OfferedTracker::Unusable { missing: (*missing).to_string() },
        None => OfferedTracker::Usable(Box::new(JsExternalTracker { target, client: client.clone() })),
    });
    ServedEvaluation {
        value: stage_at(f.number(AnswerField::Stage) as u32),
        variation: integer_f64(f.number(AnswerField::Variation)),
        reason: f.reason.take(),
        version: integer_f64(f.number(AnswerField::Version)),
        check_ratio: finite_f64(f.number(AnswerField::CheckRatio)),
        sampling_ratio: finite_f64(f.number(AnswerField::SamplingRatio)),
        tracker,
        takes_events: None,
    }
}

/// What an `Answer` code (and, for objects, the fields handed over for slot `id`) says; a
/// tracker it carries sends its event to `client`.
fn served_from_code(code: u32, id: u32, client: &JsValue) -> Result<ServedEvaluation<JsValue>, JsValue> {
    let takes_events = code & Answer::TakesEvents as u32 != 0;
    let mut served = match Answer::from_code(code & !(Answer::TakesEvents as u32)) {
        Some(Answer::Threw) => return Err(bridge::take_thrown()),
        Some(Answer::Object) => match take_fields(id) {
            Some(fields) => served_from_fields(fields, client),
            None => ServedEvaluation::stage(None),
        },
        Some(stage) => ServedEvaluation::stage(stage_at(stage as u32)),
        None => ServedEvaluation::stage(None),
    };
    served.takes_events = Some(takes_events);
    Ok(served)
}

/// Reads an evaluation object the caller built by hand (`new OpTracker(…, evaluation, …)`).
pub fn served_from(answer: &JsValue) -> ServedEvaluation<JsValue> {
    let wait = wait();
    let id = wait.id();
    let code = bridge::read_answer(answer, id);
    wait.release();
    served_from_code(code, id, &JsValue::UNDEFINED).unwrap_or_else(|_| ServedEvaluation::stage(None))
}

impl MigrationClient<JsValue> for JsClient {
    fn migration_variation(&self, flag_key: &std::rc::Rc<str>, context: &JsValue, default: Stage) -> Asked<JsValue> {
        let mut wait = wait();
        let id = wait.id();
        let key = flag_key_js(flag_key);
        let code = bridge::ask_client(&self.target, &key, context, intern(default.as_str()), id);
        if code != Answer::Pending as u32 {
            wait.release();
            return Asked::Now(served_from_code(code, id, &self.target));
        }
        if let Some(r) = wait.take_report() {
            return Asked::Now(r.outcome.and_then(|_| served_from_code(r.answer, id, &self.target)));
        }
        let client = self.target.clone();
        Asked::Later(wait.map(move |r| r.outcome.and_then(|_| served_from_code(r.answer, id, &client))).boxed_local())
    }

    fn tracks_events(&self) -> bool {
        bridge::takes_events(&self.target)
    }

    fn track_migration_op(&self, event: &MigrationOpEvent<JsValue>) -> Result<(), JsValue> {
        send_own_event(&self.target, event)
    }

    fn check_ratio_on_wire(&self) -> CheckRatioOnWire {
        self.check_ratio_on_wire
    }
}
