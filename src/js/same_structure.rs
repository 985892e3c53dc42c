//! `sameStructure({ ignore })` for JavaScript: the options converted (the core names a bad
//! pattern), and the core's walk (`diff::same_structure`) run over the tape the facade flattens
//! the two values onto (tape.rs, js/bridge/tape.js).
//!
//! Two ways in, one crossing each:
//! - the function `sameStructure` returns, called by anyone: the facade flattens the pair, then
//!   calls `compareTape()`;
//! - the same function passed to `MigratorBuilder#read`: the facade hands the builder this
//!   object too (`readSameStructure`), and the core's comparison ([`NativeComparison`]) asks the
//!   bridge to flatten (`flatten`), then walks, with no JavaScript function called per check.
//!   Trackers that run checks themselves (LaunchDarkly's) get the function as its handle.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::bridge;
use super::codes::TapeStatus;
use super::response_reading::Reading;
use super::tape_buffer;
use super::value::{array_items, is_array};
use crate::diff::{pattern, same_structure, Bounds, Explanation, Ignore, Sameness};
use crate::error::Error;
use crate::migration::{Comparison, ExplainedCheck};

/// What a `sameStructure` comparison is: its patterns and its bounds (the defaults: see
/// `diff/bounds.rs`).
pub struct Native {
    ignore: Ignore,
    bounds: Bounds,
}

impl Native {
    /// The walk with `ignore`, within the default bounds.
    pub fn new(ignore: Ignore) -> Self {
        Native { ignore, bounds: Bounds::default() }
    }

    pub fn ignore(&self) -> &Ignore {
        &self.ignore
    }

    /// The bounds as `flatten`'s arguments.
    pub fn limits(&self) -> (u32, u32) {
        let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        (clamp(self.bounds.max_nodes), clamp(self.bounds.max_depth))
    }

    /// The pair on the tape the facade last wrote, compared: written alike, it is the same
    /// structure without a walk (tape.rs says why that is the walk's answer).
    pub fn on_tape(&self) -> Sameness {
        if tape_buffer::alike() {
            return Sameness::Same;
        }
        tape_buffer::read(|tape| same_structure(&tape, &tape.old(), &tape.new_root(), &self.ignore, self.bounds))
            .unwrap_or(Sameness::Unreadable)
    }

    /// As [`Self::same`], and when the pair is different its differences: one flattening (the
    /// nodes' values kept meanwhile) and one walk for both, where explaining afterwards
    /// flattened and walked the pair again (a 1 KB pair differing at 3 paths: +60–95 µs per
    /// explained read before, +22–32 µs after, machine loaded, `bench/scenarios/mismatch-explain.mjs`).
    /// A pair written alike is the same with no walk, as in [`Self::same`]; any other is walked
    /// once by `differences` (its string ids made canonical first), and is the same structure
    /// exactly when that walk finds nothing and hits no bound (the walk is one: diff/walk.rs).
    /// An equal pair pays only for keeping its nodes' values. No explanation when the pair could
    /// not be written.
    pub fn same_explained(
        &self,
        old: &JsValue,
        new: &JsValue,
        max_differences: usize,
    ) -> (Sameness, Option<Explanation<JsValue>>) {
        let (nodes, depth) = self.limits();
        if TapeStatus::from_code(bridge::flatten(old, new, nodes, depth, true)) != Some(TapeStatus::Written) {
            return (Sameness::Unreadable, None);
        }
        if tape_buffer::alike() {
            bridge::release_tape();
            return (Sameness::Same, None);
        }
        let explanation = super::explain::on_kept_tape(&self.ignore, max_differences, self.bounds);
        if explanation.differences.is_empty() && !explanation.truncated {
            return (Sameness::Same, None);
        }
        (Sameness::Different, Some(explanation))
    }

    /// Flattens `old` and `new` through the bridge, then compares them. A pair that could not be
    /// written (the JavaScript stack ran out) is not compared, and answers as one that could not
    /// be read. A getter of another pair being written may call this: the bridge writes a nested
    /// tape after the slots of that one (js/bridge/tape.js, "Nesting").
    pub fn same(&self, old: &JsValue, new: &JsValue) -> Sameness {
        let (nodes, depth) = self.limits();
        match TapeStatus::from_code(bridge::flatten(old, new, nodes, depth, false)) {
            Some(TapeStatus::Written) => self.on_tape(),
            _ => Sameness::Unreadable,
        }
    }
}

/// An option that is undefined or an array of strings: the strings (`None` when undefined);
/// `not_an_array` and `not_a_string` (with the item's position) name the mistakes, and what was
/// got is added to them. One function (of plain function pointers) for every such option of
/// `sameStructure` and `sameResponse`.
pub(super) fn strings(
    value: &JsValue,
    not_an_array: fn() -> Error,
    not_a_string: fn(usize) -> Error,
) -> Result<Option<Vec<String>>, Error> {
    if value.is_undefined() {
        return Ok(None);
    }
    let items = if is_array(value) { array_items(value) } else { None };
    let items = items.ok_or_else(|| with_got(not_an_array(), value))?;
    let texts = items
        .iter()
        .enumerate()
        .map(|(position, item)| item.as_string().ok_or_else(|| with_got(not_a_string(position), item)));
    texts.collect::<Result<Vec<_>, _>>().map(Some)
}

/// The core's message with `, got <what>` of the JavaScript value added.
fn with_got(error: Error, value: &JsValue) -> Error {
    match error {
        Error::Type(message) => Error::Type(format!("{message}, {}", super::value::got(value))),
        other => other,
    }
}

/// The `ignore` option: undefined, or an array of JSON Pointer patterns.
fn patterns(ignore: &JsValue) -> Result<Ignore, Error> {
    match strings(ignore, pattern::not_an_array, pattern::not_a_string)? {
        None => Ok(Ignore::none()),
        Some(texts) => Ignore::compile(&texts),
    }
}

/// The core of one `sameStructure(options)` function, which the facade keeps beside it; also
/// of one `sameResponse(options)` function, which reads Responses first (same_response.rs:
/// one class and one builder method for both cost less wasm than two).
#[wasm_bindgen]
pub struct WasmSameStructure {
    pub(super) native: Rc<Native>,
    /// How `sameResponse` reads a Response; `None` for `sameStructure`.
    pub(super) reading: Option<Rc<Reading>>,
}

#[wasm_bindgen]
impl WasmSameStructure {
    /// `ignore`: the option as the facade read it (undefined when absent); a `TypeError` with the
    /// core's message when it is not an array of JSON Pointers.
    #[wasm_bindgen(constructor)]
    pub fn new(ignore: JsValue) -> Result<WasmSameStructure, JsValue> {
        let native = Native { ignore: patterns(&ignore)?, bounds: Bounds::default() };
        Ok(WasmSameStructure { native: Rc::new(native), reading: None })
    }

    /// The node bound, for `flatten`.
    #[wasm_bindgen(getter, js_name = maxNodes)]
    pub fn max_nodes(&self) -> u32 {
        self.native.limits().0
    }

    /// The depth bound, for `flatten`.
    #[wasm_bindgen(getter, js_name = maxDepth)]
    pub fn max_depth(&self) -> u32 {
        self.native.limits().1
    }

    /// The pair the facade has just flattened (`flatten` answered `TapeStatus.Written`): whether
    /// it is the same structure (`false` for a pair that could not be read or compared within the
    /// bounds: see `Sameness::answer`).
    #[wasm_bindgen(js_name = compareTape)]
    pub fn compare_tape(&self) -> bool {
        self.native.on_tape().answer()
    }
}

/// `sameStructure`'s comparison inside a migrator: the walk, no JavaScript function per check.
pub struct NativeComparison {
    pub(super) native: Rc<Native>,
    pub(super) function: JsValue,
}

impl Comparison<JsValue> for NativeComparison {
    fn compare(&self, old: &JsValue, new: &JsValue) -> Result<bool, JsValue> {
        Ok(self.native.same(old, new).answer())
    }

    fn compare_explained(&self, old: &JsValue, new: &JsValue, max_differences: usize) -> ExplainedCheck<JsValue> {
        let (sameness, explanation) = self.native.same_explained(old, new, max_differences);
        Ok((sameness.answer(), explanation))
    }

    fn handle(&self) -> Option<&JsValue> {
        Some(&self.function)
    }

    fn ignore(&self) -> Option<&Ignore> {
        Some(self.native.ignore())
    }
}
