//! Running in-process statistics of a migrator, independent of event sampling (API §1).
//!
//! The snapshot's serde form is the plain object `stats()` returns: field order and names as
//! API §1 shows them, `latencyMs` null before the first call, stages never seen left out.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::histogram::{Histogram, LatencySummary};
use super::stage::{Operation, Origin, Stage};

#[derive(Clone, Debug, Default)]
struct OriginCounters {
    invoked: u64,
    errors: u64,
    timeouts: u64,
    latency: Histogram,
}

#[derive(Clone, Debug, Default)]
struct OperationCounters {
    count: u64,
    by_stage: [u64; 6],
    origins: [OriginCounters; 2],
    checked: u64,
    consistent: u64,
    shed: u64,
}

/// How one origin call ended, for the statistics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallRecord {
    pub latency_ms: f64,
    pub failed: bool,
    pub timed_out: bool,
}

#[derive(Clone, Debug, Default)]
pub struct MigrationStats {
    read: OperationCounters,
    write: OperationCounters,
}

impl MigrationStats {
    fn op(&mut self, op: Operation) -> &mut OperationCounters {
        match op {
            Operation::Read => &mut self.read,
            Operation::Write => &mut self.write,
        }
    }

    pub fn record_call(&mut self, op: Operation, origin: Origin, call: CallRecord) {
        if let Some(o) = self.op(op).origins.get_mut(origin.index()) {
            o.invoked += 1;
            o.errors += u64::from(call.failed);
            o.timeouts += u64::from(call.timed_out);
            o.latency.record(call.latency_ms);
        }
    }

    pub fn record_check(&mut self, consistent: bool) {
        self.read.checked += 1;
        self.read.consistent += u64::from(consistent);
    }

    pub fn record_completed(&mut self, op: Operation, stage: Stage) {
        let counters = self.op(op);
        counters.count += 1;
        if let Some(n) = counters.by_stage.get_mut(stage.index()) {
            *n += 1;
        }
    }

    /// An operation that ran its authoritative origin only: `maxInFlight` background parts were
    /// running (API §1).
    pub fn record_shed(&mut self, op: Operation) {
        self.op(op).shed += 1;
    }

    /// The four latency histograms in their wire form (read old, read new, write old, write
    /// new), for the console and the fleet (src/fleet merges them).
    pub fn latency_wires(&self) -> [Vec<f64>; 4] {
        let [read_old, read_new] = &self.read.origins;
        let [write_old, write_new] = &self.write.origins;
        [read_old, read_new, write_old, write_new].map(|o| o.latency.to_wire())
    }

    pub fn snapshot(&self) -> StatsSnapshot {
        StatsSnapshot {
            read: OperationSnapshot::of(&self.read),
            write: OperationSnapshot::of(&self.write),
            guard: None,
        }
    }
}

/// The plain shape `stats()` returns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatsSnapshot {
    pub read: OperationSnapshot,
    pub write: OperationSnapshot,
    /// `null` without `guard()`.
    #[serde(serialize_with = "guard_form")]
    pub guard: Option<super::guard::GuardSnapshot>,
}

/// `stats().guard`'s plain form (API §1 "Guardrails").
fn guard_form<S: Serializer>(guard: &Option<super::guard::GuardSnapshot>, serializer: S) -> Result<S::Ok, S::Error> {
    let Some(guard) = guard else {
        return serializer.serialize_none();
    };
    struct Flags<'a>(&'a [(std::rc::Rc<str>, super::guard::FlagView)]);
    impl Serialize for Flags<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(Some(self.0.len()))?;
            for (key, view) in self.0 {
                let reason = view.reason.as_deref();
                let value = guard_records::View { state: view.state.as_str(), since: view.since, reason };
                map.serialize_entry(&**key, &value)?;
            }
            map.end()
        }
    }
    let mut map = serializer.serialize_map(Some(4))?;
    map.serialize_entry("trips", &guard.trips)?;
    map.serialize_entry("recoveries", &guard.recoveries)?;
    let [read, write] = guard.fallbacks;
    map.serialize_entry("fallbacks", &guard_records::Fallbacks { read, write })?;
    map.serialize_entry("flags", &Flags(&guard.flags))?;
    map.end()
}

/// The plain records of `stats().guard`.
mod guard_records {
    #[derive(serde::Serialize)]
    pub struct View<'a> {
        pub state: &'a str,
        pub since: f64,
        pub reason: Option<&'a str>,
    }
    #[derive(serde::Serialize)]
    pub struct Fallbacks {
        pub read: u64,
        pub write: u64,
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationSnapshot {
    pub count: u64,
    pub by_stage: StageCounts,
    pub old: OriginSnapshot,
    pub new: OriginSnapshot,
    pub consistency: ConsistencySnapshot,
    /// Operations that ran their authoritative origin only (background mode, `maxInFlight` reached).
    pub shed: u64,
}

/// Counts per stage; stages never seen are left out.
#[derive(Clone, Debug, PartialEq)]
pub struct StageCounts(pub [u64; 6]);

impl Serialize for StageCounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let seen = self.0.iter().filter(|n| **n > 0).count();
        let mut map = serializer.serialize_map(Some(seen))?;
        for (stage, n) in Stage::ALL.iter().zip(self.0.iter()) {
            if *n > 0 {
                map.serialize_entry(stage.as_str(), n)?;
            }
        }
        map.end()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OriginSnapshot {
    pub invoked: u64,
    pub errors: u64,
    pub timeouts: u64,
    /// `null` until the origin was called.
    pub latency_ms: Option<LatencySummary>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConsistencySnapshot {
    pub checked: u64,
    pub consistent: u64,
    /// With `mismatches()`: how many mismatches differed at each normalised path (`{}` otherwise).
    pub paths: crate::diff::PathTable,
}

impl OriginSnapshot {
    fn of(c: &OriginCounters) -> Self {
        OriginSnapshot { invoked: c.invoked, errors: c.errors, timeouts: c.timeouts, latency_ms: c.latency.summary() }
    }
}

impl OperationSnapshot {
    fn of(c: &OperationCounters) -> Self {
        let [old, new] = &c.origins;
        OperationSnapshot {
            count: c.count,
            by_stage: StageCounts(c.by_stage),
            old: OriginSnapshot::of(old),
            new: OriginSnapshot::of(new),
            consistency: ConsistencySnapshot {
                checked: c.checked,
                consistent: c.consistent,
                paths: Default::default(),
            },
            shed: c.shed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_snapshot_serializes_as_stats_returns_it() {
        let mut stats = MigrationStats::default();
        stats.record_call(Operation::Read, Origin::Old, CallRecord { latency_ms: 2.0, failed: true, timed_out: false });
        stats.record_completed(Operation::Read, Stage::Shadow);
        stats.record_check(true);
        let value = serde_json::to_value(stats.snapshot()).unwrap();
        let text = serde_json::to_string(&stats.snapshot()).unwrap();
        assert!(text.starts_with(r#"{"read":{"count":1,"byStage":{"shadow":1},"old":{"invoked":1,"errors":1,"timeouts":0,"latencyMs":{"count":1,"#), "{text}");
        assert_eq!(value["read"]["new"], json!({"invoked": 0, "errors": 0, "timeouts": 0, "latencyMs": null}));
        assert_eq!(value["read"]["consistency"], json!({"checked": 1, "consistent": 1, "paths": {}}));
        assert_eq!(value["write"]["byStage"], json!({}));
        assert_eq!((value["read"]["shed"].clone(), value["write"]["shed"].clone()), (json!(0), json!(0)));
        stats.record_shed(Operation::Write);
        assert_eq!(serde_json::to_value(stats.snapshot()).unwrap()["write"]["shed"], json!(1));
        let at = |key: &str| text.find(&format!("\"{key}\":")).unwrap();
        let order = ["count", "mean", "p50", "p90", "p99", "max"].map(at);
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    }
}
