//! What the walk asks of the host's values: the [`Structure`] trait, and the [`Shape`] a value
//! reads as.
//!
//! The walk never holds the data itself, only the host's references to it ([`Structure::Value`],
//! a `JsValue` in the bindings), and reads through this trait only what the comparison needs.
//! Per pair of values compared it makes one [`Structure::identical`] call, and when that does not
//! settle it, one [`Structure::shape`] call per side (which for a plain object also hands over
//! its keys); then one [`Structure::property`] or [`Structure::element`] call per side per child.
//!
//! Keys are the host's own ([`Structure::Key`]): the walk compares them with `==`, hashes them
//! when two objects' keys differ, and asks for their text ([`Structure::key_text`]) only to match
//! `ignore` patterns and to write a path. A host that interns keys hands over integers, and a
//! plain object's keys by reference ([`Shape::Object`] holds a `Cow`): nothing is allocated per
//! object read.

use std::borrow::Cow;
use std::hash::Hash;

use super::bounds::Limit;

/// How the walk reads the host's values. Implemented by the bindings over `JsValue`, and in
/// the native tests over an arena of test values (`arena.rs`).
///
/// Every read may fail (a getter that throws, a revoked proxy): it then returns what the host
/// threw, and the walk reports the position as unreadable, never as equal (see `walk.rs`).
/// No method may panic.
pub trait Structure {
    /// A reference to one of the host's values: cloning it clones the reference (a handle),
    /// never the data.
    type Value: Clone;

    /// A plain object's key: its text (`String`), or the host's id for it (two keys are the same
    /// key exactly when they are `==`).
    type Key: Clone + Eq + Hash;

    /// What `value` is, in one read. For a plain object (JavaScript: its prototype is
    /// `Object.prototype` or `null`), its own enumerable string keys in the host's order
    /// (`Object.keys`), unless it has more than `key_limit` of them: then
    /// [`Shape::LargeObject`], and the keys need not be handed over.
    fn shape(&self, value: &Self::Value, key_limit: usize) -> Result<Shape<'_, Self::Key>, Self::Value>;

    /// `object[key]` of a value that read as [`Shape::Object`]: `key` is the one at position
    /// `at` of the keys it listed (a host that keeps its children in order need not search).
    fn property(&self, object: &Self::Value, key: &Self::Key, at: usize) -> Result<Self::Value, Self::Value>;

    /// `array[index]` of a value that read as [`Shape::Array`], for an index below its length
    /// (a hole reads as `undefined`).
    fn element(&self, array: &Self::Value, index: usize) -> Result<Self::Value, Self::Value>;

    /// Whether `a` and `b` are the same value: JavaScript's `a === b`. For two objects, the
    /// same reference; for two strings, the same text. `true` must imply structural equality
    /// (it lets the walk skip a pair unread); `false` for `NaN` and `NaN` is fine (numbers are
    /// compared again from their shapes). The walk relies on `false` meaning "different" for
    /// two strings and for two [`Shape::Other`] values. Never fails.
    fn identical(&self, a: &Self::Value, b: &Self::Value) -> bool;

    /// The text of `key`, for matching `ignore` patterns and writing paths. Never fails (a host
    /// that cannot tell answers `""`).
    fn key_text<'k>(&'k self, key: &'k Self::Key) -> &'k str;
}

/// What a value is, with what comparing it needs.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape<'s, K: Clone> {
    Undefined,
    Null,
    Boolean(bool),
    Number(f64),
    /// A string: its text is never copied; two strings are compared by [`Structure::identical`].
    String,
    /// An array, with its length.
    Array(usize),
    /// A plain object, with its own enumerable string keys in order (lent by the host, or made
    /// for the occasion).
    Object(Cow<'s, [K]>),
    /// A plain object with more keys than the walk could still visit: its keys were not read.
    LargeObject,
    /// A `Date`, with its time value (`NaN` for an invalid date).
    Date(f64),
    /// Anything else (functions, class instances, `Map`s, symbols, bigints, …): compared by
    /// [`Structure::identical`] only.
    Other,
    /// The host did not read this far (its own copy of the value stopped at a bound): the walk
    /// reports a bound hit here, of this limit, as if it had hit the bound itself.
    Cut(Limit),
}

/// The kind of a value, as far as the comparison cares: two values of different kinds are a
/// difference of kind `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Undefined,
    Null,
    Boolean,
    Number,
    String,
    Array,
    Object,
    Date,
    Other,
}

impl<K: Clone> Shape<'_, K> {
    /// The value's kind; a [`Shape::Cut`] value's is unknown, and the walk never asks.
    pub fn kind(&self) -> Kind {
        match self {
            Shape::Undefined => Kind::Undefined,
            Shape::Null => Kind::Null,
            Shape::Boolean(_) => Kind::Boolean,
            Shape::Number(_) => Kind::Number,
            Shape::String => Kind::String,
            Shape::Array(_) => Kind::Array,
            Shape::Object(_) | Shape::LargeObject => Kind::Object,
            Shape::Date(_) => Kind::Date,
            Shape::Other | Shape::Cut(_) => Kind::Other,
        }
    }
}

/// Number equality of the comparison: `NaN` equals `NaN`, `+0` equals `-0`.
pub fn same_number(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}
