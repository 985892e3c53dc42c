//! The bindings: the only code that knows JavaScript. Each file converts JavaScript values to
//! core types (or wraps JavaScript objects as core trait objects) and forwards; a file named
//! after a core file serves that file (`builder.rs` the core's `migration/builder.rs`, …).

mod bridge;
mod builder;
mod client;
mod delegation;
mod dynamodb;
mod error;
mod event;
mod hash;
mod host;
mod host_data;
mod manager;
mod meter;
mod migrator;
mod native_store;
mod op_tracker;
mod origin;
mod promise;
mod protocol;
mod redis;
mod signal;
mod stage;
mod store;
mod value;
