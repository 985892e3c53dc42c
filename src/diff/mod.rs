//! Structural differences (API §1 "Differences"): `sameStructure`'s comparison, the explanation
//! of a mismatch, and the table of the paths where mismatches differ. The runtime-neutral core:
//! generic over the host's values through [`Structure`], so the bindings read `JsValue`s by
//! reference and the native tests read an arena of test values.
//!
//! One concept per file:
//! - `structure.rs`: the [`Structure`] trait the walk reads values through, and [`Shape`];
//! - `walk.rs`: the one iterative walk, its order, its handling of cycles and failed reads;
//! - `frame.rs`: the walk's frames (two containers being compared, their child positions) and
//!   which keys two objects share;
//! - `same.rs`: [`same_structure`], stopping at the first difference, and [`Sameness`];
//! - `explain.rs`: [`differences`], up to `max_differences`, and [`Explanation`];
//! - `difference.rs`: [`Difference`] and its [`DifferenceKind`];
//! - `bounds.rs`: [`Bounds`] (depth 64, 10,000 nodes) and what a hit reports;
//! - `pattern.rs`: parsing one `ignore` JSON Pointer pattern (`*` for one segment);
//! - `ignore.rs`: the patterns compiled into a trie, matched segment by segment;
//! - `path.rs`: [`Path`], written as a JSON Pointer and normalised (indices as `*`);
//! - `path_table.rs`: [`PathTable`], the bounded counts of `stats().read.consistency.paths`;
//! - `response.rs`: `sameResponse`'s options (the headers, the body bound), checked;
//! - `consistency.rs`: [`consistency::Comparison`], the contract of a migration's consistency check;
//! - `comparison.rs`: [`SameStructure`], the walk as such a comparison.
//!
//! The rules, in one place: NaN equals NaN and +0 equals -0; `Date`s compare by time value;
//! arrays by index (their other properties are not looked at; a hole reads as `undefined`);
//! plain objects by their own enumerable string keys and values, whatever the keys' order (a key
//! whose value is `undefined` is still a key); everything else by identity. Cycles are safe; a
//! failed read is never taken for equal; the walk is bounded ([`Bounds`]) and a bound hit is its
//! own answer ([`Sameness::TooLarge`], [`Explanation::bound`]), which the comparison takes as
//! not equal (see [`Sameness::answer`]).
//!
//! A binding provides:
//! - an implementation of [`Structure`] over its values: `shape` (one call per value, a plain
//!   object's keys included, lent when the host can), `property` (by key and its position),
//!   `element`, `identical` (`===`), and `key_text` for the keys it hands over as ids (the
//!   JavaScript binding flattens both values onto a tape first: src/js/tape.rs);
//! - the `ignore` option as strings, compiled with [`Ignore::compile`] (which names a bad
//!   pattern; [`pattern::not_a_string`] and [`pattern::not_an_array`] name the other mistakes);
//! - the conversion of [`Explanation`]s and [`PathTable`]s into JavaScript: `kind` by
//!   [`DifferenceKind::name`], `old`/`new` as the references they are.

pub mod bounds;
pub mod comparison;
pub mod consistency;
pub mod difference;
pub mod explain;
mod frame;
pub mod ignore;
pub mod path;
pub mod path_table;
pub mod pattern;
pub mod response;
pub mod same;
pub mod structure;
mod walk;

pub use bounds::{BoundHit, Bounds, Limit, DEFAULT_MAX_DEPTH, DEFAULT_MAX_NODES};
pub use comparison::SameStructure;
pub use difference::{Difference, DifferenceKind, Unreadable};
pub use explain::{differences, Explanation, DEFAULT_MAX_DIFFERENCES};
pub use ignore::Ignore;
pub use path::{normalise, Path, Segment};
pub use path_table::{PathTable, MAX_PATHS, OTHER};
pub use same::{same_structure, Sameness};
pub use structure::{Kind, Shape, Structure};

#[cfg(test)]
mod arena;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod proptests;
