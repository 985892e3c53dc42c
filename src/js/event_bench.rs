//! The same event through serde-wasm-bindgen (the caller's context kept by reference), against
//! [`event_object`], timed in one run: `benchEventConversion(context, n, viaSerde)` returns the
//! milliseconds of `n` conversions. Built only with the `bench-event` feature
//! (`bench/event-conversion.sh`).

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
    let host = super::super::host::js_host(&JsValue::UNDEFINED, super::super::host::LoggerKeeper::Host).ok()?;
    t.record_check(&host, Ok(true));
    t.build(1_700_000_000_000.0).ok()
}

#[wasm_bindgen(js_name = benchEventConversion)]
pub fn bench_event_conversion(context: JsValue, n: u32, via_serde: bool) -> f64 {
    let Some(event) = sample(context) else { return f64::NAN };
    let preserved = MigrationOpEvent {
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
    let start = super::bridge::now();
    for _ in 0..n {
        let object = if via_serde {
            preserved.serialize(&serializer).unwrap_or(JsValue::UNDEFINED)
        } else {
            event_object(&event)
        };
        drop(object);
    }
    super::bridge::now() - start
}
