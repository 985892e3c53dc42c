//! The `migration_op` event in LaunchDarkly's wire format (SPEC A6). Its serde form is the wire
//! form, written by the tables of `event_format.rs`: their fields in their order, each under its
//! name there, optional ones left out as the wire leaves them out. (The bindings build the
//! JavaScript event from the same tables in one bridge call, with the caller's own context
//! object: see `js/event.rs` for why not through serde.)

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::event_format::{Field, Holds, EVALUATION, EVENT, MEASUREMENTS, MEASUREMENT_KEY, ORIGINS};
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

/// A number as JavaScript has it (`crate::util::number`).
struct Number(f64);

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::util::number::serialize(&self.0, serializer)
    }
}

/// The `evaluation` object of an event: what the flag served for this context.
#[derive(Clone, Debug, PartialEq)]
pub struct EvaluationDetail<V> {
    pub key: std::rc::Rc<str>,
    pub value: Stage,
    pub default: Stage,
    pub reason: Option<Reason<V>>,
    pub variation: Option<i64>,
    pub version: Option<i64>,
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
}

/// One entry of `measurements`.
#[derive(Clone, Debug, PartialEq)]
pub enum Measurement {
    Invoked { values: OriginFlags },
    Consistent { value: bool, sampling_ratio: Option<Ratio> },
    Latency { values: OriginLatencies },
    Error { values: OriginFlags },
}

impl Measurement {
    /// What this measurement's first field holds: the one that names it in [`MEASUREMENTS`].
    fn holds(&self) -> Holds {
        match self {
            Measurement::Invoked { .. } => Holds::Invoked,
            Measurement::Consistent { .. } => Holds::Consistent,
            Measurement::Latency { .. } => Holds::Latencies,
            Measurement::Error { .. } => Holds::Errors,
        }
    }
}

/// A complete `migration_op` event. The context is the caller's own value, as it was given.
#[derive(Clone, Debug, PartialEq)]
pub struct MigrationOpEvent<V> {
    pub creation_date: u64,
    pub operation: Operation,
    pub context: V,
    pub evaluation: EvaluationDetail<V>,
    /// Left out when 1.
    pub sampling_ratio: Ratio,
    pub measurements: Vec<Measurement>,
}

/// Writes the fields of `fields` that `value` has, in order, each under its name.
fn write_fields<M: SerializeMap>(
    map: &mut M,
    fields: &[Field],
    mut value: impl FnMut(&mut M, &Field) -> Result<(), M::Error>,
) -> Result<(), M::Error> {
    fields.iter().try_for_each(|f| value(map, f))
}

impl<V: Serialize> Serialize for MigrationOpEvent<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        write_fields(&mut map, EVENT.fields, |map, f| match f.holds {
            Holds::Tag(tag) => map.serialize_entry(f.name, tag),
            Holds::CreationDate => map.serialize_entry(f.name, &Number(self.creation_date as f64)),
            Holds::Operation => map.serialize_entry(f.name, &self.operation),
            Holds::Context => map.serialize_entry(f.name, &self.context),
            Holds::Object(_) => map.serialize_entry(f.name, &self.evaluation),
            Holds::SamplingRatio if !self.sampling_ratio.is_one() => map.serialize_entry(f.name, &self.sampling_ratio),
            Holds::Measurements => map.serialize_entry(f.name, &self.measurements),
            _ => Ok(()),
        })?;
        map.end()
    }
}

impl<V: Serialize> Serialize for EvaluationDetail<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        write_fields(&mut map, EVALUATION.fields, |map, f| match (f.holds, &self.reason) {
            (Holds::FlagKey, _) => map.serialize_entry(f.name, &*self.key),
            (Holds::Served, _) => map.serialize_entry(f.name, &self.value),
            (Holds::DefaultStage, _) => map.serialize_entry(f.name, &self.default),
            (Holds::Reason, Some(reason)) => map.serialize_entry(f.name, reason),
            (Holds::Variation, _) => self.variation.map_or(Ok(()), |v| map.serialize_entry(f.name, &v)),
            (Holds::Version, _) => self.version.map_or(Ok(()), |v| map.serialize_entry(f.name, &v)),
            _ => Ok(()),
        })?;
        map.end()
    }
}

impl Serialize for Measurement {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        let form = MEASUREMENTS.iter().find(|m| m.fields.first().map(|f| f.holds) == Some(self.holds()));
        if let Some(form) = form {
            map.serialize_entry(MEASUREMENT_KEY, form.key)?;
            write_fields(&mut map, form.fields, |map, f| match (f.holds, self) {
                (Holds::Invoked | Holds::Errors, Measurement::Invoked { values } | Measurement::Error { values }) => {
                    map.serialize_entry(f.name, values)
                }
                (Holds::Consistent, Measurement::Consistent { value, .. }) => map.serialize_entry(f.name, value),
                (Holds::CheckRatio, Measurement::Consistent { sampling_ratio: Some(ratio), .. }) => {
                    map.serialize_entry(f.name, ratio)
                }
                (Holds::Latencies, Measurement::Latency { values }) => map.serialize_entry(f.name, values),
                _ => Ok(()),
            })?;
        }
        map.end()
    }
}

/// Per-origin values under [`ORIGINS`]' names, the ones that are there.
fn per_origin<S: Serializer, T: Serialize>(serializer: S, values: [Option<T>; 2]) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(None)?;
    for (name, value) in ORIGINS.iter().zip(values) {
        if let Some(value) = value {
            map.serialize_entry(name, &value)?;
        }
    }
    map.end()
}

impl Serialize for OriginFlags {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        per_origin(serializer, [self.old.then_some(true), self.new.then_some(true)])
    }
}

impl Serialize for OriginLatencies {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        per_origin(serializer, [self.old.map(Number), self.new.map(Number)])
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
        // In the order of `MEASUREMENTS` (written out: the loop over the table cost 1 KB of wasm;
        // `measurements_are_made_in_the_order_of_the_format` checks the order).
        let mut out = Vec::with_capacity(MEASUREMENTS.len());
        let invoked = OriginFlags::from_pair(self.invoked);
        if invoked.any() {
            out.push(Measurement::Invoked { values: invoked });
        }
        if let Some(value) = self.consistent {
            let written = !check_ratio.is_one() || rule == CheckRatioOnWire::Always;
            out.push(Measurement::Consistent { value, sampling_ratio: written.then_some(check_ratio) });
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
    fn measurements_are_made_in_the_order_of_the_format() {
        let all = Measurements {
            invoked: [true, true],
            latency: [Some(1.0), None],
            error: [true, false],
            consistent: Some(true),
        };
        let made: Vec<_> = all.to_wire(Ratio(1.0)).iter().map(Measurement::holds).collect();
        assert_eq!(made, crate::migration::event_format::MEASURED.to_vec());
    }

    #[test]
    fn the_format_names_origins_as_the_core_does() {
        assert_eq!(ORIGINS, [Origin::Old.as_str(), Origin::New.as_str()]);
    }

    #[test]
    fn fractional_ratio_is_written_as_a_fraction() {
        let m = Measurements { invoked: [true, true], consistent: Some(true), ..Default::default() };
        assert!(serde_json::to_string(&m.to_wire(Ratio(2.5))).unwrap().contains(r#""samplingRatio":2.5"#));
    }
}
