//! The core's one error type. Every refusal the core makes is data of this type; the bindings
//! turn it into a JavaScript error in one place (`js/error.rs`), choosing the class by
//! [`Error::class`]. `Display` gives the exact message (tests and callers assert it).

use std::fmt;

use crate::vocabulary::stage::Origin;

/// Which kind of JavaScript error an [`Error`] becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// `TypeError`: a value of the wrong kind.
    Type,
    /// `RangeError`: the right kind, outside the allowed range.
    Range,
    /// A plain `Error`.
    Plain,
    /// `MigratorConfigError` (the facade's class; the bindings throw a plain `Error` with the
    /// message, which the facade rethrows as its own class).
    MigratorConfig,
}

/// Everything the core refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A bad argument of the wrong kind; the message names it.
    Type(String),
    /// A bad argument of the right kind, outside the allowed range; the message names it.
    Range(String),
    /// `build()` was called before the migrator's configuration was complete.
    MigratorConfig(MigratorConfigError),
    /// An `OpTracker` refused to make an event.
    Build(BuildError),
    /// A Big Segments option was refused; its kind decides the class.
    Config(ConfigError),
    /// An options object had a key its owner does not know (a `TypeError`).
    UnknownOption(UnknownOptionError),
}

impl Error {
    pub fn class(&self) -> ErrorClass {
        match self {
            Error::Type(_) => ErrorClass::Type,
            Error::Range(_) => ErrorClass::Range,
            Error::MigratorConfig(_) => ErrorClass::MigratorConfig,
            Error::Build(_) => ErrorClass::Plain,
            Error::Config(e) => match e.kind {
                ConfigErrorKind::Range => ErrorClass::Range,
                ConfigErrorKind::Type => ErrorClass::Type,
            },
            Error::UnknownOption(_) => ErrorClass::Type,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Type(m) | Error::Range(m) => f.write_str(m),
            Error::MigratorConfig(e) => e.fmt(f),
            Error::Build(e) => e.fmt(f),
            Error::Config(e) => e.fmt(f),
            Error::UnknownOption(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

impl From<MigratorConfigError> for Error {
    fn from(e: MigratorConfigError) -> Self {
        Error::MigratorConfig(e)
    }
}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error::Config(e)
    }
}

impl From<UnknownOptionError> for Error {
    fn from(e: UnknownOptionError) -> Self {
        Error::UnknownOption(e)
    }
}

impl From<BuildError> for Error {
    fn from(e: BuildError) -> Self {
        Error::Build(e)
    }
}

/// What `build()` found missing.
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

/// Why an `OpTracker` refused to make an event (SPEC A5, in its order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildError {
    OperationNotProvided,
    EmptyKey,
    NoOriginsInvoked,
    InvalidContext,
    LatencyWithoutInvocation(Origin),
    ErrorWithoutInvocation(Origin),
    ConsistencyWithoutBothInvocations,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::OperationNotProvided => f.write_str("operation not provided"),
            BuildError::EmptyKey => f.write_str("migration operation cannot contain an empty key"),
            BuildError::NoOriginsInvoked => f.write_str("no origins were invoked"),
            BuildError::InvalidContext => f.write_str("provided context was invalid"),
            BuildError::LatencyWithoutInvocation(o) => {
                write!(f, "provided latency for origin '{}' without recording invocation", o.as_str())
            }
            BuildError::ErrorWithoutInvocation(o) => {
                write!(f, "provided error for origin '{}' without recording invocation", o.as_str())
            }
            BuildError::ConsistencyWithoutBothInvocations => {
                f.write_str("provided consistency without recording both invocations")
            }
        }
    }
}

/// Which JS error class a [`ConfigError`] becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigErrorKind {
    /// `RangeError`: a number out of range (negative, NaN, infinite, non-integer size, …).
    Range,
    /// `TypeError`: not a number at all.
    Type,
}

/// An invalid Big Segments option; `option` is the JS option name, and `message` names the owner,
/// the option and what it got (`BigSegmentStoreManager: contextCacheSize must be a positive
/// integer, got -1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub option: &'static str,
    pub kind: ConfigErrorKind,
    pub message: String,
}

impl ConfigError {
    /// The options' owner, which every message names first.
    pub const OWNER: &'static str = "BigSegmentStoreManager";

    /// `<owner>: <option> must be <requirement>, got <value>`.
    pub fn range(option: &'static str, requirement: &str, got: f64) -> Self {
        let message =
            format!("{}: {option} must be {requirement}, got {}", Self::OWNER, crate::util::text::number(got));
        ConfigError { option, kind: ConfigErrorKind::Range, message }
    }
    /// `<owner>: <option> must be a number, got <type>` (a value of the wrong JS type, named by
    /// its `typeof`).
    pub fn wrong_type(option: &'static str, got: &str) -> Self {
        let message = format!("{}: {option} must be a number, got {got}", Self::OWNER);
        ConfigError { option, kind: ConfigErrorKind::Type, message }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A key of an options object that its owner does not know (src/options.rs):
/// `<key> is not an option of <owner>`, then `; did you mean <name>?` when one is close.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownOptionError {
    /// The key as the caller wrote it.
    pub key: String,
    /// The public name the options object was passed to (`BigSegmentStoreManager`, `Migrator#read`, …).
    pub owner: &'static str,
    /// The known name close to `key`, if there is one.
    pub suggestion: Option<&'static str>,
}

/// The longest key a message repeats, in bytes; a longer one is cut, and ends with `…`.
const MAX_KEY_IN_MESSAGE: usize = 64;

/// Whether `key` reads unambiguously without quotes: an identifier of ASCII letters, digits, `_`
/// and `$`, not starting with a digit (every name cutover knows is one).
fn is_plain_name(key: &str) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    key.bytes().all(word) && key.bytes().next().is_some_and(|c| !c.is_ascii_digit())
}

impl fmt::Display for UnknownOptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = self.key.as_str();
        if key.len() <= MAX_KEY_IN_MESSAGE && is_plain_name(key) {
            f.write_str(key)?;
        } else {
            // Quoted (and escaped) so that an empty key, spaces or control characters show.
            let end = (0..=MAX_KEY_IN_MESSAGE.min(key.len())).rev().find(|&i| key.is_char_boundary(i)).unwrap_or(0);
            let cut = key.get(..end).unwrap_or_default();
            f.write_str(&crate::util::text::quoted(cut))?;
            if cut.len() < key.len() {
                f.write_str("…")?;
            }
        }
        f.write_str(" is not an option of ")?;
        f.write_str(self.owner)?;
        if let Some(name) = self.suggestion {
            f.write_str("; did you mean ")?;
            f.write_str(name)?;
            f.write_str("?")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_names_its_class_and_keeps_its_message() {
        let cases = [
            (Error::Type("x must be a string".into()), ErrorClass::Type, "x must be a string"),
            (Error::Range("ms must be ≥ 0".into()), ErrorClass::Range, "ms must be ≥ 0"),
            (
                MigratorConfigError::WriteNotProvided.into(),
                ErrorClass::MigratorConfig,
                "write configuration not provided",
            ),
            (BuildError::EmptyKey.into(), ErrorClass::Plain, "migration operation cannot contain an empty key"),
            (
                ConfigError::wrong_type("staleAfterMs", "string").into(),
                ErrorClass::Type,
                "BigSegmentStoreManager: staleAfterMs must be a number, got string",
            ),
            (
                ConfigError::range("contextCacheSize", "a positive integer", -1.0).into(),
                ErrorClass::Range,
                "BigSegmentStoreManager: contextCacheSize must be a positive integer, got -1",
            ),
            (
                UnknownOptionError {
                    key: "queryTimeout".into(),
                    owner: "BigSegmentStoreManager",
                    suggestion: Some("queryTimeoutMs"),
                }
                .into(),
                ErrorClass::Type,
                "queryTimeout is not an option of BigSegmentStoreManager; did you mean queryTimeoutMs?",
            ),
        ];
        for (error, class, message) in cases {
            assert_eq!(error.class(), class);
            assert_eq!(error.to_string(), message);
        }
    }

    fn unknown(key: &str) -> String {
        UnknownOptionError { key: key.into(), owner: "redisBigSegmentStore", suggestion: None }.to_string()
    }

    #[test]
    fn an_unknown_key_reads_bare_when_it_is_a_plain_name_and_quoted_otherwise() {
        assert_eq!(unknown("cacheTTL"), "cacheTTL is not an option of redisBigSegmentStore");
        assert_eq!(unknown("$_x9"), "$_x9 is not an option of redisBigSegmentStore");
        assert_eq!(unknown(""), r#""" is not an option of redisBigSegmentStore"#);
        assert_eq!(unknown("0"), r#""0" is not an option of redisBigSegmentStore"#);
        assert_eq!(unknown("cache ttl"), r#""cache ttl" is not an option of redisBigSegmentStore"#);
        assert_eq!(unknown("a\nb\"c"), r#""a?b\"c" is not an option of redisBigSegmentStore"#);
        assert_eq!(unknown("préfix"), r#""préfix" is not an option of redisBigSegmentStore"#);
    }

    #[test]
    fn a_long_key_is_cut_in_the_message() {
        let key = "k".repeat(1000);
        let message = unknown(&key);
        assert_eq!(message, format!("\"{}\"… is not an option of redisBigSegmentStore", "k".repeat(64)));
        let exactly = "k".repeat(64);
        assert_eq!(unknown(&exactly), format!("{exactly} is not an option of redisBigSegmentStore"));
    }
}
