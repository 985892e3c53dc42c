//! The bindings: the only code that knows JavaScript. Each file converts JavaScript values to
//! core types (or wraps JavaScript objects as core trait objects) and forwards.

mod bridge;
mod client;
mod event;
mod hash;
mod host;
mod manager;
mod migration;
mod promise;
mod redis;
mod signal;
mod store;
mod tracker;
mod value;
