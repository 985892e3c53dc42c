//! Flag-driven technology migrations: the runtime-neutral core.

pub mod background;
mod background_flow;
pub mod builder;
mod calling;
pub mod client;
mod consistency;
mod context_warning;
pub mod delegation;
pub mod event;
pub mod event_format;
pub mod guard;
pub mod migrator;
pub mod mismatches;
mod op_state;
pub mod op_tracker;
pub mod operation;
pub mod origin;
pub mod reason;
pub mod settings;
mod shared;
pub mod stats;

pub use crate::error::{BuildError, Error, ErrorClass, MigratorConfigError};
/// The latency histogram lives in `util` (the fleet merges it too); named here as before.
pub use crate::util::histogram;
/// The vocabulary the migration core shares with every floor, named here as before.
pub use crate::vocabulary::{context, stage};
pub use builder::MigratorBuilder;
pub use client::{DefaultStage, MigrationClient, OfferedTracker, ServedEvaluation};
pub use delegation::{ExternalTracker, ExternalTracking, Measurement, Settled, Tracking, SEND_METHOD};
pub use migrator::Migrator;
pub use mismatches::{Explainer, Mismatch, MismatchListener, MismatchSettings, Mismatches};
pub use op_tracker::{Evaluation, OpTracker};
pub use operation::{AbortFuture, OperationRequest, OperationResult, Outcome, Reply, WriteResult};
pub use origin::{
    CallControl, Comparison, ExplainedCheck, OriginCall, OriginFn, ReadOrigins, Snapshot, Timed, WriteOrigins,
};
pub use settings::MigratorSettings;
pub use stage::{ExecutionOrder, Operation, Origin, Stage};

#[cfg(test)]
mod migrator_tests;

#[cfg(test)]
mod test_runs;

#[cfg(test)]
mod background_tests;

#[cfg(test)]
mod mismatches_tests;

#[cfg(test)]
mod later_check_tests;

#[cfg(test)]
mod guard_tests;

#[cfg(test)]
mod proptests;
