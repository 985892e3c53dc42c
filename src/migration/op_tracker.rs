//! `OpTracker`: cutover's own recorder of one migration operation, and `build()` with the
//! exact validation order of SPEC A5.

use super::context::is_valid;
use super::event::{CheckRatioOnWire, EvaluationDetail, Measurements, MigrationOpEvent, Ratio};
use super::reason::Reason;
use super::stage::{Operation, Origin, Stage};
use crate::error::{BuildError, Error};
use crate::host::{Host, HostValue};

/// What the flag system served for one context, as the tracker keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation<V> {
    pub value: Stage,
    pub default: Stage,
    pub reason: Option<Reason<V>>,
    pub variation: Option<i64>,
    pub version: Option<i64>,
    /// 1-in-N consistency sampling (`migration.checkRatio`); 1 when the flag has none.
    pub check_ratio: f64,
    /// 1-in-N event sampling (`samplingRatio`); 1 when the flag has none.
    pub sampling_ratio: f64,
}

impl<V> Evaluation<V> {
    /// An evaluation that served `stage` with nothing else known.
    pub fn plain(value: Stage, default: Stage) -> Self {
        Evaluation {
            value,
            default,
            reason: None,
            variation: None,
            version: None,
            check_ratio: 1.0,
            sampling_ratio: 1.0,
        }
    }
}

/// Records the measurements of one operation and turns them into a `migration_op` event.
pub struct OpTracker<V> {
    flag_key: std::rc::Rc<str>,
    context: V,
    evaluation: Evaluation<V>,
    operation: Option<Operation>,
    measurements: Measurements,
    check_ratio_on_wire: CheckRatioOnWire,
}

impl<V: HostValue> OpTracker<V> {
    pub fn new(flag_key: impl Into<std::rc::Rc<str>>, context: V, evaluation: Evaluation<V>) -> Self {
        let flag_key = flag_key.into();
        OpTracker {
            flag_key,
            context,
            evaluation,
            operation: None,
            measurements: Measurements::default(),
            check_ratio_on_wire: CheckRatioOnWire::default(),
        }
    }

    /// This tracker, writing a check ratio of 1 in its event as `rule` says (the client the
    /// event goes to decides).
    pub fn with_check_ratio_on_wire(mut self, rule: CheckRatioOnWire) -> Self {
        self.check_ratio_on_wire = rule;
        self
    }

    /// The caller's context.
    pub fn context(&self) -> &V {
        &self.context
    }

    pub fn evaluation(&self) -> &Evaluation<V> {
        &self.evaluation
    }

    pub fn operation(&mut self, op: Operation) {
        self.operation = Some(op);
    }

    pub fn invoked(&mut self, origin: Origin) {
        if let Some(slot) = self.measurements.invoked.get_mut(origin.index()) {
            *slot = true;
        }
    }

    pub fn error(&mut self, origin: Origin) {
        if let Some(slot) = self.measurements.error.get_mut(origin.index()) {
            *slot = true;
        }
    }

    /// Records the latest latency of `origin` in milliseconds: a finite number ≥ 0 (anything
    /// else is refused with a `RangeError` naming it, and nothing is recorded).
    pub fn latency(&mut self, origin: Origin, ms: f64) -> Result<(), Error> {
        if !(ms.is_finite() && ms >= 0.0) {
            return Err(Error::Range(format!(
                "latency: ms must be a finite number ≥ 0, got {}",
                crate::util::text::number(ms)
            )));
        }
        if let Some(slot) = self.measurements.latency.get_mut(origin.index()) {
            *slot = Some(ms);
        }
        Ok(())
    }

    /// Runs `check` if the 1-in-`checkRatio` sampler picks it and records its answer.
    /// A check that fails is logged at error level and records nothing. Returns what was recorded.
    pub fn consistent(&mut self, host: &Host, check: impl FnOnce() -> Result<bool, V>) -> Option<bool> {
        if !self.samples_check(host) {
            return None;
        }
        self.record_check(host, check())
    }

    /// Draws the 1-in-`checkRatio` sampler: whether a consistency check should run now.
    pub fn samples_check(&self, host: &Host) -> bool {
        host.sample(self.evaluation.check_ratio)
    }

    /// Records the answer of a check that ran (logging a failed one). Split from
    /// [`Self::samples_check`] so that hosts can run the check without holding the tracker.
    pub fn record_check(&mut self, host: &Host, answer: Result<bool, V>) -> Option<bool> {
        match answer {
            Ok(value) => {
                self.measurements.consistent = Some(value);
                Some(value)
            }
            Err(e) => {
                host.error(&consistency_error_message(&self.flag_key, &e.describe()));
                None
            }
        }
    }

    /// The event, or the first rule it breaks (SPEC A5 order). `creationDate` is `epoch_ms`.
    pub fn build(&self, epoch_ms: f64) -> Result<MigrationOpEvent<V>, BuildError> {
        let operation = self.operation.ok_or(BuildError::OperationNotProvided)?;
        if self.flag_key.is_empty() {
            return Err(BuildError::EmptyKey);
        }
        let m = &self.measurements;
        if !m.invoked(Origin::Old) && !m.invoked(Origin::New) {
            return Err(BuildError::NoOriginsInvoked);
        }
        if !is_valid(&self.context.context_facts()) {
            return Err(BuildError::InvalidContext);
        }
        for origin in [Origin::Old, Origin::New] {
            if m.invoked(origin) {
                continue;
            }
            if m.latency.get(origin.index()).copied().flatten().is_some() {
                return Err(BuildError::LatencyWithoutInvocation(origin));
            }
            if m.error.get(origin.index()).copied().unwrap_or(false) {
                return Err(BuildError::ErrorWithoutInvocation(origin));
            }
        }
        if m.consistent.is_some() && !(m.invoked(Origin::Old) && m.invoked(Origin::New)) {
            return Err(BuildError::ConsistencyWithoutBothInvocations);
        }
        let e = &self.evaluation;
        Ok(MigrationOpEvent {
            creation_date: epoch_ms.max(0.0).floor() as u64,
            operation,
            context: self.context.clone(),
            evaluation: EvaluationDetail {
                key: self.flag_key.clone(),
                value: e.value,
                default: e.default,
                reason: e.reason.clone(),
                variation: e.variation,
                version: e.version,
            },
            sampling_ratio: Ratio(e.sampling_ratio),
            measurements: m.to_wire_as(Ratio(e.check_ratio), self.check_ratio_on_wire),
        })
    }
}

/// The error-level line for a consistency check that threw.
pub fn consistency_error_message(flag_key: &str, error: &str) -> String {
    format!("consistency check for migration flag '{flag_key}' threw, so no consistency value is recorded: {error}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{TestHost, TestValue};
    use serde_json::json;

    fn tracker(key: &str, context: serde_json::Value) -> OpTracker<TestValue> {
        OpTracker::new(key, TestValue::Json(context), Evaluation::plain(Stage::Shadow, Stage::Off))
    }

    fn err(t: &OpTracker<TestValue>) -> String {
        t.build(0.0).unwrap_err().to_string()
    }

    #[test]
    fn build_errors_come_in_spec_order() {
        let mut t = tracker("", json!({}));
        t.latency(Origin::New, 1.0).unwrap();
        assert_eq!(err(&t), "operation not provided");
        t.operation(Operation::Read);
        assert_eq!(err(&t), "migration operation cannot contain an empty key");
        let mut t = tracker("k", json!({}));
        t.operation(Operation::Read);
        t.latency(Origin::New, 1.0).unwrap();
        assert_eq!(err(&t), "no origins were invoked");
        t.invoked(Origin::Old);
        assert_eq!(err(&t), "provided context was invalid");
        let mut t = tracker("k", json!({"key": "u"}));
        t.operation(Operation::Write);
        t.invoked(Origin::New);
        t.latency(Origin::Old, 1.0).unwrap();
        t.error(Origin::Old);
        assert_eq!(err(&t), "provided latency for origin 'old' without recording invocation");
        let mut t = tracker("k", json!({"key": "u"}));
        t.operation(Operation::Write);
        t.invoked(Origin::Old);
        t.error(Origin::New);
        assert_eq!(err(&t), "provided error for origin 'new' without recording invocation");
        let mut t = tracker("k", json!({"key": "u"}));
        t.operation(Operation::Read);
        t.invoked(Origin::Old);
        let host = TestHost::new(1);
        assert_eq!(t.consistent(&host.host, || Ok(true)), Some(true));
        assert_eq!(err(&t), "provided consistency without recording both invocations");
        t.invoked(Origin::New);
        assert!(t.build(0.0).is_ok());
    }

    #[test]
    fn a_throwing_check_records_nothing_and_logs() {
        let host = TestHost::new(1);
        let mut t = tracker("flag", json!({"key": "u"}));
        assert_eq!(t.consistent(&host.host, || Err(TestValue::Text("boom".into()))), None);
        let errors = host.logger.messages(crate::host::Level::Error);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].contains("boom") && errors[0].contains("flag"));
    }

    #[test]
    fn check_ratio_zero_or_fractional_never_runs_the_check() {
        let host = TestHost::new(7);
        for ratio in [0.0, -1.0, 2.5, f64::NAN] {
            let mut e = Evaluation::plain(Stage::Live, Stage::Off);
            e.check_ratio = ratio;
            let mut t = OpTracker::new("k", TestValue::Json(json!({"key": "u"})), e);
            let mut ran = false;
            for _ in 0..50 {
                t.consistent(&host.host, || {
                    ran = true;
                    Ok(true)
                });
            }
            assert!(!ran, "ratio {ratio}");
        }
    }

    #[test]
    fn event_carries_evaluation_and_creation_date() {
        let mut e = Evaluation::plain(Stage::Live, Stage::Off);
        e.variation = Some(3);
        e.version = Some(9);
        e.reason = Some(Reason::Given(TestValue::Json(json!({"kind": "RULE_MATCH", "ruleIndex": 0}))));
        e.sampling_ratio = 1.0;
        let mut t = OpTracker::new("mig", TestValue::Json(json!({"kind": "user", "key": "u1"})), e);
        t.operation(Operation::Write);
        t.invoked(Origin::New);
        t.latency(Origin::New, 1.5).unwrap();
        let event = t.build(1_700_000_000_123.7).unwrap();
        assert_eq!(
            crate::testing::wire(&event),
            json!({"kind":"migration_op","creationDate":1700000000123_u64,"operation":"write",
                "context":{"kind":"user","key":"u1"},
                "evaluation":{"key":"mig","value":"live","default":"off","reason":{"kind":"RULE_MATCH","ruleIndex":0},"variation":3,"version":9},
                "measurements":[{"key":"invoked","values":{"new":true}},{"key":"latency_ms","values":{"new":1.5}}]})
        );
    }

    #[test]
    fn latency_must_be_finite_and_not_negative() {
        let mut t = tracker("k", json!({"key": "u"}));
        for (bad, shown) in [(-1.0, "-1"), (f64::NAN, "NaN"), (f64::INFINITY, "Infinity"), (-0.5, "-0.5")] {
            let e = t.latency(Origin::Old, bad).unwrap_err();
            assert_eq!(e.class(), crate::error::ErrorClass::Range);
            assert_eq!(e.to_string(), format!("latency: ms must be a finite number ≥ 0, got {shown}"));
        }
        t.latency(Origin::Old, 0.0).unwrap();
        t.operation(Operation::Read);
        // Nothing refused was recorded: only the 0 is, and it needs an invocation.
        assert_eq!(err(&t), "no origins were invoked");
        t.invoked(Origin::Old);
        let event = t.build(0.0).unwrap();
        assert!(event.measurements.iter().any(|m| matches!(m,
            crate::migration::event::Measurement::Latency { values } if values.old == Some(0.0) && values.new.is_none())));
    }
}
