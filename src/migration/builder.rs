//! `MigratorBuilder`: collects a migrator's configuration and validates it.

use std::fmt;
use std::rc::Rc;

use super::client::MigrationClient;
use super::migrator::{Comparison, Migrator, MigratorSettings, OriginFn};
use super::stage::ExecutionOrder;
use crate::host::{Host, HostValue};

/// A bad argument to a builder method: the message names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgumentError {
    /// Wrong kind of value (JavaScript `TypeError`).
    Type(String),
    /// Right kind, outside the allowed range (JavaScript `RangeError`).
    Range(String),
}

/// `build()` was called before the configuration was complete (`MigratorConfigError`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MigratorConfigError {
    ReadNotProvided,
    WriteNotProvided,
}

impl fmt::Display for MigratorConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MigratorConfigError::ReadNotProvided => "read configuration not provided",
            MigratorConfigError::WriteNotProvided => "write configuration not provided",
        })
    }
}

/// The two read origins and the optional comparison.
pub struct ReadOrigins<V> {
    pub old: Rc<dyn OriginFn<V>>,
    pub new: Rc<dyn OriginFn<V>>,
    pub comparison: Option<Rc<dyn Comparison<V>>>,
}

impl<V> Clone for ReadOrigins<V> {
    fn clone(&self) -> Self {
        ReadOrigins { old: self.old.clone(), new: self.new.clone(), comparison: self.comparison.clone() }
    }
}

/// The two write origins.
pub struct WriteOrigins<V> {
    pub old: Rc<dyn OriginFn<V>>,
    pub new: Rc<dyn OriginFn<V>>,
}

impl<V> Clone for WriteOrigins<V> {
    fn clone(&self) -> Self {
        WriteOrigins { old: self.old.clone(), new: self.new.clone() }
    }
}

pub struct MigratorBuilder<V> {
    settings: MigratorSettings,
    read: Option<ReadOrigins<V>>,
    write: Option<WriteOrigins<V>>,
}

impl<V: HostValue> Default for MigratorBuilder<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: HostValue> MigratorBuilder<V> {
    pub fn new() -> Self {
        MigratorBuilder { settings: MigratorSettings::default(), read: None, write: None }
    }

    pub fn read_execution_order(&mut self, order: &str) -> Result<(), ArgumentError> {
        self.settings.read_order = ExecutionOrder::parse(order).ok_or_else(|| {
            ArgumentError::Type(format!(
                "readExecutionOrder: order must be 'serial', 'random' or 'parallel', got {}",
                crate::text::quoted(order)
            ))
        })?;
        Ok(())
    }

    pub fn track_latency(&mut self, enabled: bool) {
        self.settings.track_latency = enabled;
    }

    pub fn track_errors(&mut self, enabled: bool) {
        self.settings.track_errors = enabled;
    }

    pub fn origin_timeout(&mut self, ms: f64) -> Result<(), ArgumentError> {
        if !(ms.is_finite() && ms > 0.0) {
            return Err(ArgumentError::Range(format!(
                "originTimeout: ms must be a positive, finite number of milliseconds, got {}",
                crate::text::number(ms)
            )));
        }
        self.settings.origin_timeout_ms = Some(ms);
        Ok(())
    }

    /// Replaces any earlier read configuration.
    pub fn read(&mut self, origins: ReadOrigins<V>) {
        self.read = Some(origins);
    }

    pub fn write(&mut self, origins: WriteOrigins<V>) {
        self.write = Some(origins);
    }

    /// A new, independent migrator (its own statistics) over the current configuration.
    pub fn build(&self, client: Rc<dyn MigrationClient<V>>, host: Host) -> Result<Migrator<V>, MigratorConfigError> {
        let read = self.read.clone().ok_or(MigratorConfigError::ReadNotProvided)?;
        let write = self.write.clone().ok_or(MigratorConfigError::WriteNotProvided)?;
        Ok(Migrator::new(self.settings, read, write, client, host))
    }
}
