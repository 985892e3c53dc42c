//! The record: one small array of numbers in wasm memory that the facade sees as a
//! `Float64Array` (`recordView()`), for the calls whose data is wider than six arguments
//! (`answerFields`, `ownEvent`, `buildEvent`). Its slots are named by `AnswerField`
//! (codes.rs) for an answer, and laid out in the order of the wire format's fields for an event
//! (event.rs). It is written right before the one call that reads it, with no other
//! JavaScript in between, so it holds nothing between calls.
//!
//! Why not arguments: those calls carried 11 and 17 positional numbers that nothing checked.
//! Why not an object: reading its properties from Rust costs a crossing each.

use std::cell::Cell;

use js_sys::Float64Array;
use wasm_bindgen::prelude::*;

/// Slots in the record: the widest use (an event, `numbers_of(EVENT.fields)`) has 13.
pub const RECORD_SLOTS: usize = 16;

// Why a thread_local: the record is one fixed place in wasm memory that the facade keeps a view of
// (see the module's comment for what it replaces: 11 and 17 positional numbers per call).
thread_local! {
    static RECORD: Cell<[f64; RECORD_SLOTS]> = const { Cell::new([f64::NAN; RECORD_SLOTS]) };
}

/// The record as a `Float64Array` over wasm memory. The facade keeps it until memory grows (a
/// view of the old memory then has length 0) and asks again.
#[wasm_bindgen(js_name = recordView)]
pub fn record_view() -> Float64Array {
    RECORD.with(|r| {
        let start = r.as_ptr() as u32 / 8;
        Float64Array::new(&wasm_bindgen::memory().unchecked_into::<js_sys::WebAssembly::Memory>().buffer())
            .subarray(start, start + RECORD_SLOTS as u32)
    })
}

/// The record's numbers as the facade left them.
pub fn read() -> [f64; RECORD_SLOTS] {
    RECORD.with(Cell::get)
}

/// Sets the record's numbers for the call that follows.
pub fn write(numbers: [f64; RECORD_SLOTS]) {
    RECORD.with(|r| r.set(numbers));
}
