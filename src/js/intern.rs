//! JavaScript strings for Rust string literals, made once and lent.

use wasm_bindgen::prelude::*;

type Interned = ((usize, usize), &'static JsValue);

/// Slots of the direct-mapped table in front of the sorted list of interned strings.
const FRONT_SLOTS: usize = 256;

// Why a thread_local: JavaScript strings of the crate's literals (stage, origin and method names)
// made once per instance and reused by every call; a `static` cannot hold a `JsValue`.
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
