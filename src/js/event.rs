//! cutover's own `migration_op` event as a JavaScript object, built by the bridge in one call
//! from the numbers laid out here in the record, with the caller's own context object in it. The
//! layout and the builder both follow the wire format's tables (`migration/event_format.rs`): the
//! numbers in the order of its fields, as many for each as `Holds::numbers` says, and the
//! builder, `js/bridge/event_format.js`, generated from the same tables by
//! `scripts/event_format.rs`.
//!
//! Not through serde-wasm-bindgen: the event is the one per-operation conversion, and the same
//! serde type (`MigrationOpEvent`, its context kept by reference with `preserve`) measured
//! 3.33 µs per event through `Serializer::json_compatible()` against 0.221 µs for this one call
//! — 15 times slower — in one run of one build (`bash bench/event-conversion.sh`, Node 20, the
//! shared 2-core machine, 2026-12-01). The statistics snapshot does not go through
//! serde-wasm-bindgen either: `stats.rs` builds it field by field (its figures are there).

use wasm_bindgen::prelude::*;

use super::bridge::{self, call_result};
use super::flag_key::flag_key_js;
use super::record::{self, RECORD_SLOTS};
use crate::migration::event::{Measurement, MigrationOpEvent, OriginFlags};
use crate::migration::event_format::{numbers_of, slot_of, Holds, EVENT};
use crate::migration::reason::{ErrorKind, Reason};
use crate::migration::{Operation, Stage};

/// The event's references, as `ownEvent`/`buildEvent` take them beside the record.
struct EventRefs {
    flag_key: JsValue,
    reason: JsValue,
}

/// Per-origin flags as bits: old 1, new 2 (`Holds::numbers`).
fn flags(values: &OriginFlags) -> f64 {
    f64::from(u32::from(values.old) | u32::from(values.new) << 1)
}

/// The slot of the number of the field that holds `holds` (its first; `RECORD_SLOTS`, never
/// written, when none does), a constant: the layout reads no table at run time.
const fn slot(holds: Holds) -> usize {
    match slot_of(holds) {
        Some(slot) => slot,
        None => RECORD_SLOTS,
    }
}

// Every number of the event has its slot in the record.
const _: () = assert!(numbers_of(EVENT.fields) <= RECORD_SLOTS);

fn stage_code(stage: Stage) -> f64 {
    stage.index() as f64
}

/// Writes the event's numbers into the record, each in the slot of its field (NaN leaves one
/// out; a flag absent is 0), and returns its references.
fn lay_out(event: &MigrationOpEvent<JsValue>) -> EventRefs {
    let e = &event.evaluation;
    let mut numbers = [f64::NAN; RECORD_SLOTS];
    let mut put = |slot: usize, value: f64| {
        if let Some(n) = numbers.get_mut(slot) {
            *n = value;
        }
    };
    put(const { slot(Holds::CreationDate) }, event.creation_date as f64);
    // The index in `operationNames` (stage.rs tells the facade them in this order).
    put(const { slot(Holds::Operation) }, if event.operation == Operation::Read { 0.0 } else { 1.0 });
    put(const { slot(Holds::Served) }, stage_code(e.value));
    put(const { slot(Holds::DefaultStage) }, stage_code(e.default));
    put(const { slot(Holds::Variation) }, e.variation.map_or(f64::NAN, |v| v as f64));
    put(const { slot(Holds::Version) }, e.version.map_or(f64::NAN, |v| v as f64));
    let ratio = event.sampling_ratio;
    put(const { slot(Holds::SamplingRatio) }, if ratio.is_one() { f64::NAN } else { ratio.0 });
    put(const { slot(Holds::Invoked) }, 0.0);
    put(const { slot(Holds::Errors) }, 0.0);
    for m in &event.measurements {
        match m {
            Measurement::Invoked { values } => put(const { slot(Holds::Invoked) }, flags(values)),
            Measurement::Consistent { value, sampling_ratio } => {
                put(const { slot(Holds::Consistent) }, f64::from(u8::from(*value)));
                put(const { slot(Holds::CheckRatio) }, sampling_ratio.map_or(f64::NAN, |r| r.0));
            }
            Measurement::Latency { values } => {
                // One number per origin, in origin order.
                put(const { slot(Holds::Latencies) }, values.old.unwrap_or(f64::NAN));
                put(const { slot(Holds::Latencies) + 1 }, values.new.unwrap_or(f64::NAN));
            }
            Measurement::Error { values } => put(const { slot(Holds::Errors) }, flags(values)),
        }
    }
    record::write(numbers);
    // The flag system's reason object as it was given; cutover's own error reason as a fresh
    // object (off the hot path: only a failed evaluation has one).
    let reason = match &e.reason {
        Some(Reason::Given(reason)) => reason.clone(),
        Some(Reason::Error(kind)) => error_reason(*kind),
        None => JsValue::UNDEFINED,
    };
    EventRefs { flag_key: flag_key_js(&e.key), reason }
}

/// `{ kind: 'ERROR', errorKind }`, as `Reason`'s serde form writes it (reason.rs pins that form).
fn error_reason(kind: ErrorKind) -> JsValue {
    let object = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&object, &JsValue::from_str("kind"), &JsValue::from_str("ERROR"));
    let _ = js_sys::Reflect::set(&object, &JsValue::from_str("errorKind"), &JsValue::from_str(kind.as_str()));
    object.into()
}

/// The event as a JavaScript object (for `OpTracker#build()`).
pub fn event_object(event: &MigrationOpEvent<JsValue>) -> JsValue {
    let refs = lay_out(event);
    bridge::build_event(&event.context, &refs.flag_key, &refs.reason)
}

/// Builds the event and hands it to the client's `trackMigrationOp`, looked up now.
pub fn send_own_event(client: &JsValue, event: &MigrationOpEvent<JsValue>) -> Result<(), JsValue> {
    let refs = lay_out(event);
    call_result(bridge::own_event(client, &event.context, &refs.flag_key, &refs.reason))
}

/// The same event through serde-wasm-bindgen, timed against [`event_object`]
/// (`bench/event-conversion.sh`; built only with the `bench-event` feature).
#[cfg(feature = "bench-event")]
#[path = "event_bench.rs"]
mod bench;
