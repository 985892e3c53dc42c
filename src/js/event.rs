//! cutover's own `migration_op` event as a JavaScript object, built by the bridge in one call
//! from the fields the core laid out, with the caller's own context object in it.
//!
//! Not through serde-wasm-bindgen: the event is the one per-operation conversion, and the same
//! serde type (`MigrationOpEvent`, its context kept by reference with `preserve`) measured
//! 3.33 µs per event through `Serializer::json_compatible()` against 0.221 µs for this one call
//! — 15 times slower — in one run of one build (`bash bench/event-conversion.sh`, Node 20, the
//! shared 2-core machine, 2026-12-01). The statistics snapshot, off the hot path, does go
//! through serde-wasm-bindgen.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::bridge::{self, with, Bridge};
use super::value::{flag_key_js, intern};
use crate::migration::event::{Measurement, MigrationOpEvent};
use crate::migration::reason::Reason;
use crate::migration::Origin;

#[wasm_bindgen]
extern "C" {
    /// Builds a `migration_op` event from fields the core laid out (a NaN number or a negative
    /// `consistent` is a field left out) with the caller's own context object. With a client,
    /// hands it to `client.trackMigrationOp` (looked up now): 0 sent, 1 it threw (kept for
    /// `takeError`), 2 the client has no such method now. With `client` undefined, keeps it for
    /// `takeEvent` and returns 0.
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(method, js_name = ownEvent)]
    fn own_event(
        this: &Bridge,
        client: &JsValue,
        creation_date: f64,
        operation: &JsValue,
        context: &JsValue,
        flag_key: &JsValue,
        value: &JsValue,
        default: &JsValue,
        reason: &JsValue,
        variation: f64,
        version: f64,
        sampling_ratio: f64,
        invoked: u32,
        consistent: i32,
        check_ratio: f64,
        latency_old: f64,
        latency_new: f64,
        errors: u32,
    ) -> i32;

    /// The event `ownEvent` kept.
    #[wasm_bindgen(method, js_name = takeEvent)]
    fn take_event(this: &Bridge) -> JsValue;

}

/// The fields of an own event, as `Bridge::own_event` takes them after the client.
struct OwnEventFields<'a> {
    pub creation_date: f64,
    pub operation: &'a JsValue,
    pub context: &'a JsValue,
    pub flag_key: &'a JsValue,
    pub value: &'a JsValue,
    pub default: &'a JsValue,
    pub reason: &'a JsValue,
    pub variation: f64,
    pub version: f64,
    pub sampling_ratio: f64,
    /// Bit 0: old invoked, bit 1: new invoked.
    pub invoked: u32,
    pub consistent: i32,
    pub check_ratio: f64,
    pub latency: [f64; 2],
    /// Bit 0: old errored, bit 1: new errored.
    pub errors: u32,
}

/// Builds an own event and sends it to `client`, or keeps it when `client` is undefined; see
/// `Bridge::own_event`.
fn own_event(client: &JsValue, f: &OwnEventFields<'_>) -> i32 {
    let [latency_old, latency_new] = f.latency;
    with(|b| {
        b.own_event(
            client,
            f.creation_date,
            f.operation,
            f.context,
            f.flag_key,
            f.value,
            f.default,
            f.reason,
            f.variation,
            f.version,
            f.sampling_ratio,
            f.invoked,
            f.consistent,
            f.check_ratio,
            latency_old,
            latency_new,
            f.errors,
        )
    })
    .unwrap_or(2)
}

/// The event the last `own_event` without a client built.
fn take_event() -> JsValue {
    with(Bridge::take_event).unwrap_or(JsValue::UNDEFINED)
}

fn flag(values: &crate::migration::event::OriginFlags) -> u32 {
    u32::from(values.old) | u32::from(values.new) << 1
}

/// Runs `f` with the event's fields as the bridge takes them.
fn with_fields<R>(event: &MigrationOpEvent<JsValue>, f: impl FnOnce(&OwnEventFields<'_>) -> R) -> R {
    let e = &event.evaluation;
    // The flag system's reason object as it was given; cutover's own error reason as a fresh
    // object (off the hot path: only a failed evaluation has one).
    let reason = match &e.reason {
        Some(Reason::Given(reason)) => reason.clone(),
        Some(Reason::Error(kind)) => {
            let serializer = serde_wasm_bindgen::Serializer::json_compatible();
            Reason::<()>::Error(*kind).serialize(&serializer).unwrap_or(JsValue::UNDEFINED)
        }
        None => JsValue::UNDEFINED,
    };
    let key = flag_key_js(&e.key);
    let mut fields = OwnEventFields {
        creation_date: event.creation_date as f64,
        operation: intern(event.operation.as_str()),
        context: &event.context,
        flag_key: &key,
        value: intern(e.value.as_str()),
        default: intern(e.default.as_str()),
        reason: &reason,
        variation: e.variation.map_or(f64::NAN, |v| v as f64),
        version: e.version.map_or(f64::NAN, |v| v as f64),
        sampling_ratio: if event.sampling_ratio.is_one() { f64::NAN } else { event.sampling_ratio.0 },
        invoked: 0,
        consistent: -1,
        check_ratio: f64::NAN,
        latency: [f64::NAN; 2],
        errors: 0,
    };
    // The core's wire order (`Measurements::to_wire`) is the bridge's too: invoked, consistent,
    // latency_ms, error, each present only when the core made it.
    for m in &event.measurements {
        match m {
            Measurement::Invoked { values } => fields.invoked = flag(values),
            Measurement::Consistent { value, sampling_ratio } => {
                fields.consistent = i32::from(*value);
                fields.check_ratio = sampling_ratio.map_or(f64::NAN, |r| r.0);
            }
            Measurement::Latency { values } => {
                for origin in [Origin::Old, Origin::New] {
                    let ms = if origin == Origin::Old { values.old } else { values.new };
                    if let (Some(ms), Some(slot)) = (ms, fields.latency.get_mut(origin.index())) {
                        *slot = ms;
                    }
                }
            }
            Measurement::Error { values } => fields.errors = flag(values),
        }
    }
    f(&fields)
}

/// The event as a JavaScript object (for `OpTracker#build()`).
pub fn event_object(event: &MigrationOpEvent<JsValue>) -> JsValue {
    with_fields(event, |fields| own_event(&JsValue::UNDEFINED, fields));
    take_event()
}

/// Builds the event and hands it to the client's `trackMigrationOp`, looked up now.
pub fn send_own_event(client: &JsValue, event: &MigrationOpEvent<JsValue>) -> Result<(), JsValue> {
    match with_fields(event, |fields| own_event(client, fields)) {
        1 => Err(bridge::take_error()),
        _ => Ok(()),
    }
}

/// The same event through serde-wasm-bindgen (the caller's context kept by reference), against
/// [`event_object`], timed in one run: `benchEventConversion(context, n, viaSerde)` returns the
/// milliseconds of `n` conversions. Built only with the `bench-event` feature
/// (`bench/event-conversion.sh`).
#[cfg(feature = "bench-event")]
mod bench {
    use serde::Serialize;
    use wasm_bindgen::prelude::*;

    use super::event_object;
    use crate::migration::event::{EvaluationDetail, MigrationOpEvent};
    use crate::migration::op_tracker::Evaluation;
    use crate::migration::reason::Reason;
    use crate::migration::{OpTracker, Operation, Origin, Stage};

    struct Preserved<'a>(&'a JsValue);

    impl Serialize for Preserved<'_> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serde_wasm_bindgen::preserve::serialize(self.0, serializer)
        }
    }

    /// A fixed-stage shadow read's event: both origins invoked and timed, a consistency check.
    fn sample(context: JsValue) -> Option<MigrationOpEvent<JsValue>> {
        let mut t = OpTracker::new("bench-flag", context, Evaluation::plain(Stage::Shadow, Stage::Off));
        t.operation(Operation::Read);
        for (origin, ms) in [(Origin::Old, 0.25), (Origin::New, 0.5)] {
            t.invoked(origin);
            t.latency(origin, ms).ok()?;
        }
        let host = super::super::host::js_host(&JsValue::UNDEFINED).ok()?;
        t.record_check(&host, Ok(true));
        t.build(1_700_000_000_000.0).ok()
    }

    #[wasm_bindgen(js_name = benchEventConversion)]
    pub fn bench_event_conversion(context: JsValue, n: u32, via_serde: bool) -> f64 {
        let Some(event) = sample(context) else { return f64::NAN };
        let preserved = MigrationOpEvent {
            kind: event.kind,
            creation_date: event.creation_date,
            operation: event.operation,
            context: Preserved(&event.context),
            evaluation: EvaluationDetail {
                key: event.evaluation.key.clone(),
                value: event.evaluation.value,
                default: event.evaluation.default,
                reason: event.evaluation.reason.as_ref().map(|r| match r {
                    Reason::Given(v) => Reason::Given(Preserved(v)),
                    Reason::Error(kind) => Reason::Error(*kind),
                }),
                variation: event.evaluation.variation,
                version: event.evaluation.version,
            },
            sampling_ratio: event.sampling_ratio,
            measurements: event.measurements.clone(),
        };
        let serializer = serde_wasm_bindgen::Serializer::json_compatible();
        let start = super::bridge::now().unwrap_or(0.0);
        for _ in 0..n {
            let object = if via_serde {
                preserved.serialize(&serializer).unwrap_or(JsValue::UNDEFINED)
            } else {
                event_object(&event)
            };
            drop(object);
        }
        super::bridge::now().unwrap_or(0.0) - start
    }
}
