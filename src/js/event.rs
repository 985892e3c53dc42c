//! cutover's own `migration_op` event as a JavaScript object, built by the bridge in one call
//! from the fields the core laid out, with the caller's own context object in it.

use wasm_bindgen::prelude::*;

use super::bridge::{self, OwnEventFields};
use super::value::{flag_key_js, intern, to_js};
use crate::migration::event::{Measurement, MigrationOpEvent};
use crate::migration::Origin;

fn flag(values: &crate::migration::event::OriginFlags) -> u32 {
    u32::from(values.old) | u32::from(values.new) << 1
}

/// Runs `f` with the event's fields as the bridge takes them.
fn with_fields<R>(event: &MigrationOpEvent<JsValue>, f: impl FnOnce(&OwnEventFields<'_>) -> R) -> R {
    let e = &event.evaluation;
    let reason = e.reason.as_ref().map(to_js).unwrap_or(JsValue::UNDEFINED);
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
    with_fields(event, |fields| bridge::own_event(&JsValue::UNDEFINED, fields));
    bridge::take_event()
}

/// Builds the event and hands it to the client's `trackMigrationOp`, looked up now.
pub fn send_own_event(client: &JsValue, event: &MigrationOpEvent<JsValue>) -> Result<(), JsValue> {
    match with_fields(event, |fields| bridge::own_event(client, fields)) {
        1 => Err(bridge::take_error()),
        _ => Ok(()),
    }
}
