//! The `migration_op` event in LaunchDarkly's wire format (SPEC A6).

use crate::host::HostValue;
use crate::json::Json;

use super::stage::{Operation, Origin, Stage};

/// A sampling ratio as it appears on the wire (a number; 1 is left out where it is the default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ratio(pub f64);

impl Ratio {
    pub fn is_one(&self) -> bool {
        self.0 == 1.0
    }
}

/// The `evaluation` object of an event: what the flag served for this context.
#[derive(Clone, Debug, PartialEq)]
pub struct EvaluationDetail {
    pub key: std::rc::Rc<str>,
    pub value: Stage,
    pub default: Stage,
    pub reason: Option<Json>,
    pub variation: Option<i64>,
    pub version: Option<i64>,
}

impl EvaluationDetail {
    pub fn to_json(&self) -> Json {
        Json::object()
            .with("key", &*self.key)
            .with("value", self.value.as_str())
            .with("default", self.default.as_str())
            .with_some("reason", self.reason.clone())
            .with_some("variation", self.variation)
            .with_some("version", self.version)
    }
}

/// Per-origin flags: only `true` entries are written.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OriginFlags {
    pub old: bool,
    pub new: bool,
}

/// Per-origin latencies in milliseconds: only measured entries are written.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OriginLatencies {
    pub old: Option<f64>,
    pub new: Option<f64>,
}

impl OriginFlags {
    pub fn from_pair(pair: [bool; 2]) -> Self {
        let [old, new] = pair;
        OriginFlags { old, new }
    }
    pub fn any(&self) -> bool {
        self.old || self.new
    }
    fn to_json(self) -> Json {
        Json::object().with_some("old", self.old.then_some(true)).with_some("new", self.new.then_some(true))
    }
}

impl OriginLatencies {
    fn to_json(self) -> Json {
        Json::object().with_some("old", self.old).with_some("new", self.new)
    }
}

/// One entry of `measurements`, written with its `key` tag first.
#[derive(Clone, Debug, PartialEq)]
pub enum Measurement {
    Invoked { values: OriginFlags },
    Consistent { value: bool, sampling_ratio: Option<Ratio> },
    Latency { values: OriginLatencies },
    Error { values: OriginFlags },
}

impl Measurement {
    pub fn to_json(&self) -> Json {
        match self {
            Measurement::Invoked { values } => Json::object().with("key", "invoked").with("values", values.to_json()),
            Measurement::Consistent { value, sampling_ratio } => Json::object()
                .with("key", "consistent")
                .with("value", *value)
                .with_some("samplingRatio", sampling_ratio.map(|r| r.0)),
            Measurement::Latency { values } => {
                Json::object().with("key", "latency_ms").with("values", values.to_json())
            }
            Measurement::Error { values } => Json::object().with("key", "error").with("values", values.to_json()),
        }
    }
}

/// The `measurements` array.
pub fn measurements_json(measurements: &[Measurement]) -> Json {
    Json::Array(measurements.iter().map(Measurement::to_json).collect())
}

/// A complete `migration_op` event. The context is the caller's own value, as it was given.
#[derive(Clone, Debug, PartialEq)]
pub struct MigrationOpEvent<V> {
    pub kind: &'static str,
    pub creation_date: u64,
    pub operation: Operation,
    pub context: V,
    pub evaluation: EvaluationDetail,
    pub sampling_ratio: Ratio,
    pub measurements: Vec<Measurement>,
}

impl<V: HostValue> MigrationOpEvent<V> {
    /// The event as plain data, keys in wire order; `samplingRatio` only when it is not 1. (The
    /// bindings build the JavaScript event directly, with the caller's context object.)
    pub fn to_json(&self) -> Json {
        Json::object()
            .with("kind", self.kind)
            .with("creationDate", self.creation_date)
            .with("operation", self.operation.as_str())
            .with("context", self.context.to_json().unwrap_or(Json::Null))
            .with("evaluation", self.evaluation.to_json())
            .with_some("samplingRatio", (!self.sampling_ratio.is_one()).then_some(self.sampling_ratio.0))
            .with("measurements", measurements_json(&self.measurements))
    }
}

/// How a `consistent` measurement writes a check ratio of 1: left out (the wire format's
/// default), or always written — LaunchDarkly's `trackMigration` drops a `consistent`
/// measurement without a numeric `samplingRatio`, so its adapter asks for this.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CheckRatioOnWire {
    #[default]
    OmittedWhenOne,
    Always,
}

/// The measurements an operation took, before they are laid out in wire order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Measurements {
    pub invoked: [bool; 2],
    pub latency: [Option<f64>; 2],
    pub error: [bool; 2],
    pub consistent: Option<bool>,
}

impl Measurements {
    pub fn invoked(&self, origin: Origin) -> bool {
        self.invoked.get(origin.index()).copied().unwrap_or(false)
    }

    /// The fixed wire order: invoked, consistent, latency_ms, error — each only when it applies.
    pub fn to_wire(&self, check_ratio: Ratio) -> Vec<Measurement> {
        self.to_wire_as(check_ratio, CheckRatioOnWire::OmittedWhenOne)
    }

    /// [`Self::to_wire`], writing a check ratio of 1 as `rule` says.
    pub fn to_wire_as(&self, check_ratio: Ratio, rule: CheckRatioOnWire) -> Vec<Measurement> {
        let mut out = Vec::with_capacity(4);
        let invoked = OriginFlags::from_pair(self.invoked);
        if invoked.any() {
            out.push(Measurement::Invoked { values: invoked });
        }
        if let Some(value) = self.consistent {
            let written = !check_ratio.is_one() || rule == CheckRatioOnWire::Always;
            let sampling_ratio = written.then_some(check_ratio);
            out.push(Measurement::Consistent { value, sampling_ratio });
        }
        let [old, new] = self.latency;
        if old.is_some() || new.is_some() {
            out.push(Measurement::Latency { values: OriginLatencies { old, new } });
        }
        let errors = OriginFlags::from_pair(self.error);
        if errors.any() {
            out.push(Measurement::Error { values: errors });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestValue;
    use serde_json::json;

    #[test]
    fn spec_a6_example_serializes_exactly() {
        let measurements = Measurements {
            invoked: [true, true],
            latency: [Some(12.3), Some(3.0)],
            error: [false, true],
            consistent: None,
        };
        let event = MigrationOpEvent {
            kind: "migration_op",
            creation_date: 1_795_989_121_414,
            operation: Operation::Read,
            context: TestValue::Json(json!({"kind": "user", "key": "u1"})),
            evaluation: EvaluationDetail {
                key: "mig".into(),
                value: Stage::Shadow,
                default: Stage::Live,
                reason: Some(Json::from_serde(&json!({"kind": "FALLTHROUGH"}))),
                variation: Some(1),
                version: Some(7),
            },
            sampling_ratio: Ratio(3.0),
            measurements: measurements.to_wire(Ratio(5.0)),
        };
        let expected = json!({"kind":"migration_op","creationDate":1795989121414_u64,"operation":"read",
            "context":{"kind":"user","key":"u1"},
            "evaluation":{"key":"mig","value":"shadow","default":"live","variation":1,"version":7,"reason":{"kind":"FALLTHROUGH"}},
            "samplingRatio":3,"measurements":[{"key":"invoked","values":{"old":true,"new":true}},
            {"key":"latency_ms","values":{"old":12.3,"new":3}},{"key":"error","values":{"new":true}}]});
        assert_eq!(event.to_json().to_serde(), expected);
        let text = event.to_json().to_text();
        assert!(text.starts_with(r#"{"kind":"migration_op","creationDate":1795989121414,"operation":"read""#));
        assert!(
            text.contains(r#""measurements":[{"key":"invoked","values":{"old":true,"new":true}},{"key":"latency_ms""#)
        );
    }

    #[test]
    fn ratios_of_one_are_omitted_and_others_kept() {
        let m = Measurements { invoked: [true, true], consistent: Some(false), ..Default::default() };
        assert_eq!(
            measurements_json(&m.to_wire(Ratio(1.0))).to_serde(),
            json!([{"key":"invoked","values":{"old":true,"new":true}},{"key":"consistent","value":false}])
        );
        assert_eq!(
            measurements_json(&m.to_wire(Ratio(4.0))).to_serde(),
            json!([{"key":"invoked","values":{"old":true,"new":true}},{"key":"consistent","value":false,"samplingRatio":4}])
        );
    }

    #[test]
    fn a_check_ratio_of_one_is_written_when_the_client_asks() {
        let m = Measurements { invoked: [true, true], consistent: Some(true), ..Default::default() };
        assert_eq!(
            measurements_json(&m.to_wire_as(Ratio(1.0), CheckRatioOnWire::Always)).to_serde(),
            json!([{"key":"invoked","values":{"old":true,"new":true}},{"key":"consistent","value":true,"samplingRatio":1}])
        );
        let none = Measurements { invoked: [true, false], ..Default::default() };
        assert_eq!(
            measurements_json(&none.to_wire_as(Ratio(1.0), CheckRatioOnWire::Always)).to_serde(),
            json!([{"key":"invoked","values":{"old":true}}])
        );
    }

    #[test]
    fn measurement_order_is_fixed_and_only_true_flags_appear() {
        let m = Measurements {
            invoked: [false, true],
            latency: [None, Some(0.25)],
            error: [false, true],
            consistent: Some(true),
        };
        assert_eq!(
            measurements_json(&m.to_wire(Ratio(1.0))).to_serde(),
            json!([{"key":"invoked","values":{"new":true}},{"key":"consistent","value":true},
                   {"key":"latency_ms","values":{"new":0.25}},{"key":"error","values":{"new":true}}])
        );
    }

    #[test]
    fn fractional_ratio_is_written_as_a_fraction() {
        let m = Measurements { invoked: [true, true], consistent: Some(true), ..Default::default() };
        assert!(measurements_json(&m.to_wire(Ratio(2.5))).to_text().contains(r#""samplingRatio":2.5"#));
    }
}
