//! The console's and the fleet's figures (src/fleet) for JavaScript: a migrator's latency
//! histograms in their wire form and its background parts in flight, a fleet's merged
//! percentiles, a window's percentiles, and which published instances are alive. Conversions
//! only: the decisions are the core's. Numbers cross as flat `Float64Array`s, several wire forms
//! each after its length (`[n₁, …wire₁, n₂, …wire₂]`): plain slices, against arrays of typed
//! arrays 114,503 → 114,104 B of gzipped wasm. The console's part of the wasm (this file and what
//! it reaches of src/fleet and the histogram): 111,274 → 114,104 B gzipped (cargo's `console`
//! feature off and on).

use wasm_bindgen::prelude::*;

use super::codes::FleetStanding;
use super::migrator::WasmMigrator;
use crate::fleet::{latency, roster};
use crate::util::histogram::LatencySummary;

/// A summary as `[count, mean, p50, p90, p99, max]`; `[]` for none.
fn summary_numbers(summary: Option<LatencySummary>) -> Vec<f64> {
    summary.map_or_else(Vec::new, |s| vec![s.count as f64, s.mean, s.p50, s.p90, s.p99, s.max])
}

/// The wire forms of `[n₁, …wire₁, n₂, …wire₂, …]`; a length that does not fit ends the list,
/// and what follows counts as one unreadable wire.
fn wires(flat: &[f64]) -> Vec<&[f64]> {
    let mut out = Vec::new();
    let mut rest = flat;
    while let Some((&n, tail)) = rest.split_first() {
        let len = if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= tail.len() as f64 { n as usize } else { 0 };
        match (tail.get(..len), tail.get(len..)) {
            (Some(wire), Some(next)) if len > 0 || n == 0.0 => {
                out.push(wire);
                rest = next;
            }
            _ => {
                out.push(&[]);
                break;
            }
        }
    }
    out
}

#[wasm_bindgen]
impl WasmMigrator {
    /// `[inFlight, n, …readOld, n, …readNew, n, …writeOld, n, …writeNew]`: the background parts
    /// running and the four latency histograms' wire forms, each after its length.
    #[wasm_bindgen(js_name = consoleSample)]
    pub fn console_sample(&self) -> Vec<f64> {
        let mut sample = vec![self.inner.in_flight() as f64];
        for wire in self.inner.latency_wires() {
            sample.push(wire.len() as f64);
            sample.extend(wire);
        }
        sample
    }
}

/// The summary of the wire forms in `flat` (each after its length) merged, `[count, mean, p50,
/// p90, p99, max]` (`[]` when nothing was recorded), then how many were unreadable.
#[wasm_bindgen(js_name = fleetLatency)]
pub fn fleet_latency(flat: &[f64]) -> Vec<f64> {
    let (summary, unreadable) = latency::merged(wires(flat));
    let mut out = summary_numbers(summary);
    out.push(unreadable as f64);
    out
}

/// The summary of what `current` recorded since `previous` (wire forms of one histogram), as
/// `fleetLatency`'s without the count of unreadable ones.
#[wasm_bindgen(js_name = windowLatency)]
pub fn window_latency(current: &[f64], previous: &[f64]) -> Vec<f64> {
    summary_numbers(latency::window(current, previous))
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
