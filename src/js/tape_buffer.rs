//! Where tapes are written (tape.rs has their layout): a buffer of `f64` slots in wasm memory that
//! the facade sees as a `Float64Array` (`tapeView()`, like the record's) and writes in place, so
//! a pair of values crosses as numbers with no copy; and the texts of the keys' ids, which the
//! facade interns once for all comparisons and sends only when it meets a key it had not seen.
//!
//! The buffer only moves in `tapeGrow`, which hands the facade the new view at once: a view of
//! the old memory after wasm memory grew (length 0) is asked for again by the facade before it
//! writes. It only grows (to `MAX_SLOTS`), so a view the facade holds is never of freed memory.
//!
//! Nothing here is borrowed while JavaScript runs: [`read`] indexes the tape and runs the walk
//! with no call out, and the facade writes only between calls.

use std::cell::RefCell;

use js_sys::Float64Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::tape::{written_alike, Tape, TapeIndex};

/// The buffer's first size: two 1 KB JSON-like values take some 400 slots.
const INITIAL_SLOTS: usize = 4096;

/// The most the buffer grows to: two values of 10,000 nodes (the default node bound) take at
/// most 60,000 slots; this leaves room for raised bounds.
pub const MAX_SLOTS: usize = 1 << 20;

/// The most key ids kept (the facade forgets them all past 65,536, before a tape).
const MAX_KEYS: usize = 1 << 20;

// Why a thread_local: the tape is one buffer in wasm memory that the facade writes through a view
// it keeps between comparisons (js/bridge/tape.js), with the key texts it sent once and the last
// index, all reused by every comparison of the instance: an equal 1 KB pair then costs 0.52× a
// `JSON.stringify` comparison (bench `mismatch-explain`), with no allocation once warm.
thread_local! {
    static SLOTS: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    /// Key texts by id, as `internKeys` sent them.
    static KEY_TEXTS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// The last tape's index, its memory reused.
    static INDEX: RefCell<TapeIndex> = RefCell::new(TapeIndex::default());
}

fn view_of(slots: &[f64]) -> Float64Array {
    let start = slots.as_ptr() as u32 / 8;
    Float64Array::new(&wasm_bindgen::memory().unchecked_into::<js_sys::WebAssembly::Memory>().buffer())
        .subarray(start, start + slots.len() as u32)
}

/// The buffer as a `Float64Array` over wasm memory (made at the first call).
#[wasm_bindgen(js_name = tapeView)]
pub fn tape_view() -> Float64Array {
    tape_grow(INITIAL_SLOTS as u32)
}

/// Grows the buffer to at least `slots` (doubling, at most `MAX_SLOTS`) and returns its view;
/// a view shorter than `slots` says the buffer cannot grow that far.
#[wasm_bindgen(js_name = tapeGrow)]
pub fn tape_grow(slots: u32) -> Float64Array {
    SLOTS.with(|buffer| match buffer.try_borrow_mut() {
        Ok(mut buffer) => {
            let wanted = slots as usize;
            if buffer.len() < wanted {
                let size = wanted.max(buffer.len() * 2).clamp(INITIAL_SLOTS, MAX_SLOTS);
                buffer.resize(size, 0.0);
            }
            view_of(&buffer)
        }
        Err(_) => Float64Array::new_with_length(0),
    })
}

/// The texts of the `count` key ids from `first`, joined with `'\0'` (one key when `count` is 1,
/// which may then hold `'\0'` itself). The facade gives ids in order from 0, and sends each once.
#[wasm_bindgen(js_name = internKeys)]
pub fn intern_keys(text: &str, first: u32, count: u32) {
    KEY_TEXTS.with(|keys| {
        let Ok(mut keys) = keys.try_borrow_mut() else { return };
        let (first, count) = (first as usize, count as usize);
        let Some(to) = first.checked_add(count).filter(|&to| to <= MAX_KEYS) else { return };
        if keys.len() < to {
            keys.resize(to, String::new());
        }
        let texts: Box<dyn Iterator<Item = &str>> =
            if count == 1 { Box::new(std::iter::once(text)) } else { Box::new(text.split('\0')) };
        for (slot, text) in keys.iter_mut().skip(first).take(count).zip(texts) {
            text.clone_into(slot);
        }
    });
}

/// Forgets every key id: the facade starts again from 0 (it does so past a bound on the keys it
/// keeps, between comparisons).
#[wasm_bindgen(js_name = resetKeys)]
pub fn reset_keys() {
    KEY_TEXTS.with(|keys| {
        if let Ok(mut keys) = keys.try_borrow_mut() {
            *keys = Vec::new();
        }
    });
}

/// Whether the two values the facade last wrote are written alike on a regular tape (tape.rs):
/// the same structure, with no walk.
pub fn alike() -> bool {
    SLOTS.with(|slots| slots.try_borrow().is_ok_and(|slots| written_alike(&slots)))
}

/// Indexes the tape the facade last wrote and hands it to `f` (the walk). `None` only if the
/// tape were being read already, which no call path does.
pub fn read<R>(f: impl FnOnce(Tape<'_>) -> R) -> Option<R> {
    SLOTS.with(|slots| {
        KEY_TEXTS.with(|keys| {
            INDEX.with(|index| {
                let (slots, keys) = (slots.try_borrow().ok()?, keys.try_borrow().ok()?);
                let mut index = index.try_borrow_mut().ok()?;
                index.build(&slots);
                let answer = f(index.tape(&keys));
                index.trim();
                Some(answer)
            })
        })
    })
}
