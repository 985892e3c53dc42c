//! The strict model of a posted `migration_op` event (API.md §1 "Events and the tracker", SPEC A6)
//! and its reader: [`RelayedEvent::read`] gives the model or the reason it refuses the value.
//!
//! What is refused, beyond "not the wire format's fields and types":
//! - a key named `__proto__` anywhere (a consumer copying the object by assignment would change a
//!   prototype), and a string (keys included) over [`MAX_TEXT`] UTF-16 code units;
//! - a value nested deeper than [`MAX_DEPTH`] (only context attributes may nest at all);
//! - what LaunchDarkly's `trackMigration` would drop or change, so that an accepted event arrives
//!   as it was posted: an event without `evaluation.reason` (dropped whole), a `consistent`
//!   measurement without a `samplingRatio` (the measurement dropped), reason fields other than
//!   LaunchDarkly's (left out), a top-level `samplingRatio` other than 1 (the SDK samples the
//!   event again by it: a page's 1-in-N event would arrive 1 in N² times, weighted N), a context
//!   LaunchDarkly refuses, a `_meta` or `privateAttributeNames` it cannot read;
//! - an event no tracker could have built (SPEC A5): nothing invoked, a latency or an error for an
//!   origin not invoked, a consistency result without both origins invoked, a measurement twice.

use super::wire::{text_units, Wire, MAX_DEPTH, MAX_TEXT};
use crate::migration::context::{self, ContextFacts, KeyFacts, KindFact, NestedFact};
use crate::migration::event::{Measurement, OriginFlags, OriginLatencies, Ratio};
use crate::migration::stage::{Operation, Origin, Stage};

/// Why a value is not an event the relay forwards: where, then what (`context.key: must be a
/// non-empty string`).
pub type Refusal = String;

/// The evaluation reason kinds LaunchDarkly writes.
const REASON_KINDS: [&str; 6] = ["OFF", "FALLTHROUGH", "TARGET_MATCH", "RULE_MATCH", "PREREQUISITE_FAILED", "ERROR"];

/// The latest creation date taken: the largest integer a JavaScript number holds exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// An evaluation reason, with LaunchDarkly's fields only.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RelayedReason {
    pub kind: String,
    pub error_kind: Option<String>,
    pub rule_id: Option<String>,
    pub rule_index: Option<f64>,
    pub prerequisite_key: Option<String>,
    pub in_experiment: Option<bool>,
    pub big_segments_status: Option<String>,
}

/// The `evaluation` of an event.
#[derive(Clone, Debug, PartialEq)]
pub struct RelayedEvaluation {
    pub key: String,
    pub value: Stage,
    pub default: Stage,
    pub reason: RelayedReason,
    pub variation: Option<f64>,
    pub version: Option<f64>,
}

/// A posted event the relay forwards.
#[derive(Clone, Debug, PartialEq)]
pub struct RelayedEvent {
    pub creation_date: f64,
    pub operation: Operation,
    /// What context validation read of the context (its attributes were checked as data).
    pub context: ContextFacts,
    pub evaluation: RelayedEvaluation,
    pub measurements: Vec<Measurement>,
}

fn at_field(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_string()
    } else {
        let mut path = String::with_capacity(at.len() + 1 + name.len());
        path.push_str(at);
        path.push('.');
        path.push_str(name);
        path
    }
}

fn at_index(at: &str, index: usize) -> String {
    format!("{at}[{index}]")
}

fn refuse(at: &str, what: &str) -> Refusal {
    if at.is_empty() {
        format!("the event {what}")
    } else {
        format!("{at}: {what}")
    }
}

fn refuse_got(at: &str, what: &str, value: &Wire) -> Refusal {
    refuse(at, &format!("{what}, {}", value.got()))
}

/// The entries of an object, or the refusal; every key checked (length, `__proto__`).
fn object<'w>(value: &'w Wire, at: &str) -> Result<&'w [(String, Wire)], Refusal> {
    match value {
        Wire::Object(entries) => {
            for (key, _) in entries {
                key_allowed(key, at)?;
            }
            Ok(entries)
        }
        Wire::TooDeep => Err(refuse(at, &format!("is nested deeper than {MAX_DEPTH} levels"))),
        other => Err(refuse_got(at, "must be an object", other)),
    }
}

fn key_allowed(key: &str, at: &str) -> Result<(), Refusal> {
    if key == "__proto__" {
        return Err(refuse(at, "has a key __proto__"));
    }
    if text_units(key) > MAX_TEXT {
        return Err(refuse(at, &format!("has a key longer than {MAX_TEXT} characters")));
    }
    Ok(())
}

fn unknown(at: &str, key: &str, of: &str) -> Refusal {
    refuse(&at_field(at, key), &format!("is not a field of {of}"))
}

fn missing(at: &str, key: &str) -> Refusal {
    refuse(&at_field(at, key), "is missing")
}

fn text<'w>(value: &'w Wire, at: &str) -> Result<&'w str, Refusal> {
    match value {
        Wire::Text(text) => Ok(text),
        Wire::LongText => Err(refuse(at, &format!("is longer than {MAX_TEXT} characters"))),
        other => Err(refuse_got(at, "must be a string", other)),
    }
}

fn non_empty_text<'w>(value: &'w Wire, at: &str) -> Result<&'w str, Refusal> {
    match text(value, at)? {
        "" => Err(refuse(at, "must be a non-empty string")),
        text => Ok(text),
    }
}

fn boolean(value: &Wire, at: &str) -> Result<bool, Refusal> {
    match value {
        Wire::Bool(b) => Ok(*b),
        other => Err(refuse_got(at, "must be a boolean", other)),
    }
}

/// `true`, the only value an origin's `invoked` or `error` entry takes on the wire.
fn flag(value: &Wire, at: &str) -> Result<bool, Refusal> {
    match value {
        Wire::Bool(true) => Ok(true),
        other => Err(refuse_got(at, "must be true", other)),
    }
}

fn number(value: &Wire, at: &str) -> Result<f64, Refusal> {
    match value {
        Wire::Number(n) if n.is_finite() => Ok(*n),
        Wire::Number(_) => Err(refuse(at, "must be a finite number")),
        other => Err(refuse_got(at, "must be a number", other)),
    }
}

/// An integer from 0 to `Number.MAX_SAFE_INTEGER`.
fn count(value: &Wire, at: &str) -> Result<f64, Refusal> {
    let n = number(value, at)?;
    if n >= 0.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER {
        Ok(n)
    } else {
        Err(refuse(at, "must be an integer of at least 0"))
    }
}

fn stage(value: &Wire, at: &str) -> Result<Stage, Refusal> {
    Stage::parse(text(value, at)?)
        .ok_or_else(|| refuse(at, "must be a stage (off, dualwrite, shadow, live, rampdown, complete)"))
}

/// Any JSON data: strings within bounds, keys allowed, not nested too deep.
fn data(value: &Wire, at: &str) -> Result<(), Refusal> {
    match value {
        Wire::Null | Wire::Bool(_) | Wire::Text(_) => Ok(()),
        Wire::Number(_) => number(value, at).map(|_| ()),
        Wire::LongText => text(value, at).map(|_| ()),
        Wire::Array(items) => items.iter().enumerate().try_for_each(|(i, item)| data(item, &at_index(at, i))),
        Wire::Object(_) => object(value, at)?.iter().try_for_each(|(key, item)| data(item, &at_field(at, key))),
        Wire::TooDeep => object(value, at).map(|_| ()),
        Wire::NotData => Err(refuse(at, "is not JSON data")),
    }
}

fn strings(value: &Wire, at: &str) -> Result<(), Refusal> {
    match value {
        Wire::Array(items) => {
            items.iter().enumerate().try_for_each(|(i, item)| text(item, &at_index(at, i)).map(|_| ()))
        }
        other => Err(refuse_got(at, "must be an array of strings", other)),
    }
}

/// The attributes of one single-kind context (or legacy user): LaunchDarkly's own ones of their
/// types, any other as data. Returns its key facts.
fn context_attributes(value: &Wire, at: &str) -> Result<KeyFacts, Refusal> {
    let mut key = None;
    for (name, attribute) in object(value, at)? {
        let here = at_field(at, name);
        match name.as_str() {
            "kind" => {}
            "key" => {
                non_empty_text(attribute, &here)?;
                key = Some(true);
            }
            "anonymous" => {
                boolean(attribute, &here)?;
            }
            "name" => {
                text(attribute, &here)?;
            }
            "_meta" => {
                for (meta, entry) in object(attribute, &here)? {
                    match meta.as_str() {
                        "privateAttributes" => strings(entry, &at_field(&here, meta))?,
                        _ => return Err(unknown(&here, meta, "a context's _meta")),
                    }
                }
            }
            "privateAttributeNames" => strings(attribute, &here)?,
            _ => data(attribute, &here)?,
        }
    }
    if key.is_none() {
        return Err(missing(at, "key"));
    }
    // `targetingKey` is OpenFeature's, not LaunchDarkly's: only `key` counts here.
    Ok(KeyFacts { key, targeting_key: None })
}

/// The context, checked as LaunchDarkly reads it (SPEC A5.4, `key` required).
fn read_context(value: &Wire, at: &str) -> Result<ContextFacts, Refusal> {
    let entries = object(value, at)?;
    let kind = value.field("kind");
    let facts = match kind {
        Some(Wire::Text(kind)) if kind == "multi" => {
            let mut nested = Vec::new();
            for (name, part) in entries.iter().filter(|(name, _)| name != "kind") {
                let here = at_field(at, name);
                if name == "key" {
                    return Err(refuse(&here, "is not allowed in a multi-kind context"));
                }
                nested.push((name.clone(), NestedFact::Context(context_attributes(part, &here)?)));
            }
            ContextFacts::Multi { has_key: false, nested }
        }
        kind => {
            let keys = context_attributes(value, at)?;
            let kind = match kind {
                None => KindFact::Absent,
                Some(Wire::Text(kind)) => KindFact::Text(kind.clone()),
                Some(other) => return Err(refuse_got(&at_field(at, "kind"), "must be a string", other)),
            };
            ContextFacts::Single { kind, keys }
        }
    };
    if context::is_valid(&facts) {
        Ok(facts)
    } else {
        Err(refuse(
            at,
            "is not a context LaunchDarkly accepts (a kind is one or more of A-Z a-z 0-9 . _ -, never kind or multi; a multi-kind context has at least one)",
        ))
    }
}

fn read_reason(value: &Wire, at: &str) -> Result<RelayedReason, Refusal> {
    let mut reason = RelayedReason::default();
    let mut kind = None;
    for (name, field) in object(value, at)? {
        let here = at_field(at, name);
        match name.as_str() {
            "kind" => {
                let k = text(field, &here)?;
                if !REASON_KINDS.contains(&k) {
                    return Err(refuse(
                        &here,
                        "must be one of OFF, FALLTHROUGH, TARGET_MATCH, RULE_MATCH, PREREQUISITE_FAILED, ERROR",
                    ));
                }
                kind = Some(k.to_string());
            }
            "errorKind" => reason.error_kind = Some(text(field, &here)?.to_string()),
            "ruleId" => reason.rule_id = Some(text(field, &here)?.to_string()),
            "ruleIndex" => reason.rule_index = Some(count(field, &here)?),
            "prerequisiteKey" => reason.prerequisite_key = Some(text(field, &here)?.to_string()),
            "inExperiment" => reason.in_experiment = Some(boolean(field, &here)?),
            "bigSegmentsStatus" => reason.big_segments_status = Some(text(field, &here)?.to_string()),
            _ => return Err(unknown(at, name, "an evaluation reason")),
        }
    }
    reason.kind = kind.ok_or_else(|| missing(at, "kind"))?;
    Ok(reason)
}

fn read_evaluation(value: &Wire, at: &str, flag_keys: Option<&[String]>) -> Result<RelayedEvaluation, Refusal> {
    let (mut key, mut served, mut default, mut reason, mut variation, mut version) =
        (None, None, None, None, None, None);
    for (name, field) in object(value, at)? {
        let here = at_field(at, name);
        match name.as_str() {
            "key" => key = Some(non_empty_text(field, &here)?.to_string()),
            "value" => served = Some(stage(field, &here)?),
            "default" => default = Some(stage(field, &here)?),
            "reason" => reason = Some(read_reason(field, &here)?),
            "variation" => variation = Some(count(field, &here)?),
            "version" => version = Some(count(field, &here)?),
            _ => return Err(unknown(at, name, "an evaluation")),
        }
    }
    let key = key.ok_or_else(|| missing(at, "key"))?;
    let value = served.ok_or_else(|| missing(at, "value"))?;
    let default = default.ok_or_else(|| missing(at, "default"))?;
    let reason = reason.ok_or_else(|| {
        refuse(&at_field(at, "reason"), "is missing (LaunchDarkly's trackMigration drops an event without one)")
    })?;
    if let Some(allowed) = flag_keys {
        if !allowed.iter().any(|k| *k == key) {
            return Err(refuse(&at_field(at, "key"), "is not one of the relay's flagKeys"));
        }
    }
    Ok(RelayedEvaluation { key, value, default, reason, variation, version })
}

/// `{ old?, new? }` of one measurement, each entry read by `entry`.
fn origin_values<T>(
    value: &Wire,
    at: &str,
    entry: impl Fn(&Wire, &str) -> Result<T, Refusal>,
) -> Result<[Option<T>; 2], Refusal> {
    let mut out = [None, None];
    for (name, field) in object(value, at)? {
        let here = at_field(at, name);
        let slot = match Origin::parse(name) {
            Some(Origin::Old) => &mut out[0],
            Some(Origin::New) => &mut out[1],
            None => return Err(unknown(at, name, "a measurement's values (old, new)")),
        };
        *slot = Some(entry(field, &here)?);
    }
    Ok(out)
}

fn origin_flags(value: &Wire, at: &str) -> Result<OriginFlags, Refusal> {
    let [old, new] = origin_values(value, at, flag)?;
    Ok(OriginFlags { old: old.unwrap_or(false), new: new.unwrap_or(false) })
}

fn latency(value: &Wire, at: &str) -> Result<f64, Refusal> {
    match number(value, at)? {
        ms if ms >= 0.0 => Ok(ms),
        _ => Err(refuse(at, "must be a latency of at least 0 ms")),
    }
}

fn read_measurement(value: &Wire, at: &str) -> Result<Measurement, Refusal> {
    let entries = object(value, at)?;
    let tag = value.field("key").ok_or_else(|| missing(at, "key"))?;
    let tag = text(tag, &at_field(at, "key"))?;
    let fields: &[&str] = match tag {
        "invoked" | "latency_ms" | "error" => &["key", "values"],
        "consistent" => &["key", "value", "samplingRatio"],
        _ => return Err(refuse(&at_field(at, "key"), "must be invoked, consistent, latency_ms or error")),
    };
    if let Some((name, _)) = entries.iter().find(|(name, _)| !fields.contains(&name.as_str())) {
        return Err(unknown(at, name, "this measurement"));
    }
    let field = |name: &str| value.field(name).ok_or_else(|| missing(at, name));
    let values_at = at_field(at, "values");
    Ok(match tag {
        "invoked" => Measurement::Invoked { values: origin_flags(field("values")?, &values_at)? },
        "error" => Measurement::Error { values: origin_flags(field("values")?, &values_at)? },
        "latency_ms" => {
            let [old, new] = origin_values(field("values")?, &values_at, latency)?;
            Measurement::Latency { values: OriginLatencies { old, new } }
        }
        _ => {
            let value = boolean(field("value")?, &at_field(at, "value"))?;
            let ratio_at = at_field(at, "samplingRatio");
            let ratio = value_or_missing(value_field(entries, "samplingRatio"), &ratio_at)?;
            let ratio = count(ratio, &ratio_at)?;
            if ratio < 1.0 {
                return Err(refuse(&ratio_at, "must be an integer of at least 1"));
            }
            Measurement::Consistent { value, sampling_ratio: Some(Ratio(ratio)) }
        }
    })
}

fn value_field<'w>(entries: &'w [(String, Wire)], name: &str) -> Option<&'w Wire> {
    entries.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

fn value_or_missing<'w>(value: Option<&'w Wire>, at: &str) -> Result<&'w Wire, Refusal> {
    value.ok_or_else(|| {
        refuse(at, "is missing (LaunchDarkly's trackMigration drops a consistent measurement without one)")
    })
}

/// The measurements together: each key once; what SPEC A5 requires of a built event.
fn measurements_agree(measurements: &[Measurement], at: &str) -> Result<(), Refusal> {
    let tag = |m: &Measurement| match m {
        Measurement::Invoked { .. } => 0,
        Measurement::Consistent { .. } => 1,
        Measurement::Latency { .. } => 2,
        Measurement::Error { .. } => 3,
    };
    let mut seen = [false; 4];
    for (i, m) in measurements.iter().enumerate() {
        let slot = seen.get_mut(tag(m)).ok_or_else(|| refuse(at, "is unreadable"))?;
        if *slot {
            return Err(refuse(&at_index(at, i), "repeats a measurement key"));
        }
        *slot = true;
    }
    let invoked = measurements
        .iter()
        .find_map(|m| match m {
            Measurement::Invoked { values } => Some(*values),
            _ => None,
        })
        .unwrap_or_default();
    if !invoked.any() {
        return Err(refuse(at, "invoke no origin (no origins were invoked)"));
    }
    for m in measurements {
        let (old, new, what) = match m {
            Measurement::Latency { values } => (values.old.is_some(), values.new.is_some(), "latency"),
            Measurement::Error { values } => (values.old, values.new, "error"),
            Measurement::Consistent { .. } => {
                if !(invoked.old && invoked.new) {
                    return Err(refuse(at, "record consistency without both origins invoked"));
                }
                continue;
            }
            Measurement::Invoked { .. } => continue,
        };
        if old && !invoked.old {
            return Err(refuse(at, &format!("record {what} for origin 'old' without its invocation")));
        }
        if new && !invoked.new {
            return Err(refuse(at, &format!("record {what} for origin 'new' without its invocation")));
        }
    }
    Ok(())
}

impl RelayedEvent {
    /// The event a posted value is, or why the relay refuses it. `flag_keys`, when given, are the
    /// only flag keys taken.
    pub fn read(value: &Wire, flag_keys: Option<&[String]>) -> Result<RelayedEvent, Refusal> {
        let entries = object(value, "")?;
        let field = |name: &str| value.field(name).ok_or_else(|| missing("", name));
        if let Some((name, _)) = entries.iter().find(|(name, _)| {
            !matches!(
                name.as_str(),
                "kind" | "creationDate" | "operation" | "context" | "evaluation" | "samplingRatio" | "measurements"
            )
        }) {
            return Err(unknown("", name, "a migration_op event"));
        }
        if text(field("kind")?, "kind")? != "migration_op" {
            return Err(refuse("kind", "must be migration_op"));
        }
        let creation_date = count(field("creationDate")?, "creationDate")?;
        let operation = Operation::parse(text(field("operation")?, "operation")?)
            .ok_or_else(|| refuse("operation", "must be read or write"))?;
        let context = read_context(field("context")?, "context")?;
        let evaluation = read_evaluation(field("evaluation")?, "evaluation", flag_keys)?;
        if let Some(ratio) = value.field("samplingRatio") {
            if number(ratio, "samplingRatio")? != 1.0 {
                return Err(refuse(
                    "samplingRatio",
                    "must be 1 or left out (LaunchDarkly's SDK samples a forwarded event again by its samplingRatio)",
                ));
            }
        }
        let measurements = match field("measurements")? {
            Wire::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| read_measurement(item, &at_index("measurements", i)))
                .collect::<Result<Vec<_>, _>>()?,
            other => return Err(refuse_got("measurements", "must be an array", other)),
        };
        measurements_agree(&measurements, "measurements")?;
        Ok(RelayedEvent { creation_date, operation, context, evaluation, measurements })
    }
}
