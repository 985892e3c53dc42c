//! The `migration_op` event in LaunchDarkly's wire format (SPEC A6). Its serde form is the wire
//! form: fields in wire order, optional ones left out as the wire leaves them out. (The bindings
//! build the JavaScript event from the same fields in one bridge call, with the caller's own
//! context object: see `js/event.rs` for why not through serde.)

use serde::Serialize;

use super::reason::Reason;
use super::stage::{Operation, Origin, Stage};

/// A sampling ratio as it appears on the wire (a number; 1 is left out where it is the default).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Ratio(#[serde(serialize_with = "crate::util::number::serialize")] pub f64);

impl Ratio {
    pub fn is_one(&self) -> bool {
        self.0 == 1.0
    }
}

fn text<S: serde::Serializer>(key: &std::rc::Rc<str>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(key)
}

/// The `evaluation` object of an event: what the flag served for this context.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvaluationDetail<V> {
    #[serde(serialize_with = "text")]
    pub key: std::rc::Rc<str>,
    pub value: Stage,
    pub default: Stage,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason<V>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variation: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Per-origin flags: only `true` entries are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct OriginFlags {
    #[serde(skip_serializing_if = "is_false")]
    pub old: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub new: bool,
}

/// Per-origin latencies in milliseconds: only measured entries are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct OriginLatencies {
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "crate::util::number::serialize_some")]
    pub old: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "crate::util::number::serialize_some")]
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
}

/// One entry of `measurements`, written with its `key` tag first.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "key")]
pub enum Measurement {
    #[serde(rename = "invoked")]
    Invoked { values: OriginFlags },
    #[serde(rename = "consistent")]
    Consistent {
        value: bool,
        #[serde(rename = "samplingRatio", skip_serializing_if = "Option::is_none")]
        sampling_ratio: Option<Ratio>,
    },
    #[serde(rename = "latency_ms")]
    Latency { values: OriginLatencies },
    #[serde(rename = "error")]
    Error { values: OriginFlags },
}

/// A complete `migration_op` event. The context is the caller's own value, as it was given.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MigrationOpEvent<V> {
    pub kind: &'static str,
    #[serde(serialize_with = "crate::util::number::serialize_u64")]
    pub creation_date: u64,
    pub operation: Operation,
    pub context: V,
    pub evaluation: EvaluationDetail<V>,
    /// Left out when 1.
    #[serde(skip_serializing_if = "Ratio::is_one")]
    pub sampling_ratio: Ratio,
    pub measurements: Vec<Measurement>,
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
    use crate::migration::reason::Reason;
    use crate::testing::wire;
    use crate::testing::TestValue;
    use serde_json::json;

    fn measurements_json(m: &[Measurement]) -> serde_json::Value {
        wire(&m)
    }

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
                reason: Some(Reason::Given(TestValue::Json(json!({"kind": "FALLTHROUGH"})))),
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
        assert_eq!(wire(&event), expected);
        let text = serde_json::to_string(&event).unwrap();
        assert!(text.starts_with(r#"{"kind":"migration_op","creationDate":1795989121414,"operation":"read""#));
        assert!(
            text.contains(r#""measurements":[{"key":"invoked","values":{"old":true,"new":true}},{"key":"latency_ms""#)
        );
    }

    #[test]
    fn ratios_of_one_are_omitted_and_others_kept() {
        let m = Measurements { invoked: [true, true], consistent: Some(false), ..Default::default() };
        assert_eq!(
            measurements_json(&m.to_wire(Ratio(1.0))),
            json!([{"key":"invoked","values":{"old":true,"new":true}},{"key":"consistent","value":false}])
        );
        assert_eq!(
            measurements_json(&m.to_wire(Ratio(4.0))),
            json!([{"key":"invoked","values":{"old":true,"new":true}},{"key":"consistent","value":false,"samplingRatio":4}])
        );
    }

    #[test]
    fn a_check_ratio_of_one_is_written_when_the_client_asks() {
        let m = Measurements { invoked: [true, true], consistent: Some(true), ..Default::default() };
        assert_eq!(
            measurements_json(&m.to_wire_as(Ratio(1.0), CheckRatioOnWire::Always)),
            json!([{"key":"invoked","values":{"old":true,"new":true}},{"key":"consistent","value":true,"samplingRatio":1}])
        );
        let none = Measurements { invoked: [true, false], ..Default::default() };
        assert_eq!(
            measurements_json(&none.to_wire_as(Ratio(1.0), CheckRatioOnWire::Always)),
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
            measurements_json(&m.to_wire(Ratio(1.0))),
            json!([{"key":"invoked","values":{"new":true}},{"key":"consistent","value":true},
                   {"key":"latency_ms","values":{"new":0.25}},{"key":"error","values":{"new":true}}])
        );
    }

    #[test]
    fn fractional_ratio_is_written_as_a_fraction() {
        let m = Measurements { invoked: [true, true], consistent: Some(true), ..Default::default() };
        assert!(serde_json::to_string(&m.to_wire(Ratio(2.5))).unwrap().contains(r#""samplingRatio":2.5"#));
    }
}
