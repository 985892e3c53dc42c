//! The wire format of a posted `migration_op` event (API.md §1 "Events and the tracker", SPEC A6)
//! written as data: [`EVENT`] and the tables under it say which fields each object has, which are
//! required, and what each value must be. `event.rs` walks a value against them. (Tables and one
//! walk, not a reader per object: the readers written out cost 11.7 KB of gzipped wasm and took
//! the tarball over its bound; this is a fraction of it.)

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
}

/// Whether an object's field must be there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Need {
    Optional,
    Required,
    /// Required because LaunchDarkly's `trackMigration` drops what lacks it; the text says so.
    ByLaunchDarkly(&'static str),
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

use Need::{ByLaunchDarkly, Optional, Required};

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

pub(super) const EVALUATION: Object = Object {
    what: "an evaluation",
    fields: &[
        field("key", Required, Shape::Key),
        field("value", Required, STAGES),
        field("default", Required, STAGES),
        field("reason", ByLaunchDarkly("an event without one"), Shape::Object(&REASON)),
        field("variation", Optional, Shape::Count),
        field("version", Optional, Shape::Count),
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

pub(super) const ORIGIN_FLAGS: Object = Object {
    what: "a measurement's values (old, new)",
    fields: &[field("old", Optional, Shape::True), field("new", Optional, Shape::True)],
    others_are_data: false,
};

pub(super) const ORIGIN_LATENCIES: Object = Object {
    what: "a measurement's values (old, new)",
    fields: &[field("old", Optional, Shape::Latency), field("new", Optional, Shape::Latency)],
    others_are_data: false,
};

pub(super) const MEASUREMENT_KEY: Shape =
    Shape::OneOf(&["invoked", "consistent", "latency_ms", "error"], "invoked, consistent, latency_ms or error");

pub(super) const FLAGS_MEASUREMENT: Object = Object {
    what: "this measurement",
    fields: &[field("key", Required, MEASUREMENT_KEY), field("values", Required, Shape::Object(&ORIGIN_FLAGS))],
    others_are_data: false,
};

pub(super) const LATENCY_MEASUREMENT: Object = Object {
    what: "this measurement",
    fields: &[field("key", Required, MEASUREMENT_KEY), field("values", Required, Shape::Object(&ORIGIN_LATENCIES))],
    others_are_data: false,
};

pub(super) const CONSISTENT_MEASUREMENT: Object = Object {
    what: "this measurement",
    fields: &[
        field("key", Required, MEASUREMENT_KEY),
        field("value", Required, Shape::Bool),
        // Left out, it is 1 (API.md §2c): the relay writes `samplingRatio: 1` into what it forwards,
        // since LaunchDarkly's trackMigration drops a consistent measurement without one.
        field("samplingRatio", Optional, Shape::Ratio),
    ],
    others_are_data: false,
};

/// The event.
pub(super) const EVENT: Object = Object {
    what: "a migration_op event",
    fields: &[
        field("kind", Required, Shape::OneOf(&["migration_op"], "migration_op")),
        field("creationDate", Required, Shape::Count),
        field("operation", Required, Shape::OneOf(&["read", "write"], "read or write")),
        field("context", Required, Shape::Context),
        field("evaluation", Required, Shape::Object(&EVALUATION)),
        field("samplingRatio", Optional, Shape::One),
        field("measurements", Required, Shape::Measurements),
    ],
    others_are_data: false,
};
