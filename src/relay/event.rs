//! The strict model of a posted `migration_op` event (API.md §1 "Events and the tracker", SPEC A6),
//! checked: one walk ([`check`]) reads a value against the tables of `schema.rs`, and names the
//! first place it breaks them.
//!
//! What is refused, beyond "not the wire format's fields and types":
//! - a key named `__proto__` anywhere (a consumer copying the object by assignment would change a
//!   prototype), and a string (keys included) over [`MAX_TEXT`] UTF-16 code units;
//! - a value nested deeper than [`MAX_DEPTH`] (only context attributes may nest at all);
//! - what LaunchDarkly's `trackMigration` would drop or change, so that an accepted event arrives
//!   as it was posted: an event without `evaluation.reason` (dropped whole), reason fields other than
//!   LaunchDarkly's (left out), a top-level `samplingRatio` other than 1 (the SDK samples the
//!   event again by it: a page's 1-in-N event would arrive 1 in N² times, weighted N), a context
//!   LaunchDarkly refuses, a `_meta` or `privateAttributeNames` it cannot read;
//! - A `consistent` measurement without a `samplingRatio` has the ratio 1, as on the wire (API.md
//!   §2c); LaunchDarkly's `trackMigration` would drop it, so it is forwarded with `samplingRatio: 1`
//!   ([`Forward::ratio_of_one_at`]).
//! - an event no tracker could have built (SPEC A5): nothing invoked, a latency or an error for an
//!   origin not invoked, a consistency result without both origins invoked, a measurement twice.

use super::schema::Need::ByLaunchDarkly;
use super::schema::*;
use super::wire::{text_units, Wire, MAX_TEXT};
use crate::migration::context::{self, ContextFacts, KeyFacts, KindFact, NestedFact};
use crate::migration::event_format::{
    name_of, Holds, EVALUATION, MEASUREMENTS, MEASUREMENT_KEY, MEASUREMENT_KEYS_TEXT, ORIGINS,
};

/// A name of the wire format's (an empty one, which no field has, if the format lacked it).
const fn named(name: Option<&'static str>) -> &'static str {
    match name {
        Some(name) => name,
        None => "",
    }
}

/// The names of the format's fields the relay reads by name.
const MEASUREMENTS_FIELD: &str = named(name_of(Holds::Measurements));
const CHECK_RATIO_FIELD: &str = named(name_of(Holds::CheckRatio));
const EVALUATION_FIELD: &str = named(name_of(Holds::Object(&EVALUATION)));
const FLAG_KEY_FIELD: &str = named(name_of(Holds::FlagKey));

/// Why a value is not an event the relay forwards: where, then what (`context.key: must be a
/// non-empty string`).
pub type Refusal = String;

/// Where a value sits in the event, written out only for a refusal.
#[derive(Clone, Copy)]
enum At<'a> {
    Event,
    Field(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl At<'_> {
    fn write(&self, out: &mut String) {
        match self {
            At::Event => {}
            At::Field(parent, name) => {
                parent.write(out);
                if !matches!(parent, At::Event) {
                    out.push('.');
                }
                out.push_str(name);
            }
            At::Index(parent, index) => {
                parent.write(out);
                out.push('[');
                out.push_str(&index.to_string());
                out.push(']');
            }
        }
    }
}

/// `<where>: <what>`, or `the event <what>` at the top.
fn refuse(at: &At, what: &[&str]) -> Refusal {
    let mut out = String::new();
    at.write(&mut out);
    out.push_str(if out.is_empty() { "the event " } else { ": " });
    what.iter().for_each(|part| out.push_str(part));
    out
}

fn must_be(at: &At, what: &str, value: &Wire) -> Refusal {
    refuse(at, &["must be ", what, ", ", value.got()])
}

const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A value against a shape.
fn check(value: &Wire, shape: Shape, at: &At) -> Result<(), Refusal> {
    if let Wire::TooDeep = value {
        return Err(refuse(at, &["is nested deeper than 10 levels"]));
    }
    if let Wire::LongText = value {
        return Err(refuse(at, &["is longer than 1024 characters"]));
    }
    let number = |what: &'static str, ok: fn(f64) -> bool| match value {
        Wire::Number(n) if !n.is_finite() => Err(refuse(at, &["must be a finite number"])),
        Wire::Number(n) if ok(*n) => Ok(()),
        Wire::Number(_) => Err(refuse(at, &["must be ", what])),
        other => Err(must_be(at, "a number", other)),
    };
    match shape {
        Shape::Text | Shape::Key => match value {
            Wire::Text(t) if t.is_empty() && matches!(shape, Shape::Key) => {
                Err(refuse(at, &["must be a non-empty string"]))
            }
            Wire::Text(_) => Ok(()),
            other => Err(must_be(at, "a string", other)),
        },
        Shape::OneOf(allowed, what) => match value {
            Wire::Text(t) if allowed.contains(&t.as_str()) => Ok(()),
            Wire::Text(_) => Err(refuse(at, &["must be ", what])),
            other => Err(must_be(at, "a string", other)),
        },
        Shape::Bool => match value {
            Wire::Bool(_) => Ok(()),
            other => Err(must_be(at, "a boolean", other)),
        },
        Shape::True => match value {
            Wire::Bool(true) => Ok(()),
            other => Err(must_be(at, "true", other)),
        },
        Shape::Count => number("an integer of at least 0", |n| n >= 0.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER),
        Shape::Ratio => number("an integer of at least 1", |n| n >= 1.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER),
        Shape::One => {
            number("1 or left out (LaunchDarkly's SDK samples a forwarded event again by its samplingRatio)", |n| {
                n == 1.0
            })
        }
        Shape::Latency => number("a latency of at least 0 ms", |n| n >= 0.0),
        Shape::Strings => match value {
            Wire::Array(items) => {
                items.iter().enumerate().try_for_each(|(i, item)| check(item, Shape::Text, &At::Index(at, i)))
            }
            other => Err(must_be(at, "an array of strings", other)),
        },
        Shape::Data => match value {
            Wire::Null | Wire::Bool(_) | Wire::Text(_) => Ok(()),
            Wire::Number(_) => number("", |_| true),
            Wire::Array(items) => {
                items.iter().enumerate().try_for_each(|(i, item)| check(item, Shape::Data, &At::Index(at, i)))
            }
            Wire::Object(entries) => entries.iter().try_for_each(|(key, item)| {
                check_key(key, at)?;
                check(item, Shape::Data, &At::Field(at, key))
            }),
            _ => Err(refuse(at, &["is not JSON data"])),
        },
        Shape::Object(object) => check_object(value, Table::Own(object), at),
        Shape::Form(form) => check_object(value, Table::Form(form), at),
        Shape::Origins(shape) => check_object(value, Table::Origins(shape), at),
        Shape::Exactly(tag) => match value {
            Wire::Text(t) if t == tag => Ok(()),
            Wire::Text(_) => Err(refuse(at, &["must be ", tag])),
            other => Err(must_be(at, "a string", other)),
        },
        Shape::Context => check_context(value, at),
        Shape::Measurements => check_measurements(value, at),
    }
}

fn check_key(key: &str, at: &At) -> Result<(), Refusal> {
    if key == "__proto__" {
        return Err(refuse(at, &["has a key __proto__"]));
    }
    if text_units(key) > MAX_TEXT {
        return Err(refuse(at, &["has a key longer than 1024 characters"]));
    }
    Ok(())
}

fn entries<'w>(value: &'w Wire, at: &At) -> Result<&'w [(String, Wire)], Refusal> {
    match value {
        Wire::Object(entries) => {
            entries.iter().try_for_each(|(key, _)| check_key(key, at))?;
            Ok(entries)
        }
        other => Err(must_be(at, "an object", other)),
    }
}

fn check_object(value: &Wire, table: Table, at: &At) -> Result<(), Refusal> {
    let entries = entries(value, at)?;
    for (key, item) in entries {
        let here = At::Field(at, key);
        match table.shape(key) {
            Some(shape) => check(item, shape, &here)?,
            None if table.others_are_data() => check(item, Shape::Data, &here)?,
            None => return Err(refuse(&here, &["is not a field of ", table.what()])),
        }
    }
    if let Some((name, need)) = table.first_missing(|name| value.field(name).is_none()) {
        let here = At::Field(at, name);
        return Err(match need {
            ByLaunchDarkly(of) => refuse(&here, &["is missing (LaunchDarkly's trackMigration drops ", of, ")"]),
            _ => refuse(&here, &["is missing"]),
        });
    }
    Ok(())
}

/// A context: its attributes checked, then its kinds and keys as LaunchDarkly reads them (SPEC
/// A5.4, with `key` required: `targetingKey` is OpenFeature's name, not LaunchDarkly's).
fn check_context(value: &Wire, at: &At) -> Result<(), Refusal> {
    let keys = KeyFacts { key: Some(true), targeting_key: None };
    let facts = match value.field("kind") {
        Some(Wire::Text(kind)) if kind == "multi" => {
            let mut nested = Vec::new();
            for (kind, part) in entries(value, at)?.iter().filter(|(name, _)| name != "kind") {
                let here = At::Field(at, kind);
                if kind == "key" {
                    return Err(refuse(&here, &["is not allowed in a multi-kind context"]));
                }
                check_object(part, Table::Own(&ATTRIBUTES), &here)?;
                nested.push((kind.clone(), NestedFact::Context(keys)));
            }
            ContextFacts::Multi { has_key: false, nested }
        }
        kind => {
            check_object(value, Table::Own(&ATTRIBUTES), at)?;
            let kind = match kind {
                Some(Wire::Text(kind)) => KindFact::Text(kind.clone()),
                _ => KindFact::Absent,
            };
            ContextFacts::Single { kind, keys }
        }
    };
    if context::is_valid(&facts) {
        Ok(())
    } else {
        Err(refuse(
            at,
            &["is not a context LaunchDarkly accepts (a kind is one or more of A-Z a-z 0-9 . _ -, never kind or multi; a multi-kind context has at least one)"],
        ))
    }
}

/// The origins a measurement's `values` names: bit 0 old, bit 1 new.
fn origins(measurement: &Wire) -> u8 {
    match measurement.field("values") {
        Some(Wire::Object(entries)) => {
            entries.iter().fold(0, |bits, (k, _)| bits | ORIGINS.iter().position(|o| o == k).map_or(0, |i| 1 << i))
        }
        _ => 0,
    }
}

/// The measurements: each of its table, each key once, and together what SPEC A5 requires of
/// a built event.
fn check_measurements(value: &Wire, at: &At) -> Result<(), Refusal> {
    let Wire::Array(items) = value else {
        return Err(must_be(at, "an array", value));
    };
    // By measurement (in `MEASUREMENTS` order): the origins each names, once seen.
    let mut seen: [Option<u8>; MEASUREMENTS.len()] = [None; MEASUREMENTS.len()];
    for (i, item) in items.iter().enumerate() {
        let here = At::Index(at, i);
        entries(item, &here)?;
        let key_at = At::Field(&here, MEASUREMENT_KEY);
        let key = item.field(MEASUREMENT_KEY).ok_or_else(|| refuse(&key_at, &["is missing"]))?;
        check(key, Shape::Text, &key_at)?;
        let Some((slot, form)) = (match key {
            Wire::Text(k) => measurement(k),
            _ => None,
        }) else {
            return Err(refuse(&key_at, &["must be ", MEASUREMENT_KEYS_TEXT]));
        };
        check_object(item, Table::Measurement(form), &here)?;
        match seen.get_mut(slot) {
            Some(Some(_)) => return Err(refuse(&here, &["repeats a measurement key"])),
            Some(empty) => *empty = Some(origins(item)),
            None => {}
        }
    }
    let origins_of = |holds| measurement_holding(holds).and_then(|slot| seen.get(slot).copied().flatten());
    let invoked = origins_of(Holds::Invoked).unwrap_or(0);
    if invoked == 0 {
        return Err(refuse(at, &["invoke no origin (no origins were invoked)"]));
    }
    if origins_of(Holds::Consistent).is_some() && invoked != 3 {
        return Err(refuse(at, &["record consistency without both origins invoked"]));
    }
    for (holds, what) in [(Holds::Latencies, "latency"), (Holds::Errors, "error")] {
        let stray = origins_of(holds).unwrap_or(0) & !invoked;
        if stray != 0 {
            let origin = ORIGINS.get(stray.trailing_zeros() as usize).copied().unwrap_or_default();
            return Err(refuse(at, &["record ", what, " for origin '", origin, "' without its invocation"]));
        }
    }
    Ok(())
}

/// What the relay writes into an event it forwards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Forward {
    /// The index in `measurements` of a `consistent` measurement without a `samplingRatio`: it is
    /// forwarded with `samplingRatio: 1`.
    pub ratio_of_one_at: Option<usize>,
}

impl Forward {
    /// The names the ratio is written under: the event's measurements, and the check ratio of the
    /// measurement at `ratio_of_one_at` (the wire format's, `event_format.rs`).
    pub fn ratio_names() -> (&'static str, &'static str) {
        (MEASUREMENTS_FIELD, CHECK_RATIO_FIELD)
    }
}

/// The index of the `consistent` measurement that has no `samplingRatio`, if there is one.
fn consistent_without_ratio(value: &Wire) -> Option<usize> {
    let Some(Wire::Array(items)) = value.field(MEASUREMENTS_FIELD) else {
        return None;
    };
    let consistent = measurement_holding(Holds::Consistent).and_then(|slot| MEASUREMENTS.get(slot))?;
    items.iter().position(|item| {
        matches!(item.field(MEASUREMENT_KEY), Some(Wire::Text(k)) if k == consistent.key)
            && item.field(CHECK_RATIO_FIELD).is_none()
    })
}

/// Whether the relay forwards a posted value, and what it writes into it, else why not.
/// `flag_keys`, when given, are the only flag keys taken.
pub fn judge(value: &Wire, flag_keys: Option<&[String]>) -> Result<Forward, Refusal> {
    check_object(value, EVENT, &At::Event)?;
    if let Some(allowed) = flag_keys {
        let key = value.field(EVALUATION_FIELD).and_then(|e| e.field(FLAG_KEY_FIELD));
        if !matches!(key, Some(Wire::Text(key)) if allowed.contains(key)) {
            return Err(refuse(
                &At::Field(&At::Field(&At::Event, EVALUATION_FIELD), FLAG_KEY_FIELD),
                &["is not one of the relay's flagKeys"],
            ));
        }
    }
    Ok(Forward { ratio_of_one_at: consistent_without_ratio(value) })
}
