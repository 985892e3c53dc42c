//! `MigratorBuilder`: collects a migrator's configuration and validates it.

use std::rc::Rc;

use super::client::MigrationClient;
use super::guard::{Guard, GuardListener, GuardSettings};
use super::migrator::Migrator;
use super::mismatches::{Explainer, MismatchListener, MismatchSettings, Mismatches};
use super::origin::{ReadOrigins, WriteOrigins};
use super::settings::MigratorSettings;
use super::stage::ExecutionOrder;
use crate::error::{Error, MigratorConfigError};
use crate::host::{Host, HostValue};

pub struct MigratorBuilder<V> {
    settings: MigratorSettings,
    read: Option<ReadOrigins<V>>,
    write: Option<WriteOrigins<V>>,
    mismatches: Option<MismatchesConfig<V>>,
    guard: Option<(GuardSettings, Option<Rc<dyn GuardListener>>)>,
}

/// `mismatches()`' settings and the host's parts of it.
struct MismatchesConfig<V> {
    settings: MismatchSettings,
    explainer: Rc<dyn Explainer<V>>,
    listener: Option<Rc<dyn MismatchListener<V>>>,
}

impl<V: HostValue> Default for MigratorBuilder<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: HostValue> MigratorBuilder<V> {
    pub fn new() -> Self {
        MigratorBuilder {
            settings: MigratorSettings::default(),
            read: None,
            write: None,
            mismatches: None,
            guard: None,
        }
    }

    pub fn read_execution_order(&mut self, order: &str) -> Result<(), Error> {
        self.settings.read_order = ExecutionOrder::parse(order).ok_or_else(|| {
            Error::Type(format!(
                "readExecutionOrder: order must be 'serial', 'random' or 'parallel', got {}",
                crate::util::text::quoted(order)
            ))
        })?;
        Ok(())
    }

    /// Reads that run both origins run old to completion, then new, at every stage
    /// (`ExecutionOrder::OldFirst`).
    pub fn read_old_first(&mut self) {
        self.settings.read_order = ExecutionOrder::OldFirst;
    }

    pub fn track_latency(&mut self, enabled: bool) {
        self.settings.track_latency = enabled;
    }

    pub fn track_errors(&mut self, enabled: bool) {
        self.settings.track_errors = enabled;
    }

    pub fn origin_timeout(&mut self, ms: f64) -> Result<(), Error> {
        if !(ms.is_finite() && ms > 0.0) {
            return Err(Error::Range(format!(
                "originTimeout: ms must be a positive, finite number of milliseconds, got {}",
                crate::util::text::number(ms)
            )));
        }
        self.settings.origin_timeout_ms = Some(ms);
        Ok(())
    }

    /// Background mode (API §1 "Shadowing in production"); `max_in_flight` as the caller gave it
    /// (`None`: the default). Replaces an earlier call's setting.
    pub fn background(&mut self, max_in_flight: Option<f64>) -> Result<(), Error> {
        let max = match max_in_flight {
            None => super::background::DEFAULT_MAX_IN_FLIGHT,
            Some(n) if n.is_finite() && n >= 1.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => n as u32,
            Some(n) => {
                return Err(Error::Range(format!(
                    "background: maxInFlight must be a positive integer, got {}",
                    crate::util::text::number(n)
                )))
            }
        };
        self.settings.background_max_in_flight = Some(max);
        Ok(())
    }

    /// `mismatches()` (API §1 "Differences"): explain every mismatch with `explainer`, keep the
    /// last `settings.keep`, tell `listener`. Replaces an earlier call's configuration.
    pub fn mismatches(
        &mut self,
        settings: MismatchSettings,
        explainer: Rc<dyn Explainer<V>>,
        listener: Option<Rc<dyn MismatchListener<V>>>,
    ) {
        self.mismatches = Some(MismatchesConfig { settings, explainer, listener });
    }

    /// `guard()` (API §1 "Guardrails"): a circuit breaker on the new origin per flag key.
    /// Replaces an earlier call's configuration.
    pub fn guard(&mut self, settings: GuardSettings, listener: Option<Rc<dyn GuardListener>>) {
        self.guard = Some((settings, listener));
    }

    /// Replaces any earlier read configuration.
    pub fn read(&mut self, origins: ReadOrigins<V>) {
        self.read = Some(origins);
    }

    pub fn write(&mut self, origins: WriteOrigins<V>) {
        self.write = Some(origins);
    }

    /// A new, independent migrator (its own statistics) over the current configuration.
    pub fn build(&self, client: Rc<dyn MigrationClient<V>>, host: Host) -> Result<Migrator<V>, Error> {
        let read = self.read.clone().ok_or(MigratorConfigError::ReadNotProvided)?;
        let write = self.write.clone().ok_or(MigratorConfigError::WriteNotProvided)?;
        let mismatches =
            self.mismatches.as_ref().map(|m| Mismatches::new(m.settings, m.explainer.clone(), m.listener.clone()));
        let guard = self.guard.as_ref().map(|(settings, listener)| Guard::new(*settings, listener.clone()));
        Ok(Migrator::new(self.settings, (read, write), client, host, mismatches, guard))
    }
}
