//! Running in-process statistics of a migrator, independent of event sampling (API §1).

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

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

    pub fn snapshot(&self) -> StatsSnapshot {
        StatsSnapshot { read: OperationSnapshot::of(&self.read), write: OperationSnapshot::of(&self.write) }
    }
}

/// The plain shape `stats()` returns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatsSnapshot {
    pub read: OperationSnapshot,
    pub write: OperationSnapshot,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OperationSnapshot {
    pub count: u64,
    #[serde(rename = "byStage")]
    pub by_stage: StageCounts,
    pub old: OriginSnapshot,
    pub new: OriginSnapshot,
    pub consistency: ConsistencySnapshot,
}

/// Counts per stage; stages never seen are left out.
#[derive(Clone, Debug, PartialEq)]
pub struct StageCounts(pub [u64; 6]);

impl Serialize for StageCounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (stage, n) in Stage::ALL.iter().zip(self.0.iter()) {
            if *n > 0 {
                map.serialize_entry(stage.as_str(), n)?;
            }
        }
        map.end()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OriginSnapshot {
    pub invoked: u64,
    pub errors: u64,
    pub timeouts: u64,
    #[serde(rename = "latencyMs")]
    pub latency_ms: Option<LatencySummary>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConsistencySnapshot {
    pub checked: u64,
    pub consistent: u64,
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
            consistency: ConsistencySnapshot { checked: c.checked, consistent: c.consistent },
        }
    }
}
