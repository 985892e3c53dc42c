//! `Migrator#stats()`'s plain object, built field by field in the order and shape of the core's
//! serde form (src/migration/stats.rs, whose native test pins it). Not through
//! serde-wasm-bindgen, which only this object and the error reason (event.rs) used in the
//! migrations wasm: without it that wasm is 173,665 → 167,119 B raw, 73,521 → 70,694 B gzipped
//! (the full one 273,541 → 270,345 / 110,149 → 108,670), and `stats()` after 200 reads took
//! 6.8 µs against its 8.9 µs (interleaved in one process, issue 23). The keys are interned and
//! stored with a plain `object[key] = value`: with a fresh string per key and `Reflect.set`
//! through wasm-bindgen's `catch` wrapper it measured 31–66 µs. Counts are numbers; a latency
//! never measured is `null`.

use js_sys::Object;
use wasm_bindgen::prelude::*;

use super::intern::intern;
use crate::migration::histogram::LatencySummary;
use crate::migration::stats::{ConsistencySnapshot, OperationSnapshot, OriginSnapshot, StatsSnapshot};
use crate::migration::Stage;

#[wasm_bindgen]
extern "C" {
    /// A fresh plain object of this file's, written with `object[key] = value`: a plain store in
    /// the glue (no `catch` wrapper, no `Reflect` call).
    #[wasm_bindgen(extends = Object)]
    type Plain;
    #[wasm_bindgen(method, indexing_setter)]
    fn set(this: &Plain, key: &JsValue, value: &JsValue);
}

fn plain() -> Plain {
    Object::new().unchecked_into()
}

/// `object[key] = value`, the key one of this file's literals (interned: made once).
fn put(object: &Plain, key: &'static str, value: &JsValue) {
    object.set(intern(key), value);
}

fn count(n: u64) -> JsValue {
    JsValue::from_f64(n as f64)
}

/// The whole `MigrationStats` object.
pub fn stats_object(stats: &StatsSnapshot) -> JsValue {
    let object = plain();
    put(&object, "read", &operation(&stats.read));
    put(&object, "write", &operation(&stats.write));
    put(&object, "guard", &super::guard::stats_object(stats.guard.as_ref()));
    object.into()
}

fn operation(s: &OperationSnapshot) -> JsValue {
    let object = plain();
    put(&object, "count", &count(s.count));
    let by_stage = plain();
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
    let object = plain();
    put(&object, "invoked", &count(s.invoked));
    put(&object, "errors", &count(s.errors));
    put(&object, "timeouts", &count(s.timeouts));
    put(&object, "latencyMs", &s.latency_ms.as_ref().map_or(JsValue::NULL, latency));
    object.into()
}

fn latency(s: &LatencySummary) -> JsValue {
    let object = plain();
    put(&object, "count", &count(s.count));
    for (key, value) in [("mean", s.mean), ("p50", s.p50), ("p90", s.p90), ("p99", s.p99), ("max", s.max)] {
        put(&object, key, &JsValue::from_f64(value));
    }
    object.into()
}

fn consistency(s: &ConsistencySnapshot) -> JsValue {
    let object = plain();
    put(&object, "checked", &count(s.checked));
    put(&object, "consistent", &count(s.consistent));
    let paths = plain();
    for (path, n) in s.paths.entries() {
        paths.set(&JsValue::from_str(path), &count(n));
    }
    put(&object, "paths", &paths);
    object.into()
}
