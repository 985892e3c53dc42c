//! The core's [`Error`] as a JavaScript error: the one place that picks the class. The bindings'
//! own argument checks make core errors too (`Error::Type` with the message naming the
//! argument), so every error cutover throws is made here.

use wasm_bindgen::JsValue;

use crate::error::{Error, ErrorClass};

impl From<Error> for JsValue {
    fn from(e: Error) -> JsValue {
        let message = e.to_string();
        match e.class() {
            ErrorClass::Type => type_error(&message),
            ErrorClass::Range => range_error(&message),
            // The facade rethrows this one as its `MigratorConfigError` with the same message.
            ErrorClass::Plain | ErrorClass::MigratorConfig => js_sys::Error::new(&message).into(),
        }
    }
}

pub fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

pub fn range_error(message: &str) -> JsValue {
    js_sys::RangeError::new(message).into()
}
