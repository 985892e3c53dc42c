//! `Migrator#stats()`'s plain object, built field by field in the order and shape of the core's
//! serde form (src/migration/stats.rs, whose native test pins it): serde-wasm-bindgen for this
//! one object cost the migrations wasm 7.9 KB raw, 3.5 KB gzipped (issue 23, measured with both
//! of its uses gone). Counts are numbers; a latency never measured is `null`.

use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;

use crate::migration::histogram::LatencySummary;
use crate::migration::stats::{ConsistencySnapshot, OperationSnapshot, OriginSnapshot, StatsSnapshot};
use crate::migration::Stage;

/// `object[key] = value` on a fresh plain object (never throws: the object is ours).
fn put(object: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &JsValue::from_str(key), value);
}

fn count(n: u64) -> JsValue {
    JsValue::from_f64(n as f64)
}

/// The whole `MigrationStats` object.
pub fn stats_object(stats: &StatsSnapshot) -> JsValue {
    let object = Object::new();
    put(&object, "read", &operation(&stats.read));
    put(&object, "write", &operation(&stats.write));
    object.into()
}

fn operation(s: &OperationSnapshot) -> JsValue {
    let object = Object::new();
    put(&object, "count", &count(s.count));
    let by_stage = Object::new();
    for (stage, n) in Stage::ALL.iter().zip(s.by_stage.0.iter()) {
        if *n > 0 {
            put(&by_stage, stage.as_str(), &count(*n));
        }
    }
    put(&object, "byStage", &by_stage);
    put(&object, "old", &origin(&s.old));
    put(&object, "new", &origin(&s.new));
    put(&object, "consistency", &consistency(&s.consistency));
    put(&object, "shed", &count(s.shed));
    object.into()
}

fn origin(s: &OriginSnapshot) -> JsValue {
    let object = Object::new();
    put(&object, "invoked", &count(s.invoked));
    put(&object, "errors", &count(s.errors));
    put(&object, "timeouts", &count(s.timeouts));
    put(&object, "latencyMs", &s.latency_ms.as_ref().map_or(JsValue::NULL, latency));
    object.into()
}

fn latency(s: &LatencySummary) -> JsValue {
    let object = Object::new();
    put(&object, "count", &count(s.count));
    for (key, value) in [("mean", s.mean), ("p50", s.p50), ("p90", s.p90), ("p99", s.p99), ("max", s.max)] {
        put(&object, key, &JsValue::from_f64(value));
    }
    object.into()
}

fn consistency(s: &ConsistencySnapshot) -> JsValue {
    let object = Object::new();
    put(&object, "checked", &count(s.checked));
    put(&object, "consistent", &count(s.consistent));
    let paths = Object::new();
    for (path, n) in s.paths.entries() {
        put(&paths, path, &count(n));
    }
    put(&object, "paths", &paths);
    object.into()
}
