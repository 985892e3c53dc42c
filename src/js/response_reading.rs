//! How `sameResponse` reads a Response (same_response.rs), kept by the `WasmSameStructure` it
//! builds (same_structure.rs): a file of its own so that neither of those two imports the other.

use wasm_bindgen::JsValue;

/// How `sameResponse` reads a Response: the header names (lower-case, as the array
/// `readResponse` is given) and the body bound.
pub struct Reading {
    pub(super) headers: JsValue,
    pub(super) max_body_bytes: f64,
}
