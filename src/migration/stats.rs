//! Running in-process statistics of a migrator, independent of event sampling (API §1).

use crate::json::Json;

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
#[derive(Clone, Debug, PartialEq)]
pub struct StatsSnapshot {
    pub read: OperationSnapshot,
    pub write: OperationSnapshot,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OperationSnapshot {
    pub count: u64,
    pub by_stage: StageCounts,
    pub old: OriginSnapshot,
    pub new: OriginSnapshot,
    pub consistency: ConsistencySnapshot,
}

/// Counts per stage; stages never seen are left out.
#[derive(Clone, Debug, PartialEq)]
pub struct StageCounts(pub [u64; 6]);

impl StageCounts {
    fn to_json(&self) -> Json {
        Stage::ALL
            .iter()
            .zip(self.0.iter())
            .fold(Json::object(), |o, (stage, n)| o.with_some(stage.as_str(), (*n > 0).then_some(*n)))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct OriginSnapshot {
    pub invoked: u64,
    pub errors: u64,
    pub timeouts: u64,
    pub latency_ms: Option<LatencySummary>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ConsistencySnapshot {
    pub checked: u64,
    pub consistent: u64,
}

impl StatsSnapshot {
    /// The plain object `stats()` returns.
    pub fn to_json(&self) -> Json {
        Json::object().with("read", self.read.to_json()).with("write", self.write.to_json())
    }
}

impl OriginSnapshot {
    fn to_json(&self) -> Json {
        let latency = match &self.latency_ms {
            Some(l) => Json::object()
                .with("count", l.count)
                .with("mean", l.mean)
                .with("p50", l.p50)
                .with("p90", l.p90)
                .with("p99", l.p99)
                .with("max", l.max),
            None => Json::Null,
        };
        Json::object()
            .with("invoked", self.invoked)
            .with("errors", self.errors)
            .with("timeouts", self.timeouts)
            .with("latencyMs", latency)
    }

    fn of(c: &OriginCounters) -> Self {
        OriginSnapshot { invoked: c.invoked, errors: c.errors, timeouts: c.timeouts, latency_ms: c.latency.summary() }
    }
}

impl OperationSnapshot {
    fn to_json(&self) -> Json {
        Json::object()
            .with("count", self.count)
            .with("byStage", self.by_stage.to_json())
            .with("old", self.old.to_json())
            .with("new", self.new.to_json())
            .with(
                "consistency",
                Json::object()
                    .with("checked", self.consistency.checked)
                    .with("consistent", self.consistency.consistent),
            )
    }

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
