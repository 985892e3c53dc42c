//! Stages as JavaScript strings: the names the facade maps codes to, and stage arguments.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::bridge;
use super::delegation::TRACKER_METHODS;
use super::host_value::string_of;
use super::intern::intern;
use super::value::got;
use crate::error::Error;
use crate::migration::{DefaultStage, Operation, Origin, Stage};

/// Tells the facade, once, the names its codes stand for: stages in `Answer` order (the order of
/// `Stage::ALL`), origins and operations by index, and the tracker methods by `TrackerMethod`.
#[wasm_bindgen(start)]
fn tell_names() {
    let names = |names: &[&'static str]| names.iter().map(|n| intern(n)).collect::<Array>();
    let stages: Vec<&'static str> = Stage::ALL.iter().map(|s| s.as_str()).collect();
    let origins = [Origin::Old.as_str(), Origin::New.as_str()];
    let operations = [Operation::Read.as_str(), Operation::Write.as_str()];
    bridge::started(names(&stages), names(&origins), names(&operations), names(&TRACKER_METHODS));
}

// The stage codes are the indices of `Stage::ALL` (the order `started` tells the facade), so the
// first code after them must be `Answer::NotAStage`: a stage added to the core fails the build
// here until `Answer` makes room for it.
// `run`'s hints carry a default stage's code under `Hint::StageBits`, so every one must fit.
const _: () = assert!(Stage::ALL.len() == super::codes::Answer::NotAStage as usize);
const _: () = assert!(super::codes::Answer::NotAStage as u32 & !(super::codes::Hint::StageBits as u32) == 0);

/// The stage an `Answer` stage code stands for (its index in `Stage::ALL`), if it is one.
pub fn stage_at(code: u32) -> Option<Stage> {
    Stage::ALL.get(code as usize).copied()
}

/// The stage a JavaScript value names exactly, if any.
pub fn stage(value: &JsValue) -> Option<Stage> {
    stage_at(bridge::stage(value))
}

/// The caller's default stage as the core takes it (an invalid one is handled by SPEC A7.1).
pub fn default_stage(value: &JsValue) -> DefaultStage {
    match stage(value) {
        Some(stage) => DefaultStage::Valid(stage),
        None => DefaultStage::Invalid(printed(value)),
    }
}

/// A value that is not a stage as a message prints it: a string quoted (`"OFF"`, `""`), anything
/// else as `String(value)` (`123`, `undefined`).
pub fn printed(value: &JsValue) -> String {
    match value.as_string() {
        Some(text) => crate::util::text::quoted(&text),
        None => string_of(value),
    }
}

/// Parses a stage string or refuses it with a TypeError naming `what`.
pub fn stage_arg(value: &JsValue, what: &str) -> Result<Stage, Error> {
    value.as_string().and_then(|s| Stage::parse(&s)).ok_or_else(|| {
        Error::Type(format!(
            "{what} must be one of 'off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete', {}",
            got(value)
        ))
    })
}

/// Validates a stage for `fixedStage(stage)`; returns it.
#[wasm_bindgen(js_name = checkStage)]
pub fn check_stage(value: JsValue, what: &str) -> Result<JsValue, JsValue> {
    Ok(JsValue::from_str(stage_arg(&value, what)?.as_str()))
}
