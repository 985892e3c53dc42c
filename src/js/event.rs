//! cutover's own `migration_op` event as a JavaScript object, built by the bridge in one call
//! from the numbers the core laid out in the record, with the caller's own context object in it.
//!
//! Not through serde-wasm-bindgen: the event is the one per-operation conversion, and the same
//! serde type (`MigrationOpEvent`, its context kept by reference with `preserve`) measured
//! 3.33 µs per event through `Serializer::json_compatible()` against 0.221 µs for this one call
//! — 15 times slower — in one run of one build (`bash bench/event-conversion.sh`, Node 20, the
//! shared 2-core machine, 2026-12-01). The statistics snapshot, off the hot path, does go
//! through serde-wasm-bindgen.

use wasm_bindgen::prelude::*;

use super::bridge::{self, call_result};
use super::codes::EventField;
use super::flag_key::flag_key_js;
use super::record::{self, RECORD_SLOTS};
use crate::migration::event::{Measurement, MigrationOpEvent, OriginFlags};
use crate::migration::reason::{ErrorKind, Reason};
use crate::migration::{Operation, Stage};

/// The event's references, as `ownEvent`/`buildEvent` take them beside the record.
struct EventRefs {
    flag_key: JsValue,
    reason: JsValue,
}

fn flags(values: &OriginFlags) -> f64 {
    f64::from(u32::from(values.old) | u32::from(values.new) << 1)
}

fn stage_code(stage: Stage) -> f64 {
    stage.index() as f64
}

/// Writes the event's numbers into the record (`EventField`s; NaN leaves one out) and returns
/// its references.
fn lay_out(event: &MigrationOpEvent<JsValue>) -> EventRefs {
    let e = &event.evaluation;
    let mut numbers = [f64::NAN; RECORD_SLOTS];
    let mut put = |field: EventField, value: f64| {
        if let Some(slot) = numbers.get_mut(field as usize) {
            *slot = value;
        }
    };
    put(EventField::CreationDate, event.creation_date as f64);
    put(EventField::Operation, if event.operation == Operation::Read { 0.0 } else { 1.0 });
    put(EventField::Value, stage_code(e.value));
    put(EventField::Default, stage_code(e.default));
    put(EventField::Variation, e.variation.map_or(f64::NAN, |v| v as f64));
    put(EventField::Version, e.version.map_or(f64::NAN, |v| v as f64));
    put(EventField::SamplingRatio, if event.sampling_ratio.is_one() { f64::NAN } else { event.sampling_ratio.0 });
    put(EventField::Invoked, 0.0);
    put(EventField::Errors, 0.0);
    // The core's wire order (`Measurements::to_wire`) is the bridge's too: invoked, consistent,
    // latency_ms, error, each present only when the core made it.
    for m in &event.measurements {
        match m {
            Measurement::Invoked { values } => put(EventField::Invoked, flags(values)),
            Measurement::Consistent { value, sampling_ratio } => {
                put(EventField::Consistent, f64::from(u8::from(*value)));
                put(EventField::CheckRatio, sampling_ratio.map_or(f64::NAN, |r| r.0));
            }
            Measurement::Latency { values } => {
                put(EventField::LatencyOld, values.old.unwrap_or(f64::NAN));
                put(EventField::LatencyNew, values.new.unwrap_or(f64::NAN));
            }
            Measurement::Error { values } => put(EventField::Errors, flags(values)),
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
