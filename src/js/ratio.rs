//! A 1-in-N ratio option (the core's `migration/ratio.rs`): a number checked by the core, or a
//! `TypeError` naming the option when it is not a number.

use wasm_bindgen::prelude::*;

use super::value::got;
use crate::error::Error;
use crate::migration::ratio::ratio_option;

/// `checkRatio(value, what)`: the ratio `value` stands for (undefined: 1), else a `TypeError`
/// (not a number) or `RangeError` (not a whole number ≥ 0) naming `what`.
#[wasm_bindgen(js_name = checkRatio)]
pub fn check_ratio(value: JsValue, what: &str) -> Result<f64, JsValue> {
    if value.is_undefined() {
        return Ok(ratio_option(None, what, String::new)?);
    }
    let n = value.as_f64().ok_or_else(|| Error::Type(format!("{what} must be a number, {}", got(&value))))?;
    Ok(ratio_option(Some(n), what, || got(&value))?)
}
