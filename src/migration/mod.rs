//! Flag-driven technology migrations: the runtime-neutral core.

pub mod builder;
pub mod client;
pub mod context;
pub mod event;
pub mod histogram;
pub mod migrator;
pub mod stage;
pub mod stats;
pub mod tracker;
pub mod tracking;

pub use builder::{ArgumentError, MigratorBuilder, MigratorConfigError, ReadOrigins, WriteOrigins};
pub use client::{DefaultStage, MigrationClient, OfferedTracker, ServedEvaluation};
pub use migrator::{
    AbortFuture, CallControl, Comparison, Migrator, OperationRequest, OperationResult, OriginCall, OriginFn, Timed,
    WriteResult,
};
pub use stage::{ExecutionOrder, Operation, Origin, Stage};
pub use tracker::{BuildError, Evaluation, OpTracker};
pub use tracking::{ExternalTracker, OutgoingEvent, Tracking};

#[cfg(test)]
mod migrator_tests;

#[cfg(test)]
mod proptests;
