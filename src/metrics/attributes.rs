//! The attributes of a measurement: only `feature_flag.key`, `cutover.migration.stage`,
//! `cutover.migration.operation`, `cutover.migration.origin` and `error.type` — never a context
//! key or hash.

use crate::vocabulary::stage::{Operation, Origin, Stage};

/// What made an origin call or a store query fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorType<'a> {
    /// It ran past its timeout (`originTimeoutMs`, `queryTimeoutMs`).
    Timeout,
    /// It failed with an error of this name (a JavaScript error's `name`).
    Named(&'a str),
    /// It failed with no usable name.
    Other,
}

impl<'a> ErrorType<'a> {
    /// Longer names read as [`ErrorType::Other`]: attribute values must stay few.
    pub const MAX_NAME: usize = 64;

    /// The error type of a failure whose error is named `name`.
    pub fn named(name: Option<&'a str>) -> Self {
        match name {
            Some(n) if !n.is_empty() && n.len() <= Self::MAX_NAME => ErrorType::Named(n),
            _ => ErrorType::Other,
        }
    }

    pub fn as_str(self) -> &'a str {
        match self {
            ErrorType::Timeout => "timeout",
            ErrorType::Named(name) => name,
            ErrorType::Other => "_OTHER",
        }
    }
}

/// One measurement's attributes; absent ones are left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Attributes<'a> {
    pub flag_key: Option<&'a str>,
    pub stage: Option<Stage>,
    pub operation: Option<Operation>,
    pub origin: Option<Origin>,
    pub error_type: Option<ErrorType<'a>>,
    /// A mismatch's first difference, as the paths table names it (its normalised path or
    /// `_OTHER`): at most 33 values.
    pub mismatch_path: Option<&'a str>,
    /// A guard's state after a change (`closed`, `probing`, `tripped`).
    pub guard_state: Option<&'a str>,
}

impl<'a> Attributes<'a> {
    pub const FLAG_KEY: &'static str = "feature_flag.key";
    pub const STAGE: &'static str = "cutover.migration.stage";
    pub const OPERATION: &'static str = "cutover.migration.operation";
    pub const ORIGIN: &'static str = "cutover.migration.origin";
    pub const ERROR_TYPE: &'static str = "error.type";
    pub const MISMATCH_PATH: &'static str = "cutover.mismatch.path";
    pub const GUARD_STATE: &'static str = "cutover.guard.state";

    /// A migration operation's attributes.
    pub fn operation(flag_key: &'a str, stage: Stage, operation: Operation) -> Self {
        Attributes { flag_key: Some(flag_key), stage: Some(stage), operation: Some(operation), ..Self::default() }
    }

    pub fn with_origin(self, origin: Origin) -> Self {
        Attributes { origin: Some(origin), ..self }
    }

    pub fn with_error(self, error_type: ErrorType<'a>) -> Self {
        Attributes { error_type: Some(error_type), ..self }
    }

    pub fn with_mismatch_path(self, path: &'a str) -> Self {
        Attributes { mismatch_path: Some(path), ..self }
    }

    pub fn with_guard_state(self, state: &'a str) -> Self {
        Attributes { guard_state: Some(state), ..self }
    }

    /// What identifies these attributes (for a host that keeps one object per distinct set):
    /// the small attributes packed in a number, the flag key and the error name.
    pub fn identity(&self) -> (u32, &'a str, &'a str) {
        let small = |i: Option<usize>| i.map_or(0, |i| i as u32 + 1);
        // A measurement has an error type, a mismatch path or a guard state, never two: they
        // share the slot.
        let (error, name) = match (self.error_type, self.mismatch_path, self.guard_state) {
            (Some(ErrorType::Timeout), ..) => (1, ""),
            (Some(ErrorType::Other), ..) => (2, ""),
            (Some(ErrorType::Named(name)), ..) => (3, name),
            (None, Some(path), _) => (4, path),
            (None, None, Some(state)) => (5, state),
            (None, None, None) => (0, ""),
        };
        let code = small(self.stage.map(Stage::index))
            | small(self.operation.map(|o| o as usize)) << 3
            | small(self.origin.map(Origin::index)) << 5
            | error << 7
            | u32::from(self.flag_key.is_some()) << 10;
        (code, self.flag_key.unwrap_or(""), name)
    }

    /// The present attributes as (name, value) pairs, in a fixed order.
    pub fn pairs(&self) -> impl Iterator<Item = (&'static str, &'a str)> {
        [
            self.flag_key.map(|k| (Self::FLAG_KEY, k)),
            self.stage.map(|s| (Self::STAGE, s.as_str())),
            self.operation.map(|o| (Self::OPERATION, o.as_str())),
            self.origin.map(|o| (Self::ORIGIN, o.as_str())),
            self.error_type.map(|e| (Self::ERROR_TYPE, e.as_str())),
            self.mismatch_path.map(|p| (Self::MISMATCH_PATH, p)),
            self.guard_state.map(|s| (Self::GUARD_STATE, s)),
        ]
        .into_iter()
        .flatten()
    }
}
