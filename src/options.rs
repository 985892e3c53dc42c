//! The names each options object of the public API knows, and the refusal of any other name
//! ("nothing is silently replaced" covers names too: a misspelt `queryTimeout: 250` would
//! otherwise leave the default in place without a word).
//!
//! The rule:
//! - The keys checked are the object's own enumerable string keys, as `Object.keys` lists them.
//!   Symbol keys and inherited keys are not options and are never looked at; an own key whose
//!   value is `undefined` is checked like any other (`{ queryTimeout: undefined }` is still a
//!   misspelling). An object whose keys cannot be listed (a proxy whose `ownKeys` throws) is not
//!   checked: the bindings read its options as before, a read that throws as absent.
//! - Names are checked as soon as the object is known to be an object, before any of its values,
//!   so a misspelt required option (`tablename`) is reported as a misspelling rather than as the
//!   missing option.
//! - The first unknown key in the object's key order is reported: a `TypeError`
//!   `<key> is not an option of <owner>`, with `; did you mean <name>?` when one known name is
//!   close (`util::closest_name`: case-blind Levenshtein distance in bytes, at most a third of
//!   the shorter name, between 1 and 3). The key is quoted when it is not a plain identifier
//!   (`UnknownOptionError`).
//! - The owner is the public name the object is passed to: the class for a constructor's
//!   options, the function for a function's, and `Interface#method` for a method's
//!   (`Migrator#read`, `LDMigration#write`, the interfaces of js/index.d.ts).
//! - An operation's options are read at every operation: the facade hands them over only when
//!   `for…in` finds a key other than `signal` (js/migration.js, `mayHaveOtherKeys`), so the
//!   usual call pays no crossing.

use crate::error::UnknownOptionError;
use crate::util::closest_name::closest_name;

/// Every options object of the public API, by what it is passed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionsObject {
    /// `new BigSegmentStoreManager(options)`.
    BigSegmentStoreManager,
    /// `new MigratorBuilder(client, options)`.
    MigratorBuilder,
    /// `migrator.read(flagKey, context, defaultStage, payload, options)`.
    MigratorRead,
    /// `migrator.write(…, options)`.
    MigratorWrite,
    /// The `read` of the object `createMigration` returns.
    LdMigrationRead,
    /// The `write` of the object `createMigration` returns.
    LdMigrationWrite,
    /// `createMigration(ldClient, options)`: LaunchDarkly's `LDMigrationOptions` and cutover's extras.
    CreateMigration,
    /// `redisBigSegmentStore(host, options)`.
    RedisBigSegmentStore,
    /// `dynamoDbBigSegmentStore(host, options)`.
    DynamoDbBigSegmentStore,
    /// `launchDarklyBigSegmentStore(store, options)`.
    LaunchDarklyBigSegmentStore,
    /// `openFeatureClient(client, options)`.
    OpenFeatureClient,
    /// `MigratorBuilder#background(options)`.
    MigratorBackground,
    /// `MigratorBuilder#mismatches(options)`.
    MigratorMismatches,
    /// `MigratorBuilder#guard(options)`.
    MigratorGuard,
    /// `sameStructure(options)`.
    SameStructure,
    /// `sameResponse(options)`.
    SameResponse,
    /// `beaconSink(url, options)`.
    BeaconSink,
    /// `migrationEventRelay(ldClient, options)`.
    MigrationEventRelay,
    /// `launchDarklyBrowserClient(ldClient, options)`.
    LaunchDarklyBrowserClient,
    /// `migrationConsole(options)`.
    MigrationConsole,
    /// `redisFleet(host, options)`.
    RedisFleet,
}

/// `BigSegmentStoreManager`'s tuning options, named here (and by `BigSegmentsConfig`, which
/// validates them) so that the list stands in a build without Big Segments too.
pub mod manager_option {
    pub const CONTEXT_CACHE_SIZE: &str = "contextCacheSize";
    pub const CONTEXT_CACHE_TIME_MS: &str = "contextCacheTimeMs";
    pub const STATUS_POLL_INTERVAL_MS: &str = "statusPollIntervalMs";
    pub const STALE_AFTER_MS: &str = "staleAfterMs";
    pub const QUERY_TIMEOUT_MS: &str = "queryTimeoutMs";
}

/// `MigratorBuilder#guard`'s options, named here (and by `GuardSettings`, which validates them,
/// and the binding, which reads them).
pub mod guard_option {
    pub const MAX_ERROR_RATE: &str = "maxErrorRate";
    pub const MAX_CONSECUTIVE_ERRORS: &str = "maxConsecutiveErrors";
    pub const MAX_LATENCY_RATIO: &str = "maxLatencyRatio";
    pub const MAX_INCONSISTENCY: &str = "maxInconsistency";
    pub const WINDOW_MS: &str = "windowMs";
    pub const MIN_CALLS: &str = "minCalls";
    pub const COOLDOWN_MS: &str = "cooldownMs";
    pub const PROBE_RATIO: &str = "probeRatio";
    pub const ON_CHANGE: &str = "onChange";
}

const GUARD: &[&str] = &[
    guard_option::MAX_ERROR_RATE,
    guard_option::MAX_CONSECUTIVE_ERRORS,
    guard_option::MAX_LATENCY_RATIO,
    guard_option::MAX_INCONSISTENCY,
    guard_option::WINDOW_MS,
    guard_option::MIN_CALLS,
    guard_option::COOLDOWN_MS,
    guard_option::PROBE_RATIO,
    guard_option::ON_CHANGE,
];

/// An operation's options (`OperationOptions`).
const OPERATION: &[&str] = &["signal", "waitUntil"];

impl OptionsObject {
    /// The public name the object is passed to, as messages name it.
    pub fn owner(self) -> &'static str {
        match self {
            OptionsObject::BigSegmentStoreManager => "BigSegmentStoreManager",
            OptionsObject::MigratorBuilder => "MigratorBuilder",
            OptionsObject::MigratorRead => "Migrator#read",
            OptionsObject::MigratorWrite => "Migrator#write",
            OptionsObject::LdMigrationRead => "LDMigration#read",
            OptionsObject::LdMigrationWrite => "LDMigration#write",
            OptionsObject::CreateMigration => "createMigration",
            OptionsObject::RedisBigSegmentStore => "redisBigSegmentStore",
            OptionsObject::DynamoDbBigSegmentStore => "dynamoDbBigSegmentStore",
            OptionsObject::LaunchDarklyBigSegmentStore => "launchDarklyBigSegmentStore",
            OptionsObject::OpenFeatureClient => "openFeatureClient",
            OptionsObject::MigratorBackground => "MigratorBuilder#background",
            OptionsObject::MigratorMismatches => "MigratorBuilder#mismatches",
            OptionsObject::MigratorGuard => "MigratorBuilder#guard",
            OptionsObject::SameStructure => "sameStructure",
            OptionsObject::SameResponse => "sameResponse",
            OptionsObject::BeaconSink => "beaconSink",
            OptionsObject::MigrationEventRelay => "migrationEventRelay",
            OptionsObject::LaunchDarklyBrowserClient => "launchDarklyBrowserClient",
            OptionsObject::MigrationConsole => "migrationConsole",
            OptionsObject::RedisFleet => "redisFleet",
        }
    }

    /// The names the object knows, in the API's order (the order breaks no ties: see
    /// `closest_name`).
    pub fn known(self) -> &'static [&'static str] {
        match self {
            OptionsObject::BigSegmentStoreManager => &[
                "store",
                manager_option::CONTEXT_CACHE_SIZE,
                manager_option::CONTEXT_CACHE_TIME_MS,
                manager_option::STATUS_POLL_INTERVAL_MS,
                manager_option::STALE_AFTER_MS,
                manager_option::QUERY_TIMEOUT_MS,
                "logger",
                "meter",
            ],
            OptionsObject::MigratorBuilder => &["logger"],
            OptionsObject::MigratorRead
            | OptionsObject::MigratorWrite
            | OptionsObject::LdMigrationRead
            | OptionsObject::LdMigrationWrite => OPERATION,
            OptionsObject::CreateMigration => &[
                // LaunchDarkly's LDMigrationOptions, every one of its names.
                "readNew",
                "writeNew",
                "readOld",
                "writeOld",
                "check",
                "execution",
                "latencyTracking",
                "errorTracking",
                // cutover's extras.
                "originTimeoutMs",
                "logger",
                "meter",
                "background",
                "guard",
            ],
            OptionsObject::RedisBigSegmentStore => &["prefix"],
            OptionsObject::DynamoDbBigSegmentStore => &["tableName", "prefix"],
            OptionsObject::LaunchDarklyBigSegmentStore => &[manager_option::QUERY_TIMEOUT_MS],
            OptionsObject::OpenFeatureClient => &["provider"],
            OptionsObject::MigratorBackground => &["maxInFlight", "waitUntil"],
            OptionsObject::MigratorMismatches => &["keep", "maxDifferences", "onMismatch"],
            OptionsObject::MigratorGuard => GUARD,
            OptionsObject::SameStructure => &["ignore"],
            OptionsObject::SameResponse => &["headers", "ignore", "maxBodyBytes"],
            OptionsObject::BeaconSink => &["maxBatch", "flushIntervalMs"],
            OptionsObject::MigrationEventRelay => &["flagKeys", "maxBodyBytes", "maxEvents"],
            OptionsObject::LaunchDarklyBrowserClient => &["events", "samplingRatio", "checkRatio"],
            OptionsObject::MigrationConsole => &[
                "migrators",
                "managers",
                "authorize",
                "basePath",
                "showValues",
                "fleet",
                "historySeconds",
                "maxStreams",
            ],
            OptionsObject::RedisFleet => &["key", "instance", "intervalMs", "ttlMs"],
        }
    }

    /// Refuses `key` when the object does not know it.
    pub fn check_key(self, key: &str) -> Result<(), UnknownOptionError> {
        let known = self.known();
        if known.contains(&key) {
            Ok(())
        } else {
            Err(UnknownOptionError { key: key.to_owned(), owner: self.owner(), suggestion: closest_name(key, known) })
        }
    }

    /// Refuses the first of `keys` (the object's own enumerable string keys, in order) that the
    /// object does not know.
    pub fn check<'k>(self, keys: impl IntoIterator<Item = &'k str>) -> Result<(), UnknownOptionError> {
        keys.into_iter().try_for_each(|key| self.check_key(key))
    }
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;
