//! One difference the walk found: where, of which kind, and the two values there (the host's
//! references, never copies).

/// What differs at a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DifferenceKind {
    /// Same kind of value, different value: another number, string or boolean, another time of
    /// a `Date`, another reference of an other object (a function, a class instance, …).
    Changed,
    /// A key or an index only the new value has.
    Added,
    /// A key or an index only the old value has.
    Removed,
    /// Values of different kinds (an object and an array, a number and a string, `null` and
    /// `undefined`, …), or a position one of whose values could not be read
    /// ([`Difference::unreadable`]).
    Type,
}

impl DifferenceKind {
    /// The name of the API's `Difference.kind`.
    pub fn name(self) -> &'static str {
        match self {
            DifferenceKind::Changed => "changed",
            DifferenceKind::Added => "added",
            DifferenceKind::Removed => "removed",
            DifferenceKind::Type => "type",
        }
    }
}

/// A difference between the old and the new value.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference<V> {
    /// Where, as a JSON Pointer (`''` is the root; `~` and `/` in keys as `~0`, `~1`).
    pub path: String,
    /// The same with every array index as `*`: the key of the paths table.
    pub normalised: String,
    pub kind: DifferenceKind,
    /// The old value there: absent for `added`, and for a side whose read failed.
    pub old: Option<V>,
    /// The new value there: absent for `removed`, and for a side whose read failed.
    pub new: Option<V>,
    /// Set when a read at this position failed: what each side threw.
    pub unreadable: Option<Unreadable<V>>,
}

/// What the host threw while the walk read a position (a getter that throws, a revoked proxy):
/// for the old side, the new side, or both.
#[derive(Clone, Debug, PartialEq)]
pub struct Unreadable<V> {
    pub old: Option<V>,
    pub new: Option<V>,
}
