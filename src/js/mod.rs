//! The bindings: the only code that knows JavaScript. Each file converts JavaScript values to
//! core types (or wraps JavaScript objects as core trait objects) and forwards; a file named
//! after a core file serves that file (`builder.rs` the core's `migration/builder.rs`, …).

mod bridge;
mod builder;
mod client;
mod codes;
mod context_facts;
mod delegation;
#[cfg(feature = "segments")]
mod dynamodb;
mod error;
mod event;
mod explain;
mod flag_key;
#[cfg(feature = "console")]
mod fleet;
mod guard;
#[cfg(feature = "segments")]
mod hash;
mod host;
#[cfg(feature = "segments")]
mod host_data;
mod host_value;
mod intern;
#[cfg(feature = "segments")]
mod manager;
mod meter;
mod migrator;
mod mismatches;
#[cfg(feature = "segments")]
mod native_store;
mod op_tracker;
mod options;
mod origin;
mod promise;
mod record;
#[cfg(feature = "segments")]
mod redis;
#[cfg(feature = "relay")]
mod relay;
mod response_reading;
mod same_response;
mod same_structure;
mod signal;
mod stage;
mod stats;
#[cfg(feature = "segments")]
mod store;
#[cfg(feature = "segments")]
mod store_options;
mod tape;
mod tape_buffer;
mod value;
