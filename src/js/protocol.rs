//! The numbers the facade and the bindings share, handed to the facade in one object.

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use super::client::{ANSWER_NOT_A_STAGE, ANSWER_OBJECT, ANSWER_PENDING, ANSWER_TAKES_EVENTS, ANSWER_THREW};
use super::delegation::TRACKER_METHODS;
use super::migrator::{HINT_NOT_A_STAGE, HINT_SAME_KEY, HINT_SIGNAL, HINT_WRITE};
use super::value::{intern, set};

/// Each number is defined once, next to the code that reads it (answer codes in client.rs,
/// operation hints in migrator.rs, tracker method numbers in delegation.rs); the facade reads
/// them from here once, when it installs the bridge.
#[wasm_bindgen]
pub fn protocol() -> Object {
    let out = Object::new();
    let number = |key: &'static str, n: f64| set(&out, key, &JsValue::from_f64(n));
    number("ANSWER_NOT_A_STAGE", f64::from(ANSWER_NOT_A_STAGE));
    number("ANSWER_OBJECT", f64::from(ANSWER_OBJECT));
    number("ANSWER_THREW", f64::from(ANSWER_THREW));
    number("ANSWER_TAKES_EVENTS", f64::from(ANSWER_TAKES_EVENTS));
    number("ANSWER_PENDING", f64::from(ANSWER_PENDING));
    number("HINT_NOT_A_STAGE", f64::from(HINT_NOT_A_STAGE));
    number("HINT_SAME_KEY", f64::from(HINT_SAME_KEY));
    number("HINT_WRITE", f64::from(HINT_WRITE));
    number("HINT_SIGNAL", f64::from(HINT_SIGNAL));
    let methods: Array = TRACKER_METHODS.iter().map(|m| intern(m)).collect();
    set(&out, "TRACKER_METHODS", &methods);
    out
}
