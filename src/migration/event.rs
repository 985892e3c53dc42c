//! The `migration_op` event in LaunchDarkly's wire format (SPEC A6).

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::stage::{Operation, Origin, Stage};

/// A sampling ratio as it appears on the wire: an integer when it is one, else a float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ratio(pub f64);

impl Ratio {
    pub fn is_one(&self) -> bool {
        self.0 == 1.0
    }
}

impl Serialize for Ratio {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        if r.fract() == 0.0 && r.abs() < 9_007_199_254_740_992.0 {
            serializer.serialize_i64(r as i64)
        } else {
            serializer.serialize_f64(r)
        }
    }
}

/// The `evaluation` object of an event: what the flag served for this context.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvaluationDetail {
    pub key: String,
    pub value: Stage,
    pub default: Stage,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variation: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<f64>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_one(r: &Ratio) -> bool {
    r.is_one()
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

/// One entry of `measurements`, serialized with its `key` tag first.
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

/// A complete `migration_op` event.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MigrationOpEvent {
    pub kind: &'static str,
    #[serde(rename = "creationDate")]
    pub creation_date: u64,
    pub operation: Operation,
    pub context: Value,
    pub evaluation: EvaluationDetail,
    #[serde(rename = "samplingRatio", skip_serializing_if = "is_one")]
    pub sampling_ratio: Ratio,
    pub measurements: Vec<Measurement>,
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
        let mut out = Vec::with_capacity(4);
        let invoked = OriginFlags::from_pair(self.invoked);
        if invoked.any() {
            out.push(Measurement::Invoked { values: invoked });
        }
        if let Some(value) = self.consistent {
            let sampling_ratio = (!check_ratio.is_one()).then_some(check_ratio);
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
            context: json!({"kind": "user", "key": "u1"}),
            evaluation: EvaluationDetail {
                key: "mig".into(),
                value: Stage::Shadow,
                default: Stage::Live,
                reason: Some(json!({"kind": "FALLTHROUGH"})),
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
            {"key":"latency_ms","values":{"old":12.3,"new":3.0}},{"key":"error","values":{"new":true}}]});
        assert_eq!(serde_json::to_value(&event).unwrap(), expected);
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
            serde_json::to_value(m.to_wire(Ratio(1.0))).unwrap(),
            json!([{"key":"invoked","values":{"old":true,"new":true}},{"key":"consistent","value":false}])
        );
        assert_eq!(
            serde_json::to_value(m.to_wire(Ratio(4.0))).unwrap(),
            json!([{"key":"invoked","values":{"old":true,"new":true}},{"key":"consistent","value":false,"samplingRatio":4}])
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
            serde_json::to_value(m.to_wire(Ratio(1.0))).unwrap(),
            json!([{"key":"invoked","values":{"new":true}},{"key":"consistent","value":true},
                   {"key":"latency_ms","values":{"new":0.25}},{"key":"error","values":{"new":true}}])
        );
    }

    #[test]
    fn fractional_ratio_serializes_as_float() {
        assert_eq!(serde_json::to_string(&Ratio(2.5)).unwrap(), "2.5");
        assert_eq!(serde_json::to_string(&Ratio(0.0)).unwrap(), "0");
    }
}
