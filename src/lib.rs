//! cutover: flag-driven technology migrations and Big Segments.
//!
//! The crate's rooms:
//! - [`migration`] and [`segments`]: the runtime-neutral core. No JavaScript types; every
//!   decision lives here and is tested natively with a fake clock.
//! - [`fleet`]: the console's decisions over many processes: which instances are alive, and
//!   the percentiles of their merged latency histograms.
//! - [`metrics`]: the instruments and attributes the core records into a host's metrics sink.
//! - [`error`]: the one error type of the core, which the bindings turn into JavaScript errors.
//! - [`relay`]: which posted `migration_op` events `migrationEventRelay` forwards, and why not.
//! - [`options`]: the names each options object of the API knows; any other is refused.
//! - [`util`]: small helpers: text for messages, numbers on the wire, the task runner, the
//!   random generator, a shared future.
//! - [`vocabulary`]: the words every floor shares (stages, origins, operations, context facts): a
//!   leaf that imports nothing from the crate.
//! - [`host`]: the traits the core needs from whoever runs it (clock, sleep, randomness,
//!   logging, task spawning).
//! - `js` (wasm32 only): the bindings that turn JavaScript values into core types and back.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]

pub mod diff;
pub mod error;
pub mod fleet;
pub mod host;
pub mod metrics;
pub mod migration;
pub mod options;
#[cfg(feature = "relay")]
pub mod relay;
#[cfg(feature = "segments")]
pub mod segments;
pub mod util;
pub mod vocabulary;

#[cfg(target_arch = "wasm32")]
mod js;

/// Natively, for their tests: the bindings' parts that are plain Rust (the codes, and the tape's
/// reader).
#[cfg(all(test, not(target_arch = "wasm32")))]
#[allow(dead_code)]
mod js {
    pub mod codes;
    pub mod tape;
}

#[cfg(test)]
pub mod testing;

/// The wasm's allocator: talc (a maintained free-list allocator, safe to declare) in place of
/// Rust's dlmalloc. Measured (issue 33, same tree): the migrations page 89,846 → 87,316 B gzipped
/// (wasm 75,708 → 73,179; brotli 76,391 → 74,331), the full wasm 112,463 → 109,301 B gzipped; a
/// fixed-stage shadow read with `sameStructure` 2.39 → 2.46 µs (median of 4 alternating runs,
/// Node 20). Its `disable-realloc-in-place` feature made both wasms larger (+145 B, +501 B).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
