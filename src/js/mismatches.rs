//! `mismatches()` for JavaScript: the core's kept mismatches as the API's `Mismatch` objects, and
//! `onMismatch` as the core's listener.

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use super::value::set;
use crate::diff::{Difference, Explanation, Ignore};
use crate::migration::{Explainer, Mismatch, MismatchListener};

/// `{ path, kind, old?, new? }`: the values are the caller's references.
fn difference_object(difference: &Difference<JsValue>) -> JsValue {
    let object = Object::new();
    set(&object, "path", &JsValue::from_str(&difference.path));
    set(&object, "kind", super::intern::intern(difference.kind.name()));
    if let Some(old) = &difference.old {
        set(&object, "old", old);
    }
    if let Some(new) = &difference.new {
        set(&object, "new", new);
    }
    object.into()
}

/// `{ flagKey, stage, context, at, old, new, differences, truncated }`: a fresh object whose
/// context and values are the caller's own.
pub fn mismatch_object(mismatch: &Mismatch<JsValue>) -> JsValue {
    let object = Object::new();
    set(&object, "flagKey", &JsValue::from_str(&mismatch.flag_key));
    set(&object, "stage", super::intern::intern(mismatch.stage.as_str()));
    set(&object, "context", &mismatch.context);
    set(&object, "at", &JsValue::from_f64(mismatch.at));
    set(&object, "old", &mismatch.old);
    set(&object, "new", &mismatch.new);
    let differences: Array = mismatch.differences.iter().map(difference_object).collect();
    set(&object, "differences", &differences);
    set(&object, "truncated", &JsValue::from_bool(mismatch.truncated));
    object.into()
}

/// The structural walk over JavaScript values (`super::explain`, on the facade's tape).
pub struct JsExplainer;

impl Explainer<JsValue> for JsExplainer {
    fn explain(
        &self,
        old: &JsValue,
        new: &JsValue,
        ignore: Option<&Ignore>,
        max_differences: usize,
    ) -> Explanation<JsValue> {
        super::explain::explain(old, new, ignore, max_differences)
    }
}

/// The caller's `onMismatch(mismatch)`, as the weak reference `bridge::weakly` made, called with a
/// fresh `Mismatch` object.
pub struct JsMismatchListener(pub JsValue);

impl MismatchListener<JsValue> for JsMismatchListener {
    fn on_mismatch(&self, mismatch: &Mismatch<JsValue>) -> Result<(), JsValue> {
        super::bridge::call_result(super::bridge::notify(&self.0, &mismatch_object(mismatch)))
    }
}
