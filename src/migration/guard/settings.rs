//! `MigratorBuilder#guard(options)`: the bounds and timings of a guard, with the defaults of
//! API §1 "Guardrails", each checked (a `RangeError` naming the option and the value it got).

use crate::error::Error;
use crate::options::guard_option as name;
use crate::util::text::number;

/// Who the options are given to, as messages name it.
const OWNER: &str = "MigratorBuilder#guard";

/// The options as the caller gave them (`None`: the default).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GuardOptions {
    pub max_error_rate: Option<f64>,
    pub max_consecutive_errors: Option<f64>,
    pub max_latency_ratio: Option<f64>,
    pub max_inconsistency: Option<f64>,
    pub window_ms: Option<f64>,
    pub min_calls: Option<f64>,
    pub cooldown_ms: Option<f64>,
    pub probe_ratio: Option<f64>,
}

/// A guard's checked settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GuardSettings {
    /// The new origin's failures ÷ its calls in the window, in (0, 1].
    pub max_error_rate: f64,
    /// This many new-origin failures in a row trip the guard at any count.
    pub max_consecutive_errors: u32,
    /// New p99 ÷ old p99 over the window's operations where both ran, > 1 (`None`: not judged).
    pub max_latency_ratio: Option<f64>,
    /// Inconsistent ÷ checked reads in the window, in (0, 1] (`None`: not judged).
    pub max_inconsistency: Option<f64>,
    pub window_ms: f64,
    /// No rate decision on fewer new-origin calls in the window.
    pub min_calls: u32,
    pub cooldown_ms: f64,
    /// While probing, 1 read in this many also calls the new origin.
    pub probe_ratio: u32,
}

impl Default for GuardSettings {
    fn default() -> Self {
        GuardSettings {
            max_error_rate: 0.1,
            max_consecutive_errors: 10,
            max_latency_ratio: None,
            max_inconsistency: None,
            window_ms: 60_000.0,
            min_calls: 100,
            cooldown_ms: 30_000.0,
            probe_ratio: 10,
        }
    }
}

fn refused(name: &str, rule: &str, got: f64) -> Error {
    Error::Range(format!("{OWNER}: {name} must be {rule}, got {}", number(got)))
}

/// A share in (0, 1].
fn share(value: Option<f64>, name: &str) -> Result<Option<f64>, Error> {
    match value {
        Some(n) if !(n > 0.0 && n <= 1.0) => Err(refused(name, "a number greater than 0 and at most 1", n)),
        other => Ok(other),
    }
}

/// A positive integer a `u32` holds.
fn count(value: Option<f64>, name: &str, default: u32) -> Result<u32, Error> {
    match value {
        None => Ok(default),
        Some(n) if n.is_finite() && n >= 1.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => Ok(n as u32),
        Some(n) => Err(refused(name, "a positive integer", n)),
    }
}

/// A positive, finite number of milliseconds.
fn duration(value: Option<f64>, name: &str, default: f64) -> Result<f64, Error> {
    match value {
        None => Ok(default),
        Some(n) if n.is_finite() && n > 0.0 => Ok(n),
        Some(n) => Err(refused(name, "a positive, finite number of milliseconds", n)),
    }
}

impl GuardSettings {
    pub fn new(given: GuardOptions) -> Result<Self, Error> {
        let defaults = GuardSettings::default();
        let max_latency_ratio = match given.max_latency_ratio {
            Some(n) if !(n.is_finite() && n > 1.0) => {
                return Err(refused(name::MAX_LATENCY_RATIO, "a finite number greater than 1", n))
            }
            other => other,
        };
        Ok(GuardSettings {
            max_error_rate: share(given.max_error_rate, name::MAX_ERROR_RATE)?.unwrap_or(defaults.max_error_rate),
            max_consecutive_errors: count(
                given.max_consecutive_errors,
                name::MAX_CONSECUTIVE_ERRORS,
                defaults.max_consecutive_errors,
            )?,
            max_latency_ratio,
            max_inconsistency: share(given.max_inconsistency, name::MAX_INCONSISTENCY)?,
            window_ms: duration(given.window_ms, name::WINDOW_MS, defaults.window_ms)?,
            min_calls: count(given.min_calls, name::MIN_CALLS, defaults.min_calls)?,
            cooldown_ms: duration(given.cooldown_ms, name::COOLDOWN_MS, defaults.cooldown_ms)?,
            probe_ratio: count(given.probe_ratio, name::PROBE_RATIO, defaults.probe_ratio)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(options: GuardOptions) -> String {
        GuardSettings::new(options).unwrap_err().to_string()
    }

    #[test]
    fn no_options_are_the_api_defaults() {
        let s = GuardSettings::new(GuardOptions::default()).unwrap();
        assert_eq!(s, GuardSettings::default());
        assert_eq!((s.max_error_rate, s.max_consecutive_errors, s.min_calls, s.probe_ratio), (0.1, 10, 100, 10));
        assert_eq!(
            (s.window_ms, s.cooldown_ms, s.max_latency_ratio, s.max_inconsistency),
            (60_000.0, 30_000.0, None, None)
        );
    }

    #[test]
    fn every_option_is_checked_and_named_with_what_it_got() {
        let cases = [
            (
                GuardOptions { max_error_rate: Some(0.0), ..Default::default() },
                "maxErrorRate must be a number greater than 0 and at most 1, got 0",
            ),
            (
                GuardOptions { max_error_rate: Some(1.5), ..Default::default() },
                "maxErrorRate must be a number greater than 0 and at most 1, got 1.5",
            ),
            (
                GuardOptions { max_error_rate: Some(f64::NAN), ..Default::default() },
                "maxErrorRate must be a number greater than 0 and at most 1, got NaN",
            ),
            (
                GuardOptions { max_consecutive_errors: Some(0.0), ..Default::default() },
                "maxConsecutiveErrors must be a positive integer, got 0",
            ),
            (
                GuardOptions { max_consecutive_errors: Some(2.5), ..Default::default() },
                "maxConsecutiveErrors must be a positive integer, got 2.5",
            ),
            (
                GuardOptions { max_latency_ratio: Some(1.0), ..Default::default() },
                "maxLatencyRatio must be a finite number greater than 1, got 1",
            ),
            (
                GuardOptions { max_inconsistency: Some(-0.1), ..Default::default() },
                "maxInconsistency must be a number greater than 0 and at most 1, got -0.1",
            ),
            (
                GuardOptions { window_ms: Some(0.0), ..Default::default() },
                "windowMs must be a positive, finite number of milliseconds, got 0",
            ),
            (
                GuardOptions { window_ms: Some(f64::INFINITY), ..Default::default() },
                "windowMs must be a positive, finite number of milliseconds, got Infinity",
            ),
            (
                GuardOptions { min_calls: Some(-1.0), ..Default::default() },
                "minCalls must be a positive integer, got -1",
            ),
            (
                GuardOptions { cooldown_ms: Some(-5.0), ..Default::default() },
                "cooldownMs must be a positive, finite number of milliseconds, got -5",
            ),
            (
                GuardOptions { probe_ratio: Some(0.5), ..Default::default() },
                "probeRatio must be a positive integer, got 0.5",
            ),
        ];
        for (options, expected) in cases {
            assert_eq!(message(options), format!("MigratorBuilder#guard: {expected}"));
        }
    }

    #[test]
    fn the_bounds_own_values_are_accepted() {
        let given = GuardOptions {
            max_error_rate: Some(1.0),
            max_consecutive_errors: Some(1.0),
            max_latency_ratio: Some(1.5),
            max_inconsistency: Some(0.05),
            window_ms: Some(1.0),
            min_calls: Some(1.0),
            cooldown_ms: Some(0.5),
            probe_ratio: Some(1.0),
        };
        let s = GuardSettings::new(given).unwrap();
        assert_eq!((s.max_latency_ratio, s.max_inconsistency, s.probe_ratio), (Some(1.5), Some(0.05), 1));
    }
}
