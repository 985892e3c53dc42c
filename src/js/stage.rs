//! Stages as JavaScript strings: the names the facade maps, and stage arguments.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::bridge::{with, Bridge};
use super::value::{got, intern, string_of};
use crate::error::Error;
use crate::migration::{DefaultStage, Stage};

#[wasm_bindgen]
extern "C" {
    /// The index in `Stage::ALL` of a value that is one of the six stage strings (the facade
    /// maps the names `stageNames()` gives it), else -1. No string is copied into the wasm.
    #[wasm_bindgen(method)]
    fn stage(this: &Bridge, value: &JsValue) -> i32;
}

/// The stage names, in `Stage::ALL` order, for the facade's `stage` lookup.
#[wasm_bindgen(js_name = stageNames)]
pub fn stage_names() -> Array {
    Stage::ALL.iter().map(|s| intern(s.as_str())).collect()
}

/// The stage at `index` in `Stage::ALL`, if there is one.
pub fn stage_at(index: i32) -> Option<Stage> {
    usize::try_from(index).ok().and_then(|i| Stage::ALL.get(i).copied())
}

/// The stage a JavaScript value names exactly, if any.
pub fn stage(value: &JsValue) -> Option<Stage> {
    stage_at(with(|b| b.stage(value))?)
}

/// The caller's default stage as the core takes it (an invalid one is handled by SPEC A7.1).
pub fn default_stage(value: &JsValue) -> DefaultStage {
    match stage(value) {
        Some(stage) => DefaultStage::Valid(stage),
        None => DefaultStage::Invalid(string_of(value)),
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
