//! The bindings: the only code that knows JavaScript. Each file converts JavaScript values to
//! core types (or wraps JavaScript objects as core trait objects) and forwards.

mod bridge;
mod client;
mod event;
mod host;
mod migration;
mod promise;
mod redis;
mod segments;
mod signal;
mod tracker;
mod value;
