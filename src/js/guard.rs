//! `guard()` for JavaScript (the core's `migration/guard`): its options read from the caller's
//! object, `onChange` as the core's listener, and the guard's states as the API's plain objects.

use std::rc::Rc;

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use super::value::{get, got, set};
use crate::error::Error;
use crate::migration::guard::{
    FlagView, GuardChange, GuardListener, GuardOptions, GuardSettings, GuardSnapshot, WindowFigures,
};
use crate::options::guard_option as name;

/// The options the caller gave (the facade checked their names), each read once.
pub fn guard_options(options: &JsValue) -> Result<(GuardSettings, Option<JsValue>), Error> {
    let number = |key: &'static str| -> Result<Option<f64>, Error> {
        let value = get(options, key);
        if value.is_undefined() {
            return Ok(None);
        }
        value
            .as_f64()
            .map(Some)
            .ok_or_else(|| Error::Type(format!("MigratorBuilder#guard: {key} must be a number, {}", got(&value))))
    };
    let given = GuardOptions {
        max_error_rate: number(name::MAX_ERROR_RATE)?,
        max_consecutive_errors: number(name::MAX_CONSECUTIVE_ERRORS)?,
        max_latency_ratio: number(name::MAX_LATENCY_RATIO)?,
        max_inconsistency: number(name::MAX_INCONSISTENCY)?,
        window_ms: number(name::WINDOW_MS)?,
        min_calls: number(name::MIN_CALLS)?,
        cooldown_ms: number(name::COOLDOWN_MS)?,
        probe_ratio: number(name::PROBE_RATIO)?,
    };
    let on_change = get(options, name::ON_CHANGE);
    let on_change = (!on_change.is_undefined()).then_some(on_change);
    Ok((GuardSettings::new(given)?, on_change))
}

fn optional(n: Option<f64>) -> JsValue {
    n.map_or(JsValue::NULL, JsValue::from_f64)
}

fn count(n: impl Into<f64>) -> JsValue {
    JsValue::from_f64(n.into())
}

/// `{ newCalls, newErrors, oldP99, newP99, checked, inconsistent }`.
fn window_object(w: &WindowFigures) -> JsValue {
    let object = Object::new();
    set(&object, "newCalls", &count(w.new_calls));
    set(&object, "newErrors", &count(w.new_errors));
    set(&object, "oldP99", &optional(w.old_p99));
    set(&object, "newP99", &optional(w.new_p99));
    set(&object, "checked", &count(w.checked));
    set(&object, "inconsistent", &count(w.inconsistent));
    object.into()
}

/// `{ state, since, reason }`: `Migrator#guard(flagKey)` and each of `stats().guard.flags`.
pub fn flag_object(view: &FlagView) -> JsValue {
    let object = Object::new();
    set(&object, "state", super::intern::intern(view.state.as_str()));
    set(&object, "since", &JsValue::from_f64(view.since));
    set(&object, "reason", &view.reason.as_deref().map_or(JsValue::NULL, JsValue::from_str));
    object.into()
}

/// `stats().guard`: `null` without `guard()`.
pub fn stats_object(snapshot: Option<&GuardSnapshot>) -> JsValue {
    let Some(s) = snapshot else {
        return JsValue::NULL;
    };
    let object = Object::new();
    set(&object, "trips", &count(s.trips as f64));
    set(&object, "recoveries", &count(s.recoveries as f64));
    let fallbacks = Object::new();
    let [read, write] = s.fallbacks;
    set(&fallbacks, "read", &count(read as f64));
    set(&fallbacks, "write", &count(write as f64));
    set(&object, "fallbacks", &fallbacks);
    let flags = Object::new();
    for (key, view) in &s.flags {
        let _ = js_sys::Reflect::set(&flags, &JsValue::from_str(key), &flag_object(view));
    }
    set(&object, "flags", &flags);
    object.into()
}

/// The state gauge's observations: `[value, attributes]` per flag key, the attributes as the
/// core names them.
pub fn gauge_observations(gauges: &[(Rc<str>, f64)]) -> Array {
    gauges
        .iter()
        .map(|(key, value)| {
            let attributes = Object::new();
            let flag = crate::metrics::Attributes { flag_key: Some(key), ..Default::default() };
            for (k, v) in flag.pairs() {
                let _ = js_sys::Reflect::set(&attributes, &JsValue::from_str(k), &JsValue::from_str(v));
            }
            Array::of2(&JsValue::from_f64(*value), &attributes)
        })
        .collect()
}

/// The caller's `onChange(change)`, as the weak reference `bridge::weakly` made, called with a
/// fresh `GuardChange` object.
pub struct JsGuardListener(pub JsValue);

impl GuardListener for JsGuardListener {
    fn on_change(&self, change: &GuardChange) -> Result<(), String> {
        let t = &change.transition;
        let object = Object::new();
        set(&object, "flagKey", &JsValue::from_str(&change.flag_key));
        set(&object, "from", super::intern::intern(t.from.as_str()));
        set(&object, "to", super::intern::intern(t.to.as_str()));
        set(&object, "reason", &JsValue::from_str(&t.reason));
        set(&object, "at", &JsValue::from_f64(t.at));
        set(&object, "window", &window_object(&t.window));
        super::bridge::call_result(super::bridge::notify(&self.0, &object.into())).map_err(|thrown| {
            use crate::host::HostValue;
            thrown.describe()
        })
    }
}
