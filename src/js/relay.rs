//! `migrationEventRelay` for JavaScript: each posted event, as `JSON.parse` gave it, read into the
//! core's [`Wire`] (to the core's depth bound; a string over the length bound is not copied) and
//! judged by the core (src/relay). js/relay.js does the HTTP and calls `trackMigration`.

use js_sys::{JsString, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::value::{array_items, is_array, object_keys};
use crate::relay::wire::{MAX_DEPTH, MAX_TEXT};
use crate::relay::{Forward, RelayRules, Wire};

/// `value` read at `depth` (the event is 1). Reads never throw: a value whose keys or entries
/// cannot be read (not one `JSON.parse` makes) is [`Wire::NotData`].
fn wire_of(value: &JsValue, depth: usize) -> Wire {
    if depth > MAX_DEPTH {
        return Wire::TooDeep;
    }
    if value.is_null() {
        return Wire::Null;
    }
    if let Some(b) = value.as_bool() {
        return Wire::Bool(b);
    }
    if let Some(n) = value.as_f64() {
        return Wire::Number(n);
    }
    if let Some(text) = value.dyn_ref::<JsString>() {
        if text.length() as usize > MAX_TEXT {
            return Wire::LongText;
        }
        return text.as_string().map(Wire::Text).unwrap_or(Wire::NotData);
    }
    if is_array(value) {
        return match array_items(value) {
            Some(items) => Wire::Array(items.iter().map(|item| wire_of(item, depth + 1)).collect()),
            None => Wire::NotData,
        };
    }
    if !value.is_object() {
        return Wire::NotData;
    }
    let Ok(keys) = object_keys(value) else {
        return Wire::NotData;
    };
    let mut entries = Vec::with_capacity(keys.length() as usize);
    for key in keys.iter() {
        let Some(name) = key.as_string() else {
            return Wire::NotData;
        };
        let Ok(item) = Reflect::get(value, &key) else {
            return Wire::NotData;
        };
        entries.push((name, wire_of(&item, depth + 1)));
    }
    Wire::Object(entries)
}

/// The relay's rules: `new WasmRelayRules(flagKeys)`, then `judge(event)` per posted event.
#[wasm_bindgen]
pub struct WasmRelayRules {
    rules: RelayRules,
}

#[wasm_bindgen]
impl WasmRelayRules {
    /// `flagKeys`: undefined (every flag key is taken) or the array of strings js/relay.js
    /// checked (anything else in it is left out).
    #[wasm_bindgen(constructor)]
    pub fn new(flag_keys: &JsValue) -> WasmRelayRules {
        let flag_keys = is_array(flag_keys)
            .then(|| array_items(flag_keys))
            .flatten()
            .map(|items| items.iter().filter_map(JsValue::as_string).collect());
        WasmRelayRules { rules: RelayRules { flag_keys } }
    }

    /// Undefined when the event is forwarded (with what the core writes into it written: a
    /// consistent measurement's `samplingRatio: 1`), else the reason it is not.
    pub fn judge(&self, event: &JsValue) -> Option<String> {
        match self.rules.forward(&wire_of(event, 1)) {
            Ok(forward) => {
                if let Some(index) = forward.ratio_of_one_at {
                    let (measurements, ratio) = Forward::ratio_names();
                    let measurement = Reflect::get(event, &JsValue::from_str(measurements))
                        .and_then(|items| Reflect::get_u32(&items, index as u32));
                    // JSON.parse's objects take the write; one that does not is forwarded as it is.
                    if let Ok(measurement) = measurement {
                        let _ = Reflect::set(&measurement, &JsValue::from_str(ratio), &JsValue::from(1));
                    }
                }
                None
            }
            Err(reason) => Some(reason),
        }
    }
}
