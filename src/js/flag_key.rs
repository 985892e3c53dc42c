//! Flag keys across the boundary: the text of a caller's JavaScript string, and the JavaScript
//! string for a key's text, each remembered so that the usual repeat costs no copy.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Object;
use wasm_bindgen::prelude::*;

use super::value::string_arg;

/// A remembered flag key: the JavaScript string and its text.
type FlagKeyMemo = std::thread::LocalKey<RefCell<Option<(JsValue, Rc<str>)>>>;

// Why a thread_local: the memo must outlive the calls it spares (a flag key crosses in with each
// operation and out to the flag client), and a `static` cannot hold a `JsValue`.
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
