//! `hashContextKey` and `bigSegmentRef` for JavaScript (`segments/hash.rs`).

use wasm_bindgen::prelude::*;

use super::value::{got, range_error, string_arg, type_error};
use crate::segments::hash::big_segment_ref_of_number;
use crate::segments::hash_context_key;

/// base64(SHA-256(UTF-8 key)), padded.
#[wasm_bindgen(js_name = hashContextKey)]
pub fn hash_context_key_export(context_key: JsValue) -> Result<String, JsValue> {
    let key = string_arg(&context_key, "hashContextKey: contextKey")?;
    Ok(hash_context_key(&key))
}

/// `${segmentKey}.g${generation}`; the generation rule is the core's (`segments::hash`).
#[wasm_bindgen(js_name = bigSegmentRef)]
pub fn big_segment_ref_export(segment_key: JsValue, generation: JsValue) -> Result<String, JsValue> {
    let key = string_arg(&segment_key, "bigSegmentRef: segmentKey")?;
    let n = generation
        .as_f64()
        .ok_or_else(|| type_error(&format!("bigSegmentRef: generation must be a number, {}", got(&generation))))?;
    big_segment_ref_of_number(&key, n).map_err(|e| range_error(&e.to_string()))
}
