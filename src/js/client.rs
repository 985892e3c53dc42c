//! A JavaScript flag client as the core's `MigrationClient`.
//!
//! The client is held as the caller's object alone: every method is looked up on it when it is
//! called (a stub installed after `build()` takes effect on the next operation), by the bridge,
//! in the same call that invokes it.

use std::cell::RefCell;

use futures::FutureExt;
use wasm_bindgen::prelude::*;

use super::bridge::{self, with, Bridge};
use super::delegation::{JsExternalTracker, TRACKER_METHODS};
use super::event::send_own_event;
use super::promise::Wait;
use super::stage::stage_at;
use super::value::{finite_f64, flag_key_js, got, integer_f64, intern, method};
use crate::error::Error;
use crate::migration::client::Asked;
use crate::migration::event::CheckRatioOnWire;
use crate::migration::{MigrationClient, OfferedTracker, OutgoingEvent, ServedEvaluation, Stage};

#[wasm_bindgen]
extern "C" {
    /// `client.migrationVariation(flagKey, context, defaultStage)`, the method looked up now. The
    /// answer is classified by the `ANSWER_*` codes (an object answer's fields are handed to
    /// `answerFields(id, …)` first); a promise answer returns `ANSWER_PENDING` and later reports
    /// its code as `settlePromise(id, ok, reason, code)`. A throw returns `ANSWER_THREW` with the
    /// error kept for `takeError`.
    #[wasm_bindgen(method, js_name = askClient)]
    fn ask_client(
        this: &Bridge,
        client: &JsValue,
        flag_key: &JsValue,
        context: &JsValue,
        default: &JsValue,
        id: u32,
    ) -> i32;

    /// Classifies an evaluation object the caller built as `askClient` classifies an answer
    /// (its fields handed to `answerFields(id, …)`).
    #[wasm_bindgen(method, js_name = readAnswer)]
    fn read_answer(this: &Bridge, answer: &JsValue, id: u32) -> i32;

    /// `client.trackMigrationOp(event)` (the event `createEvent` kept when `event` is
    /// undefined), looked up now: 0 sent, 1 it threw (kept for `takeError`), 2 the client has
    /// no such method now.
    #[wasm_bindgen(method, js_name = sendEvent)]
    fn send_event(this: &Bridge, client: &JsValue, event: &JsValue) -> i32;
}

/// How the bridge classifies a flag client's answer (`askClient`, `readAnswer`): 0–5 a stage
/// (its index in `Stage::ALL`), or one of these; `ANSWER_TAKES_EVENTS` is added when the client
/// had a `trackMigrationOp` method when it was asked. The facade reads them from
/// `protocol()` (bridge.rs) once.
pub const ANSWER_NOT_A_STAGE: i32 = 6;
pub const ANSWER_OBJECT: i32 = 7;
pub const ANSWER_THREW: i32 = 8;
pub const ANSWER_TAKES_EVENTS: i32 = 16;
/// The answer is a promise: its code arrives through the slot.
pub const ANSWER_PENDING: i32 = -1;

pub struct JsClient {
    target: JsValue,
    check_ratio_on_wire: CheckRatioOnWire,
}

impl JsClient {
    pub fn from_js(client: &JsValue) -> Result<Self, Error> {
        method(client, "migrationVariation").ok_or_else(|| {
            Error::Type(format!("client must be an object with a migrationVariation method, {}", got(client)))
        })?;
        Ok(JsClient { target: client.clone(), check_ratio_on_wire: CheckRatioOnWire::OmittedWhenOne })
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
    stage: i32,
    variation: f64,
    reason: Option<JsValue>,
    version: f64,
    check_ratio: f64,
    sampling_ratio: f64,
    tracker: Option<JsValue>,
    /// Index in the tracker method list of the first one that is not a function; -1: none.
    missing: i32,
}

thread_local! {
    /// Answer objects read by the bridge, by slot id, until the waiting operation takes them.
    static ANSWERS: RefCell<Vec<(u32, AnswerFields)>> = const { RefCell::new(Vec::new()) };
}

/// Called by the bridge with the fields of a flag client's answer object (each read in its own
/// `try`: a property whose read throws is undefined). `stage` is the served value's index in
/// `Stage::ALL`, or -1; `present` tells which of `reason` (bit 0, an object) and `tracker`
/// (bit 1, not null or undefined) were given, so that no presence check crosses back. For the
/// answer a promise resolved to, `settle_code` is its answer code, and slot `id` is settled too.
#[allow(clippy::too_many_arguments)]
#[wasm_bindgen(js_name = answerFields)]
pub fn answer_fields(
    id: u32,
    stage: i32,
    variation: f64,
    reason: JsValue,
    version: f64,
    check_ratio: f64,
    sampling_ratio: f64,
    tracker: JsValue,
    present: u32,
    missing: i32,
    settle_code: f64,
) {
    let reason = (present & 1 != 0).then_some(reason);
    let tracker = (present & 2 != 0).then_some(tracker);
    let fields = AnswerFields { stage, variation, reason, version, check_ratio, sampling_ratio, tracker, missing };
    ANSWERS.with(|a| a.borrow_mut().push((id, fields)));
    // An answer the client's promise resolved to: its settlement comes in the same call.
    if !settle_code.is_nan() {
        super::promise::settle_promise(id, true, JsValue::UNDEFINED, settle_code);
    }
}

fn take_fields(id: u32) -> Option<AnswerFields> {
    ANSWERS.with(|a| {
        let mut a = a.borrow_mut();
        let at = a.iter().position(|(i, _)| *i == id)?;
        Some(a.swap_remove(at).1)
    })
}

fn served_from_fields(f: AnswerFields) -> ServedEvaluation<JsValue> {
    let tracker = f.tracker.map(|target| match usize::try_from(f.missing).ok().and_then(|i| TRACKER_METHODS.get(i)) {
        Some(missing) => OfferedTracker::Unusable { missing: (*missing).to_string() },
        None => OfferedTracker::Usable(Box::new(JsExternalTracker { target })),
    });
    ServedEvaluation {
        value: stage_at(f.stage),
        variation: integer_f64(f.variation),
        reason: f.reason,
        version: integer_f64(f.version),
        check_ratio: finite_f64(f.check_ratio),
        sampling_ratio: finite_f64(f.sampling_ratio),
        tracker,
        takes_events: None,
    }
}

/// What an answer code (and, for objects, the fields handed over for slot `id`) says.
fn served_from_code(code: i32, id: u32) -> Result<ServedEvaluation<JsValue>, JsValue> {
    let takes_events = code & ANSWER_TAKES_EVENTS != 0;
    let code = code & !ANSWER_TAKES_EVENTS;
    let mut served = match code {
        ANSWER_THREW => return Err(bridge::take_error()),
        ANSWER_OBJECT => match take_fields(id) {
            Some(fields) => served_from_fields(fields),
            None => ServedEvaluation::stage(None),
        },
        ANSWER_NOT_A_STAGE => ServedEvaluation::stage(None),
        index => ServedEvaluation::stage(stage_at(index)),
    };
    served.takes_events = Some(takes_events);
    Ok(served)
}

/// Reads an evaluation object the caller built by hand (`new OpTracker(…, evaluation, …)`).
pub fn served_from(answer: &JsValue) -> ServedEvaluation<JsValue> {
    let wait = Wait::new();
    let id = wait.id();
    let code = with(|b| b.read_answer(answer, id)).unwrap_or(ANSWER_NOT_A_STAGE);
    wait.release();
    served_from_code(code, id).unwrap_or_else(|_| ServedEvaluation::stage(None))
}

impl MigrationClient<JsValue> for JsClient {
    fn migration_variation(&self, flag_key: &std::rc::Rc<str>, context: &JsValue, default: Stage) -> Asked<JsValue> {
        let mut wait = Wait::new();
        let id = wait.id();
        let key = flag_key_js(flag_key);
        let code =
            with(|b| b.ask_client(&self.target, &key, context, intern(default.as_str()), id)).unwrap_or(ANSWER_THREW);
        if code != ANSWER_PENDING {
            wait.release();
            return Asked::Now(served_from_code(code, id));
        }
        if let Some((settled, code)) = wait.take_now() {
            return Asked::Now(settled.and_then(|_| served_from_code(code as i32, id)));
        }
        Asked::Later(
            wait.map(move |(settled, code)| settled.and_then(|_| served_from_code(code as i32, id))).boxed_local(),
        )
    }

    fn tracks_events(&self) -> bool {
        method(&self.target, "trackMigrationOp").is_some()
    }

    fn track_migration_op(&self, event: OutgoingEvent<JsValue>) -> Result<(), JsValue> {
        match event {
            OutgoingEvent::Own(e) => send_own_event(&self.target, &e),
            OutgoingEvent::External(event) => match with(|b| b.send_event(&self.target, &event)) {
                Some(1) => Err(bridge::take_error()),
                _ => Ok(()),
            },
        }
    }

    fn check_ratio_on_wire(&self) -> CheckRatioOnWire {
        self.check_ratio_on_wire
    }
}
