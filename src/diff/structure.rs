//! What the walk asks of the host's values: the [`Structure`] trait, and the [`Shape`] a value
//! reads as.
//!
//! The walk never holds the data itself, only the host's references to it ([`Structure::Value`],
//! a `JsValue` in the bindings), and reads through this trait only what the comparison needs.
//! Per pair of values compared it makes one [`Structure::identical`] call, and when that does not
//! settle it, one [`Structure::shape`] call per side (which for a plain object also hands over
//! its keys); then one [`Structure::property`] or [`Structure::element`] call per side per child.

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

    /// What `value` is, in one read. For a plain object (JavaScript: its prototype is
    /// `Object.prototype` or `null`), its own enumerable string keys in the host's order
    /// (`Object.keys`), unless it has more than `key_limit` of them: then
    /// [`Shape::LargeObject`], and the keys need not be handed over.
    fn shape(&self, value: &Self::Value, key_limit: usize) -> Result<Shape, Self::Value>;

    /// `object[key]` of a value that read as [`Shape::Object`] (a key it listed).
    fn property(&self, object: &Self::Value, key: &str) -> Result<Self::Value, Self::Value>;

    /// `array[index]` of a value that read as [`Shape::Array`], for an index below its length
    /// (a hole reads as `undefined`).
    fn element(&self, array: &Self::Value, index: usize) -> Result<Self::Value, Self::Value>;

    /// Whether `a` and `b` are the same value: JavaScript's `a === b`. For two objects, the
    /// same reference; for two strings, the same text. `true` must imply structural equality
    /// (it lets the walk skip a pair unread); `false` for `NaN` and `NaN` is fine (numbers are
    /// compared again from their shapes). The walk relies on `false` meaning "different" for
    /// two strings and for two [`Shape::Other`] values. Never fails.
    fn identical(&self, a: &Self::Value, b: &Self::Value) -> bool;
}

/// What a value is, with what comparing it needs.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Undefined,
    Null,
    Boolean(bool),
    Number(f64),
    /// A string: its text is never copied; two strings are compared by [`Structure::identical`].
    String,
    /// An array, with its length.
    Array(usize),
    /// A plain object, with its own enumerable string keys in order.
    Object(Vec<String>),
    /// A plain object with more keys than the walk could still visit: its keys were not read.
    LargeObject,
    /// A `Date`, with its time value (`NaN` for an invalid date).
    Date(f64),
    /// Anything else (functions, class instances, `Map`s, symbols, bigints, …): compared by
    /// [`Structure::identical`] only.
    Other,
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

impl Shape {
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
            Shape::Other => Kind::Other,
        }
    }
}

/// Number equality of the comparison: `NaN` equals `NaN`, `+0` equals `-0`.
pub fn same_number(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}
