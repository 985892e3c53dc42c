//! The `migration_op` event's wire format (SPEC A6, API.md §1 "Events and the tracker"), written
//! once, as data: each object's fields in wire order, with the name each has on the wire, what it
//! holds and whether it may be left out. Everything that writes or reads the format reads these
//! tables: the event's serde form (`event.rs`), the record the bindings lay the event out in and
//! the bridge's builder generated from it (`src/js/event.rs`, `js/bridge/event_format.js` by
//! `scripts/event_format.rs`), and the relay's checks of a posted event (`src/relay/schema.rs`).
//!
//! Plain data without imports: `scripts/event_format.rs` compiles this file on its own.

/// What a field holds: each a fact of the event, once in the format.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Holds {
    /// Always this text (the event's `kind`).
    Tag(&'static str),
    /// When the event was built: milliseconds since the epoch, an integer.
    CreationDate,
    /// The operation's name (`read`, `write`).
    Operation,
    /// The caller's context, as it was given.
    Context,
    /// An object of this form.
    Object(&'static Form),
    /// The flag's key, a non-empty string.
    FlagKey,
    /// The stage the flag served (a stage's name).
    Served,
    /// The caller's default stage (a stage's name).
    DefaultStage,
    /// The flag system's reason object, as given (or cutover's `{kind: 'ERROR', errorKind}`).
    Reason,
    /// The served variation's index, an integer ≥ 0.
    Variation,
    /// The flag's version, an integer ≥ 0.
    Version,
    /// The event's 1-in-N sampling ratio; left out when 1.
    SamplingRatio,
    /// The measurements: those of [`MEASUREMENTS`] that apply, in that order.
    Measurements,
    /// Per origin ([`ORIGINS`]), `true` for each origin that ran; only those are written.
    Invoked,
    /// Whether the two origins' results were consistent.
    Consistent,
    /// The consistency check's 1-in-N ratio; left out when 1 (as the client asks: see
    /// `CheckRatioOnWire` in event.rs).
    CheckRatio,
    /// Per origin ([`ORIGINS`]), its latency in milliseconds (a finite number ≥ 0); only the
    /// measured ones are written.
    Latencies,
    /// Per origin ([`ORIGINS`]), `true` for each origin that failed; only those are written.
    Errors,
}

/// Whether a field may be left out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Need {
    /// Always written.
    Required,
    /// Written when the event has it.
    Optional,
    /// Written when the event has it; LaunchDarkly's `trackMigration` drops an event without it,
    /// as the text says.
    ByLaunchDarkly(&'static str),
}

/// One field: its name on the wire, what it holds, whether it may be left out.
#[derive(Debug, PartialEq)]
pub struct Field {
    pub name: &'static str,
    pub holds: Holds,
    pub need: Need,
}

/// An object's fields in wire order; `what` names the object (in the relay's refusals).
#[derive(Debug, PartialEq)]
pub struct Form {
    pub what: &'static str,
    pub fields: &'static [Field],
}

/// One kind of measurement: an object whose [`MEASUREMENT_KEY`] field is `key`, then `fields`.
/// It is in the event when its first field has a value.
#[derive(Debug)]
pub struct Measurement {
    pub key: &'static str,
    pub fields: &'static [Field],
}

const fn field(name: &'static str, holds: Holds, need: Need) -> Field {
    Field { name, holds, need }
}

use Need::{ByLaunchDarkly, Optional, Required};

/// The event.
pub const EVENT: Form = Form {
    what: "a migration_op event",
    fields: &[
        field("kind", Holds::Tag("migration_op"), Required),
        field("creationDate", Holds::CreationDate, Required),
        field("operation", Holds::Operation, Required),
        field("context", Holds::Context, Required),
        field("evaluation", Holds::Object(&EVALUATION), Required),
        field("samplingRatio", Holds::SamplingRatio, Optional),
        field("measurements", Holds::Measurements, Required),
    ],
};

/// The event's `evaluation`: what the flag served for this context.
pub const EVALUATION: Form = Form {
    what: "an evaluation",
    fields: &[
        field("key", Holds::FlagKey, Required),
        field("value", Holds::Served, Required),
        field("default", Holds::DefaultStage, Required),
        field("reason", Holds::Reason, ByLaunchDarkly("an event without one")),
        field("variation", Holds::Variation, Optional),
        field("version", Holds::Version, Optional),
    ],
};

/// The name of the field that says which measurement an entry of `measurements` is.
pub const MEASUREMENT_KEY: &str = "key";

/// What a measurement is called in refusals of its fields.
pub const MEASUREMENT_WHAT: &str = "this measurement";

/// The measurements, in the order the event lists them.
pub const MEASUREMENTS: [Measurement; 4] = [
    Measurement { key: "invoked", fields: &[field("values", Holds::Invoked, Required)] },
    Measurement {
        key: "consistent",
        fields: &[field("value", Holds::Consistent, Required), field("samplingRatio", Holds::CheckRatio, Optional)],
    },
    Measurement { key: "latency_ms", fields: &[field("values", Holds::Latencies, Required)] },
    Measurement { key: "error", fields: &[field("values", Holds::Errors, Required)] },
];

/// The measurements' keys in a sentence, for messages (a native test checks it names each of
/// [`MEASUREMENTS`], in order).
pub const MEASUREMENT_KEYS_TEXT: &str = "invoked, consistent, latency_ms or error";

/// The keys of a measurement's per-origin values, in origin order (old, new).
pub const ORIGINS: [&str; 2] = ["old", "new"];

/// What a per-origin measurement's `values` object is called in refusals of its fields.
pub const ORIGINS_WHAT: &str = "a measurement's values (old, new)";

impl Holds {
    /// How many numbers the value takes when the event is laid out flat, fields in wire order
    /// (`src/js/event.rs`'s record): none for a tag or a reference (the context, the flag key, the
    /// reason), one per origin for latencies, the sum of its fields' for an object or the
    /// measurements, else one (per-origin flags as bits: old 1, new 2).
    pub const fn numbers(&self) -> usize {
        match self {
            Holds::Tag(_) | Holds::Context | Holds::FlagKey | Holds::Reason => 0,
            Holds::Latencies => ORIGINS.len(),
            Holds::Object(form) => numbers_of(form.fields),
            Holds::Measurements => numbers_of_measurements(&MEASUREMENTS),
            _ => 1,
        }
    }
}

/// The numbers of these fields laid out flat ([`Holds::numbers`]).
pub const fn numbers_of(fields: &[Field]) -> usize {
    match fields.split_first() {
        Some((first, rest)) => first.holds.numbers() + numbers_of(rest),
        None => 0,
    }
}

const fn numbers_of_measurements(measurements: &[Measurement]) -> usize {
    match measurements.split_first() {
        Some((first, rest)) => numbers_of(first.fields) + numbers_of_measurements(rest),
        None => 0,
    }
}

/// The name of the field that holds `holds`, wherever it is in the event (each fact is held by
/// one field), compared by variant (any `Object` is the first object); `None` when none does.
pub const fn name_of(holds: Holds) -> Option<&'static str> {
    name_in(EVENT.fields, &holds)
}

const fn name_in(fields: &'static [Field], holds: &Holds) -> Option<&'static str> {
    let Some((first, rest)) = fields.split_first() else {
        return None;
    };
    if variant(&first.holds) == variant(holds) {
        return Some(first.name);
    }
    let inner = match first.holds {
        Holds::Object(form) => name_in(form.fields, holds),
        Holds::Measurements => name_in_measurements(&MEASUREMENTS, holds),
        _ => None,
    };
    match inner {
        Some(name) => Some(name),
        None => name_in(rest, holds),
    }
}

const fn name_in_measurements(measurements: &'static [Measurement], holds: &Holds) -> Option<&'static str> {
    match measurements.split_first() {
        Some((first, rest)) => match name_in(first.fields, holds) {
            Some(name) => Some(name),
            None => name_in_measurements(rest, holds),
        },
        None => None,
    }
}

/// The variant of a `Holds`, as a number (for comparisons in constant expressions).
const fn variant(holds: &Holds) -> u8 {
    match holds {
        Holds::Tag(_) => 0,
        Holds::CreationDate => 1,
        Holds::Operation => 2,
        Holds::Context => 3,
        Holds::Object(_) => 4,
        Holds::FlagKey => 5,
        Holds::Served => 6,
        Holds::DefaultStage => 7,
        Holds::Reason => 8,
        Holds::Variation => 9,
        Holds::Version => 10,
        Holds::SamplingRatio => 11,
        Holds::Measurements => 12,
        Holds::Invoked => 13,
        Holds::Consistent => 14,
        Holds::CheckRatio => 15,
        Holds::Latencies => 16,
        Holds::Errors => 17,
    }
}

/// Where the (first) number of the field that holds `holds` is when the event is laid out flat
/// ([`Holds::numbers`]); `None` when no field holds it or it takes no
/// number. A constant expression, so that a layout costs no walk at run time.
pub const fn slot_of(holds: Holds) -> Option<usize> {
    slot_in(EVENT.fields, &holds, 0)
}

const fn slot_in(fields: &[Field], holds: &Holds, start: usize) -> Option<usize> {
    let Some((first, rest)) = fields.split_first() else {
        return None;
    };
    if variant(&first.holds) == variant(holds) && first.holds.numbers() > 0 {
        return Some(start);
    }
    let inner = match first.holds {
        Holds::Object(form) => slot_in(form.fields, holds, start),
        Holds::Measurements => slot_in_measurements(&MEASUREMENTS, holds, start),
        _ => None,
    };
    match inner {
        Some(slot) => Some(slot),
        None => slot_in(rest, holds, start + first.holds.numbers()),
    }
}

const fn slot_in_measurements(measurements: &[Measurement], holds: &Holds, start: usize) -> Option<usize> {
    match measurements.split_first() {
        Some((first, rest)) => match slot_in(first.fields, holds, start) {
            Some(slot) => Some(slot),
            None => slot_in_measurements(rest, holds, start + numbers_of(first.fields)),
        },
        None => None,
    }
}

/// What the first field of each measurement holds, in the order of [`MEASUREMENTS`]: what names
/// a measurement (a constant, so that ordering measurements reads no table at run time).
pub const MEASURED: [Holds; MEASUREMENTS.len()] = {
    let [a, b, c, d] = &MEASUREMENTS;
    [first_holds(a), first_holds(b), first_holds(c), first_holds(d)]
};

const fn first_holds(measurement: &Measurement) -> Holds {
    match measurement.fields.split_first() {
        Some((first, _)) => first.holds,
        None => Holds::Tag(measurement.key),
    }
}

/// Where the measurement whose first field holds `holds` is in [`MEASUREMENTS`] ([`MEASURED`]);
/// `MEASUREMENTS.len()` when none. A constant expression.
pub const fn measurement_rank(holds: Holds) -> usize {
    let mut rest: &[Holds] = &MEASURED;
    let mut rank = 0;
    while let Some((first, tail)) = rest.split_first() {
        if variant(first) == variant(&holds) {
            return rank;
        }
        rest = tail;
        rank += 1;
    }
    rank
}
