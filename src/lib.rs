//! cutover: flag-driven technology migrations and Big Segments.
//!
//! The crate has three rooms:
//! - [`migration`] and [`segments`]: the runtime-neutral core. No JavaScript types; every
//!   decision lives here and is tested natively with a fake clock.
//! - [`host`]: the traits the core needs from whoever runs it (clock, sleep, randomness,
//!   logging, task spawning).
//! - `js` (wasm32 only): the bindings that turn JavaScript values into core types and back.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]

pub mod host;
pub mod json;
pub mod migration;
pub mod random;
pub mod segments;
pub mod shared_future;
pub mod task;
pub mod text;

#[cfg(target_arch = "wasm32")]
mod js;

#[cfg(test)]
pub mod testing;
