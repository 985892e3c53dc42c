//! The console's and the fleet's figures (src/fleet) for JavaScript: a migrator's latency
//! histograms in their wire form and its background parts in flight, a fleet's merged
//! percentiles, a window's percentiles, and which published instances are alive. Conversions
//! only: the decisions are the core's.

use js_sys::{Array, Float64Array};
use wasm_bindgen::prelude::*;

use super::codes::FleetStanding;
use super::migrator::WasmMigrator;
use crate::fleet::{latency, roster};
use crate::util::histogram::LatencySummary;

/// A summary as `[count, mean, p50, p90, p99, max]`; `[]` for none.
fn summary_numbers(summary: Option<LatencySummary>) -> Vec<f64> {
    summary.map_or_else(Vec::new, |s| vec![s.count as f64, s.mean, s.p50, s.p90, s.p99, s.max])
}

/// An array-like of numbers as a `Vec` (a number that is not one reads as NaN, which every wire
/// reader refuses).
fn numbers(value: &JsValue) -> Vec<f64> {
    Float64Array::new(value).to_vec()
}

#[wasm_bindgen]
impl WasmMigrator {
    /// `[inFlight, readOld, readNew, writeOld, writeNew]`: the background parts running and the
    /// four latency histograms (wire form, `Float64Array`s).
    #[wasm_bindgen(js_name = consoleSample)]
    pub fn console_sample(&self) -> Array {
        let sample = Array::new();
        sample.push(&JsValue::from_f64(self.inner.in_flight() as f64));
        for wire in self.inner.latency_wires() {
            sample.push(&Float64Array::from(wire.as_slice()));
        }
        sample
    }
}

/// The summary of `wires` (an array of wire forms) merged, `[count, mean, p50, p90, p99, max]`
/// (`[]` when nothing was recorded), then how many wires were unreadable.
#[wasm_bindgen(js_name = fleetLatency)]
pub fn fleet_latency(wires: &Array) -> Vec<f64> {
    let wires: Vec<Vec<f64>> = wires.iter().map(|w| numbers(&w)).collect();
    let (summary, unreadable) = latency::merged(wires.iter().map(Vec::as_slice));
    let mut out = summary_numbers(summary);
    out.push(unreadable as f64);
    out
}

/// The summary of what `current` recorded since `previous` (wire forms of one histogram), as
/// `fleetLatency`'s without the count of unreadable ones.
#[wasm_bindgen(js_name = windowLatency)]
pub fn window_latency(current: &JsValue, previous: &JsValue) -> Vec<f64> {
    summary_numbers(latency::window(&numbers(current), &numbers(previous)))
}

/// Each instance's `FleetStanding` code, given when each published (epoch ms), now and the time
/// to live.
#[wasm_bindgen(js_name = fleetStandings)]
pub fn fleet_standings(at: &[f64], now: f64, ttl_ms: f64) -> Vec<u8> {
    let code = |standing| match standing {
        roster::Standing::Live => FleetStanding::Live,
        roster::Standing::Expired => FleetStanding::Expired,
        roster::Standing::Dropped => FleetStanding::Dropped,
    };
    roster::standings(at, now, ttl_ms).into_iter().map(|s| code(s) as u8).collect()
}
