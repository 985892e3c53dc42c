//! Metrics for a host's metrics pipeline (OpenTelemetry in the JavaScript bindings): which
//! instruments exist, with what unit and bucket advice ([`instrument`]), which attributes a
//! measurement carries ([`attributes`]), and the sink the core records into ([`sink`]).
//!
//! The core records where it counts its own statistics, so the sums agree with `stats()` and
//! the Big Segments counters. Without a sink nothing is built: one `Option` test per record.

pub mod attributes;
pub mod instrument;
pub mod sink;

pub use attributes::{Attributes, ErrorType};
pub use instrument::{Instrument, InstrumentKind};
pub use sink::MetricSink;

#[cfg(test)]
mod tests;
