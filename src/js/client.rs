//! A JavaScript `MigrationClient` and a flag system's own tracker as core trait objects.
//!
//! Both hold only the caller's object: every method is looked up on it when it is called (a stub
//! installed after `build()` takes effect on the next operation), by the bridge, in the same
//! call that invokes it.

use std::cell::RefCell;

use futures::FutureExt;
use wasm_bindgen::prelude::*;

use super::bridge::{self, ANSWER_NOT_A_STAGE, ANSWER_OBJECT, ANSWER_PENDING, ANSWER_TAKES_EVENTS, ANSWER_THREW};
use super::event::send_own_event;
use super::promise::Wait;
use super::value::{finite_f64, flag_key_js, got, integer_f64, intern, method, type_error};
use crate::migration::client::Asked;
use crate::migration::{
    ExternalTracker, MigrationClient, OfferedTracker, Operation, Origin, OutgoingEvent, ServedEvaluation, Stage,
};

pub struct JsClient {
    target: JsValue,
}

impl JsClient {
    pub fn from_js(client: &JsValue) -> Result<Self, JsValue> {
        method(client, "migrationVariation").ok_or_else(|| {
            type_error(&format!("client must be an object with a migrationVariation method, {}", got(client)))
        })?;
        Ok(JsClient { target: client.clone() })
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

/// The tracker methods, in the order the bridge's `TRACKER_METHODS` lists them.
const TRACKER_METHODS: [&str; 6] = ["op", "invoked", "latency", "error", "consistency", "createEvent"];

fn stage_at(index: i32) -> Option<Stage> {
    usize::try_from(index).ok().and_then(|i| Stage::ALL.get(i).copied())
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
    let code = bridge::read_answer(answer, id);
    wait.release();
    served_from_code(code, id).unwrap_or_else(|_| ServedEvaluation::stage(None))
}

impl MigrationClient<JsValue> for JsClient {
    fn migration_variation(&self, flag_key: &std::rc::Rc<str>, context: &JsValue, default: Stage) -> Asked<JsValue> {
        let mut wait = Wait::new();
        let id = wait.id();
        let code = bridge::ask_client(&self.target, &flag_key_js(flag_key), context, intern(default.as_str()), id);
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
            OutgoingEvent::External(event) => bridge::send_event(&self.target, &event),
        }
    }
}

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
    target: JsValue,
}

fn origin_js(origin: Origin) -> &'static JsValue {
    intern(origin.as_str())
}

impl JsExternalTracker {
    fn call(&self, method: u32, a: &JsValue, b: &JsValue) -> Result<(), JsValue> {
        bridge::tracker_call(&self.target, method, a, b)
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
        let mask = bridge::tracker_origin(&self.target, origin_js(origin), latency_ms.unwrap_or(f64::NAN), failed);
        if mask == 0 {
            return Vec::new();
        }
        // What threw, in method order, as the bridge kept it.
        let mut thrown = bridge::take_error_list().into_iter();
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
        Some(match bridge::tracker_consistency(&self.target, comparison, old, new) {
            -2 => Err(bridge::take_error()),
            answer => Ok((answer >= 0).then_some(answer == 1)),
        })
    }
    fn create_event(&self) -> Result<Option<JsValue>, JsValue> {
        // The bridge keeps the event it made for the `track_migration_op` call that follows at
        // once (no JavaScript runs in between); undefined stands for it.
        bridge::create_event(&self.target).map(|made| made.then_some(JsValue::UNDEFINED))
    }
    fn handle(&self) -> JsValue {
        self.target.clone()
    }
}
