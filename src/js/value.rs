//! JavaScript values as the core's opaque host values, and small conversion helpers.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Object, Reflect, Symbol, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::Error;
use crate::host::HostValue;
use crate::migration::context::{ContextFacts, KeyFacts, KindFact, NestedFact};

impl HostValue for JsValue {
    fn describe(&self) -> String {
        if let Some(s) = self.as_string() {
            return s;
        }
        // `String(error)` runs the error's own `toString` (and its name/message getters), any
        // of which may throw: `string_of` catches that.
        if self.dyn_ref::<js_sys::Error>().is_some() {
            return string_of(self);
        }
        if self.is_object() {
            if let Ok(text) = JSON::stringify(self) {
                if let Some(text) = text.as_string() {
                    return text;
                }
            }
        }
        string_of(self)
    }

    /// Read by the bridge's `contextFacts`: only `kind`, `key` and `targetingKey` (for a
    /// multi-kind context, its attribute names and each nested `key` and `targetingKey`); the
    /// caller's object is never copied.
    fn context_facts(&self) -> ContextFacts {
        facts_from(&super::bridge::context_facts(self))
    }

    /// `error.type` of a failure: the thrown value's string `name` (an Error's class name).
    fn error_name(&self) -> Option<String> {
        if !self.is_object() {
            return None;
        }
        get(self, "name").as_string()
    }
}

/// Key facts from two characters, `key` then `targetingKey`: `1` a non-empty string, `-`
/// absent (or unread), anything else not a good key.
fn keys_from(key: Option<char>, targeting_key: Option<char>) -> KeyFacts {
    let fact = |c: Option<char>| (c != Some('-')).then_some(c == Some('1'));
    KeyFacts { key: fact(key), targeting_key: fact(targeting_key) }
}

/// Reads what `contextFacts` (js/context.js) returns: undefined for a value that is not an object;
/// a string for a single-kind context — `a`/`s`/`o` (kind absent, a string, anything else), the
/// two key characters of [`keys_from`], then the kind's text; an array for a multi-kind context —
/// `[has key, name, fact, name, fact, …]` where a fact is the two key characters of a nested
/// object, or -1 for anything else.
fn facts_from(value: &JsValue) -> ContextFacts {
    if let Some(text) = value.as_string() {
        let mut chars = text.chars();
        let (kind, keys) = (chars.next(), keys_from(chars.next(), chars.next()));
        let kind = match kind {
            Some('s') => KindFact::Text(chars.as_str().to_string()),
            Some('a') => KindFact::Absent,
            _ => KindFact::Other,
        };
        return ContextFacts::Single { kind, keys };
    }
    let Some(items) = is_array(value).then(|| array_items(value)).flatten() else {
        return ContextFacts::NotAnObject;
    };
    let mut items = items.into_iter();
    let has_key = items.next().is_some_and(|v| v.is_truthy());
    let mut nested = Vec::new();
    while let (Some(name), Some(fact)) = (items.next(), items.next()) {
        let fact = match fact.as_string() {
            Some(text) => {
                let mut chars = text.chars();
                NestedFact::Context(keys_from(chars.next(), chars.next()))
            }
            None => NestedFact::NotAContext,
        };
        nested.push((name.as_string().unwrap_or_default(), fact));
    }
    ContextFacts::Multi { has_key, nested }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn array_is_array(target: &JsValue) -> Result<bool, JsValue>;
}

/// `Array.isArray(value)`; false for a revoked proxy (which makes `isArray` throw).
pub fn is_array(value: &JsValue) -> bool {
    array_is_array(value).unwrap_or(false)
}

/// Longest array read from the host; anything longer is refused as a whole.
const MAX_ARRAY: u32 = 1_000_000;

/// The items of an array-like host value, read through `Reflect` so that a proxy whose traps
/// throw gives `None` instead of an exception through wasm.
pub fn array_items(value: &JsValue) -> Option<Vec<JsValue>> {
    let length = Reflect::get(value, intern("length")).ok()?.as_f64()?;
    if !(0.0..=f64::from(MAX_ARRAY)).contains(&length) {
        return None;
    }
    (0..length as u32).map(|i| Reflect::get_u32(value, i).ok()).collect()
}

type Interned = ((usize, usize), &'static JsValue);

/// Slots of the direct-mapped table in front of the sorted list of interned strings.
const FRONT_SLOTS: usize = 256;

thread_local! {
    /// Every interned string, sorted by the literal's (address, length). Each is made once and
    /// lives for the program: there are as many as there are literals that ask.
    static INTERNED: std::cell::RefCell<Vec<Interned>> = const { std::cell::RefCell::new(Vec::new()) };
    /// A direct-mapped cache of that list: one comparison on the hot path.
    static FRONT: std::cell::RefCell<[Option<Interned>; FRONT_SLOTS]> =
        const { std::cell::RefCell::new([None; FRONT_SLOTS]) };
}

/// The JavaScript string for a Rust string literal, made once and reused: property names and
/// the stage, origin and status strings cross the boundary on every operation. Lent, not
/// cloned: a clone or a drop of a `JsValue` costs a slot in wasm-bindgen's reference table.
pub fn intern(text: &'static str) -> &'static JsValue {
    let id = (text.as_ptr() as usize, text.len());
    let slot = ((id.0 ^ (id.1 << 7)).wrapping_mul(0x9E37_79B9) >> 8) % FRONT_SLOTS;
    let front = FRONT.with(|f| f.borrow().get(slot).copied().flatten());
    if let Some((key, v)) = front {
        if key == id {
            return v;
        }
    }
    let v = INTERNED.with(|table| {
        let found = table.borrow().binary_search_by(|(k, _)| k.cmp(&id));
        if let Ok(i) = found {
            if let Some((_, v)) = table.borrow().get(i) {
                return *v;
            }
        }
        let v: &'static JsValue = Box::leak(Box::new(JsValue::from_str(text)));
        if let Err(i) = found {
            table.borrow_mut().insert(i, (id, v));
        }
        v
    });
    FRONT.with(|f| {
        if let Some(entry) = f.borrow_mut().get_mut(slot) {
            *entry = Some((id, v));
        }
    });
    v
}

pub fn get(target: &JsValue, key: &'static str) -> JsValue {
    Reflect::get(target, intern(key)).unwrap_or(JsValue::UNDEFINED)
}

pub fn set(target: &Object, key: &'static str, value: &JsValue) {
    let _ = Reflect::set(target, intern(key), value);
}

/// `target[key]` when it is a function.
pub fn method(target: &JsValue, key: &'static str) -> Option<Function> {
    if !target.is_object() && !target.is_function() {
        return None;
    }
    get(target, key).dyn_into::<Function>().ok()
}

/// A remembered flag key: the JavaScript string and its text.
type FlagKeyMemo = std::thread::LocalKey<RefCell<Option<(JsValue, Rc<str>)>>>;

thread_local! {
    /// The last flag key that crossed the boundary, as a JavaScript string and as text. A
    /// program asks about few flags, so both copies (in from the caller, out to the flag
    /// client) are usually skipped.
    static LAST_FLAG_KEY: RefCell<Option<(JsValue, Rc<str>)>> = const { RefCell::new(None) };
    /// The same for the flag keys of migration operations alone, which the facade keeps in step
    /// (it tells whether the caller passed the same string as the last operation did).
    static OP_FLAG_KEY: RefCell<Option<(JsValue, Rc<str>)>> = const { RefCell::new(None) };
}

fn remembered(memo: &'static FlagKeyMemo, js: &JsValue) -> Result<Rc<str>, JsValue> {
    let text: Rc<str> = string_arg(js, "flagKey")?.into();
    memo.with(|last| *last.borrow_mut() = Some((js.clone(), text.clone())));
    Ok(text)
}

/// A flag key argument as text (`flagKey must be a string` otherwise).
pub fn flag_key_text(flag_key: &JsValue) -> Result<Rc<str>, JsValue> {
    let known = LAST_FLAG_KEY.with(|last| match &*last.borrow() {
        Some((js, text)) if Object::is(js, flag_key) => Some(text.clone()),
        _ => None,
    });
    match known {
        Some(text) => Ok(text),
        None => remembered(&LAST_FLAG_KEY, flag_key),
    }
}

/// A migration operation's flag key as text. `same`: the facade saw the caller pass the very
/// string the last operation passed (strings are immutable, so the text is the same too).
pub fn op_flag_key(flag_key: &JsValue, same: bool) -> Result<Rc<str>, JsValue> {
    if same {
        if let Some(text) = OP_FLAG_KEY.with(|last| last.borrow().as_ref().map(|(_, text)| text.clone())) {
            return Ok(text);
        }
    }
    remembered(&OP_FLAG_KEY, flag_key)
}

/// A flag key as a JavaScript string: the caller's own string when it is the one remembered.
pub fn flag_key_js(flag_key: &Rc<str>) -> JsValue {
    let find = |memo: &'static FlagKeyMemo| {
        memo.with(|last| match &*last.borrow() {
            Some((js, text)) if Rc::ptr_eq(text, flag_key) || **text == **flag_key => Some(js.clone()),
            _ => None,
        })
    };
    find(&OP_FLAG_KEY).or_else(|| find(&LAST_FLAG_KEY)).unwrap_or_else(|| {
        let js = JsValue::from_str(flag_key);
        LAST_FLAG_KEY.with(|last| *last.borrow_mut() = Some((js.clone(), flag_key.clone())));
        js
    })
}

/// A string argument, or a TypeError naming it: `<what> must be a string, got …`.
pub fn string_arg(value: &JsValue, what: &str) -> Result<String, JsValue> {
    value.as_string().ok_or_else(|| Error::Type(format!("{what} must be a string, {}", got(value))).into())
}

// The error constructors live with the conversion of the core's errors; the Big Segments
// bindings still name them here.
pub use super::error::{range_error, type_error};

/// A short description of a value's type for error messages: `got number 5`.
pub fn got(value: &JsValue) -> String {
    let kind = value.js_typeof().as_string().unwrap_or_default();
    if value.is_null() {
        return "got null".into();
    }
    if value.is_undefined() || value.is_object() || value.is_function() || value.is_symbol() {
        return format!("got {kind}");
    }
    format!("got {kind} {}", value.describe())
}

/// The registry symbol that marks a value made by `failure(error)`.
pub fn failure_brand() -> JsValue {
    Symbol::for_("cutover.failure").into()
}

/// A finite number, else `None`.
pub fn finite_f64(n: f64) -> Option<f64> {
    n.is_finite().then_some(n)
}

/// An integer from a number that is one.
pub fn integer_f64(n: f64) -> Option<i64> {
    finite_f64(n).filter(|n| n.fract() == 0.0 && n.abs() < 9.0e15).map(|n| n as i64)
}

/// A finite number from a JavaScript number, else `None`.
pub fn finite(value: &JsValue) -> Option<f64> {
    value.as_f64().and_then(finite_f64)
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_name = String)]
    fn js_string(value: &JsValue) -> Result<String, JsValue>;
}

/// JavaScript's `String(value)`.
pub fn string_of(value: &JsValue) -> String {
    js_string(value).unwrap_or_else(|_| "(a value that cannot be printed)".into())
}
