//! What the relay takes of a posted `migration_op` event, as data: the event's own objects are the
//! tables of the wire format (`crate::migration::event_format`), each field's value checked by the
//! shape [`shape_of`] gives what it holds; the objects inside it that LaunchDarkly defines (a
//! context, an evaluation reason) are the tables here. `event.rs` walks a value against them.
//! (Tables and one walk, not a reader per object: the readers written out cost 11.7 KB of gzipped
//! wasm and took the tarball over its bound; this is a fraction of it.)

use crate::migration::event_format::{self as format, Holds, MEASUREMENTS, MEASUREMENT_KEY, MEASUREMENT_WHAT, ORIGINS};
pub(super) use crate::migration::event_format::{Need, ORIGINS_WHAT};

/// What a value must be.
#[derive(Clone, Copy, Debug)]
pub(super) enum Shape {
    /// A string within `wire::MAX_TEXT`.
    Text,
    /// A non-empty string within `wire::MAX_TEXT`.
    Key,
    /// One of these strings; the text says which ones.
    OneOf(&'static [&'static str], &'static str),
    Bool,
    /// `true`: an origin's entry in `invoked` and `error`.
    True,
    /// An integer from 0 to `Number.MAX_SAFE_INTEGER`.
    Count,
    /// An integer of at least 1 (a check ratio that sampled).
    Ratio,
    /// The number 1 (see the module's text on `samplingRatio`).
    One,
    /// A finite number ≥ 0.
    Latency,
    /// An array of strings.
    Strings,
    /// Any JSON data within the bounds.
    Data,
    Object(&'static Object),
    /// A context: an object of [`ATTRIBUTES`], or `kind: "multi"` and such objects by kind.
    Context,
    /// The measurements: an array of objects, each of the table its `key` names.
    Measurements,
    /// Exactly this text (a tag of the format).
    Exactly(&'static str),
    /// An object of the wire format.
    Form(&'static format::Form),
    /// Per-origin values ([`ORIGINS`]), each optional, each of this shape.
    Origins(&'static Shape),
}

#[derive(Debug)]
pub(super) struct Field {
    pub(super) name: &'static str,
    pub(super) need: Need,
    pub(super) shape: Shape,
}

/// An object's fields; `what` names the object in refusals of an unknown field. With
/// `others_are_data`, other keys are allowed and hold data (a context's attributes).
#[derive(Debug)]
pub(super) struct Object {
    pub(super) what: &'static str,
    pub(super) fields: &'static [Field],
    pub(super) others_are_data: bool,
}

pub(super) const fn field(name: &'static str, need: Need, shape: Shape) -> Field {
    Field { name, need, shape }
}

use Need::{Optional, Required};

pub(super) const STAGES: Shape = Shape::OneOf(
    &["off", "dualwrite", "shadow", "live", "rampdown", "complete"],
    "a stage (off, dualwrite, shadow, live, rampdown, complete)",
);

pub(super) const REASON: Object = Object {
    what: "an evaluation reason",
    fields: &[
        field(
            "kind",
            Required,
            Shape::OneOf(
                &["OFF", "FALLTHROUGH", "TARGET_MATCH", "RULE_MATCH", "PREREQUISITE_FAILED", "ERROR"],
                "one of OFF, FALLTHROUGH, TARGET_MATCH, RULE_MATCH, PREREQUISITE_FAILED, ERROR",
            ),
        ),
        field("errorKind", Optional, Shape::Text),
        field("ruleId", Optional, Shape::Text),
        field("ruleIndex", Optional, Shape::Count),
        field("prerequisiteKey", Optional, Shape::Text),
        field("inExperiment", Optional, Shape::Bool),
        field("bigSegmentsStatus", Optional, Shape::Text),
    ],
    others_are_data: false,
};

pub(super) const META: Object = Object {
    what: "a context's _meta",
    fields: &[field("privateAttributes", Optional, Shape::Strings)],
    others_are_data: false,
};

/// One single-kind context (or legacy user, or a multi-kind context's part): LaunchDarkly's own
/// attributes of their types, any other as data. `kind` is read by `check_context` (event.rs).
pub(super) const ATTRIBUTES: Object = Object {
    what: "a context",
    fields: &[
        field("kind", Optional, Shape::Text),
        field("key", Required, Shape::Key),
        field("anonymous", Optional, Shape::Bool),
        field("name", Optional, Shape::Text),
        field("_meta", Optional, Shape::Object(&META)),
        field("privateAttributeNames", Optional, Shape::Strings),
    ],
    others_are_data: true,
};

pub(super) const OPERATIONS: Shape = Shape::OneOf(&["read", "write"], "read or write");

/// What the relay takes for a field of the format that holds `holds`.
pub(super) fn shape_of(holds: Holds) -> Shape {
    match holds {
        Holds::Tag(tag) => Shape::Exactly(tag),
        Holds::CreationDate | Holds::Variation | Holds::Version => Shape::Count,
        Holds::Operation => OPERATIONS,
        Holds::Context => Shape::Context,
        Holds::Object(form) => Shape::Form(form),
        Holds::FlagKey => Shape::Key,
        Holds::Served | Holds::DefaultStage => STAGES,
        Holds::Reason => Shape::Object(&REASON),
        // Only 1: LaunchDarkly's SDK samples a forwarded event again by it (event.rs).
        Holds::SamplingRatio => Shape::One,
        Holds::Measurements => Shape::Measurements,
        Holds::Invoked | Holds::Errors => Shape::Origins(&Shape::True),
        Holds::Consistent => Shape::Bool,
        Holds::CheckRatio => Shape::Ratio,
        Holds::Latencies => Shape::Origins(&Shape::Latency),
    }
}

/// An object's fields as the walk reads them: a table of the relay's, or of the format.
#[derive(Clone, Copy, Debug)]
pub(super) enum Table {
    Own(&'static Object),
    Form(&'static format::Form),
    /// A measurement: its [`MEASUREMENT_KEY`], then its fields.
    Measurement(&'static format::Measurement),
    /// Per-origin values, each optional, each of this shape.
    Origins(&'static Shape),
}

impl Table {
    /// The object's name in refusals of an unknown field.
    pub(super) fn what(self) -> &'static str {
        match self {
            Table::Own(object) => object.what,
            Table::Form(form) => form.what,
            Table::Measurement(_) => MEASUREMENT_WHAT,
            Table::Origins(_) => ORIGINS_WHAT,
        }
    }

    /// Whether keys that are no field hold data (a context's attributes).
    pub(super) fn others_are_data(self) -> bool {
        matches!(self, Table::Own(object) if object.others_are_data)
    }

    /// The shape of the field `name`, if the object has one.
    pub(super) fn shape(self, name: &str) -> Option<Shape> {
        let in_format = |fields: &[format::Field]| fields.iter().find(|f| f.name == name).map(|f| shape_of(f.holds));
        match self {
            Table::Own(object) => object.fields.iter().find(|f| f.name == name).map(|f| f.shape),
            Table::Form(form) => in_format(form.fields),
            Table::Measurement(m) if name == MEASUREMENT_KEY => Some(Shape::Exactly(m.key)),
            Table::Measurement(m) => in_format(m.fields),
            Table::Origins(shape) => ORIGINS.contains(&name).then_some(*shape),
        }
    }

    /// The first field, in table order, that must be there and for which `missing` is true.
    pub(super) fn first_missing(self, missing: impl Fn(&str) -> bool) -> Option<(&'static str, Need)> {
        let needed = |name: &'static str, need: Need| (need != Need::Optional && missing(name)).then_some((name, need));
        let in_format = |fields: &'static [format::Field]| fields.iter().find_map(|f| needed(f.name, f.need));
        match self {
            Table::Own(object) => object.fields.iter().find_map(|f| needed(f.name, f.need)),
            Table::Form(form) => in_format(form.fields),
            Table::Measurement(m) => needed(MEASUREMENT_KEY, Need::Required).or_else(|| in_format(m.fields)),
            Table::Origins(_) => None,
        }
    }
}

/// The event.
pub(super) const EVENT: Table = Table::Form(&format::EVENT);

/// The measurement whose key is `key`, and its index in [`MEASUREMENTS`].
pub(super) fn measurement(key: &str) -> Option<(usize, &'static format::Measurement)> {
    MEASUREMENTS.iter().enumerate().find(|(_, m)| m.key == key)
}

/// The index in [`MEASUREMENTS`] of the measurement whose first field holds `holds`.
pub(super) fn measurement_holding(holds: Holds) -> Option<usize> {
    MEASUREMENTS.iter().position(|m| m.fields.first().map(|f| f.holds) == Some(holds))
}
