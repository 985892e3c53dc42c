//! Manager options (SPEC B1): defaults, ranges, and the errors that name the option.

pub use crate::error::{ConfigError, ConfigErrorKind};
use crate::options::manager_option;

/// Manager options (SPEC B1). Durations are milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BigSegmentsConfig {
    /// At least 1.
    pub context_cache_size: usize,
    /// Absolute TTL from insertion; finite, ≥ 0 (0 disables caching).
    pub context_cache_time_ms: f64,
    /// Finite, > 0.
    pub status_poll_interval_ms: f64,
    /// Finite, > 0.
    pub stale_after_ms: f64,
    /// Bounds every store call; finite, > 0.
    pub query_timeout_ms: f64,
}

impl Default for BigSegmentsConfig {
    fn default() -> Self {
        BigSegmentsConfig {
            context_cache_size: 1000,
            context_cache_time_ms: 5000.0,
            status_poll_interval_ms: 5000.0,
            stale_after_ms: 120_000.0,
            query_timeout_ms: 10_000.0,
        }
    }
}

/// One numeric option as the host gave it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum OptionValue {
    /// Not given (`undefined`; when deserialized, also a missing key or `null`): the default.
    #[default]
    Absent,
    Number(f64),
    /// Present but not a number (a string, a boolean, an object, a BigInt, …): a `TypeError`
    /// that names what it is (its JavaScript `typeof`, or `null`).
    Other(&'static str),
}

impl<'de> serde::Deserialize<'de> for OptionValue {
    /// Never fails: a value that is neither nothing nor a number is [`OptionValue::Other`], so
    /// [`BigSegmentsConfig::from_options`] names the option in its error. Meant for deserializers
    /// that hand out each field's value on its own (serde-wasm-bindgen over a JavaScript object,
    /// `serde_json::Value`), where a field that failed leaves the rest readable.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Option::<f64>::deserialize(deserializer) {
            Ok(None) => OptionValue::Absent,
            Ok(Some(n)) => OptionValue::Number(n),
            Err(_) => OptionValue::Other("a value that is not a number"),
        })
    }
}

/// Raw numeric options, for [`BigSegmentsConfig::from_options`]; deserializable from the
/// manager's options object by their API names (other keys, such as `store` and `logger`, are
/// not read here). The wasm bindings read these five fields by hand instead, for size: see
/// `option_value` in `js/segments.rs`.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BigSegmentsOptionValues {
    pub context_cache_size: OptionValue,
    pub context_cache_time_ms: OptionValue,
    pub status_poll_interval_ms: OptionValue,
    pub stale_after_ms: OptionValue,
    pub query_timeout_ms: OptionValue,
}

const POSITIVE_INTEGER: &str = "a positive integer";
const NON_NEGATIVE: &str = "a non-negative finite number";
const POSITIVE: &str = "a positive finite number";

fn check_duration(option: &'static str, value: f64, allow_zero: bool) -> Result<f64, ConfigError> {
    let ok = value.is_finite() && (value > 0.0 || (allow_zero && value == 0.0));
    if ok {
        Ok(value)
    } else {
        Err(ConfigError::range(option, if allow_zero { NON_NEGATIVE } else { POSITIVE }, value))
    }
}

fn check_size(option: &'static str, value: f64) -> Result<usize, ConfigError> {
    if value.is_finite() && value >= 1.0 && value.fract() == 0.0 {
        // Saturating: a size beyond usize::MAX is as good as unbounded.
        Ok(value as usize)
    } else {
        Err(ConfigError::range(option, POSITIVE_INTEGER, value))
    }
}

impl BigSegmentsConfig {
    pub const CONTEXT_CACHE_SIZE: &'static str = manager_option::CONTEXT_CACHE_SIZE;
    pub const CONTEXT_CACHE_TIME_MS: &'static str = manager_option::CONTEXT_CACHE_TIME_MS;
    pub const STATUS_POLL_INTERVAL_MS: &'static str = manager_option::STATUS_POLL_INTERVAL_MS;
    pub const STALE_AFTER_MS: &'static str = manager_option::STALE_AFTER_MS;
    pub const QUERY_TIMEOUT_MS: &'static str = manager_option::QUERY_TIMEOUT_MS;

    /// Checks every option, in API order, and reports the first invalid one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.context_cache_size == 0 {
            return Err(ConfigError::range(Self::CONTEXT_CACHE_SIZE, POSITIVE_INTEGER, 0.0));
        }
        check_duration(Self::CONTEXT_CACHE_TIME_MS, self.context_cache_time_ms, true)?;
        check_duration(Self::STATUS_POLL_INTERVAL_MS, self.status_poll_interval_ms, false)?;
        check_duration(Self::STALE_AFTER_MS, self.stale_after_ms, false)?;
        check_duration(Self::QUERY_TIMEOUT_MS, self.query_timeout_ms, false)?;
        Ok(())
    }

    /// Builds a validated config from raw option values: absent → default, not a number →
    /// `Type` error, out of range → `Range` error. Options are checked in API order.
    pub fn from_options(values: &BigSegmentsOptionValues) -> Result<Self, ConfigError> {
        fn number(option: &'static str, value: OptionValue, default: f64) -> Result<f64, ConfigError> {
            match value {
                OptionValue::Absent => Ok(default),
                OptionValue::Number(n) => Ok(n),
                OptionValue::Other(got) => Err(ConfigError::wrong_type(option, got)),
            }
        }
        let d = BigSegmentsConfig::default();
        let size = match values.context_cache_size {
            OptionValue::Absent => d.context_cache_size,
            OptionValue::Number(n) => check_size(Self::CONTEXT_CACHE_SIZE, n)?,
            OptionValue::Other(got) => return Err(ConfigError::wrong_type(Self::CONTEXT_CACHE_SIZE, got)),
        };
        let config = BigSegmentsConfig {
            context_cache_size: size,
            context_cache_time_ms: check_duration(
                Self::CONTEXT_CACHE_TIME_MS,
                number(Self::CONTEXT_CACHE_TIME_MS, values.context_cache_time_ms, d.context_cache_time_ms)?,
                true,
            )?,
            status_poll_interval_ms: check_duration(
                Self::STATUS_POLL_INTERVAL_MS,
                number(Self::STATUS_POLL_INTERVAL_MS, values.status_poll_interval_ms, d.status_poll_interval_ms)?,
                false,
            )?,
            stale_after_ms: check_duration(
                Self::STALE_AFTER_MS,
                number(Self::STALE_AFTER_MS, values.stale_after_ms, d.stale_after_ms)?,
                false,
            )?,
            query_timeout_ms: check_duration(
                Self::QUERY_TIMEOUT_MS,
                number(Self::QUERY_TIMEOUT_MS, values.query_timeout_ms, d.query_timeout_ms)?,
                false,
            )?,
        };
        config.validate()?;
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(json: &str) -> BigSegmentsOptionValues {
        // A `Value` (like a JavaScript object) is read one field at a time, so a field that is
        // not a number leaves the others readable; a streaming parser would stop there.
        serde_json::from_value(serde_json::from_str(json).unwrap()).unwrap()
    }

    #[test]
    fn options_deserialize_by_their_api_names_absent_number_or_other() {
        let v = options(
            r#"{"contextCacheSize": 5, "contextCacheTimeMs": "100", "statusPollIntervalMs": null,
            "staleAfterMs": true, "queryTimeoutMs": 2.5, "store": {}, "logger": null}"#,
        );
        assert_eq!(v.context_cache_size, OptionValue::Number(5.0));
        let other = OptionValue::Other("a value that is not a number");
        assert_eq!(v.context_cache_time_ms, other);
        assert_eq!(v.status_poll_interval_ms, OptionValue::Absent);
        assert_eq!(v.stale_after_ms, other);
        assert_eq!(v.query_timeout_ms, OptionValue::Number(2.5));
        assert_eq!(options("{}"), BigSegmentsOptionValues::default());
        assert_eq!(options(r#"{"queryTimeoutMs": [1], "staleAfterMs": {"a": 1}}"#).query_timeout_ms, other);
    }

    #[test]
    fn deserialized_options_fail_naming_the_option() {
        let error = |json: &str| BigSegmentsConfig::from_options(&options(json)).unwrap_err();
        let e = error(r#"{"contextCacheTimeMs": "100"}"#);
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                ConfigErrorKind::Type,
                "BigSegmentStoreManager: contextCacheTimeMs must be a number, got a value that is not a number"
            )
        );
        let e = error(r#"{"contextCacheSize": 1.5}"#);
        assert_eq!(
            (e.kind, e.message.as_str()),
            (ConfigErrorKind::Range, "BigSegmentStoreManager: contextCacheSize must be a positive integer, got 1.5")
        );
        let e = error(r#"{"queryTimeoutMs": -1}"#);
        assert_eq!(e.message, "BigSegmentStoreManager: queryTimeoutMs must be a positive finite number, got -1");
        assert_eq!(BigSegmentsConfig::from_options(&options("{}")), Ok(BigSegmentsConfig::default()));
    }
}
