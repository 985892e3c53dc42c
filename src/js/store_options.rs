//! The options both Rust-written stores share.

use wasm_bindgen::prelude::*;

use super::value::{get, got, type_error};

/// `options.prefix` of either store: none when undefined or null, else a string.
pub fn prefix_option(options: &JsValue, store: &str) -> Result<Option<String>, JsValue> {
    let p = get(options, "prefix");
    if p.is_undefined() || p.is_null() {
        return Ok(None);
    }
    let text = p.as_string();
    text.map(Some).ok_or_else(|| type_error(&format!("{store}: options.prefix must be a string, {}", got(&p))))
}
