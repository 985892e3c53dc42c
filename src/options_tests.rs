//! The option names each owner knows, and the messages for the others.
use super::*;

const ALL: [OptionsObject; 19] = [
    OptionsObject::BigSegmentStoreManager,
    OptionsObject::MigratorBuilder,
    OptionsObject::MigratorRead,
    OptionsObject::MigratorWrite,
    OptionsObject::LdMigrationRead,
    OptionsObject::LdMigrationWrite,
    OptionsObject::CreateMigration,
    OptionsObject::RedisBigSegmentStore,
    OptionsObject::DynamoDbBigSegmentStore,
    OptionsObject::LaunchDarklyBigSegmentStore,
    OptionsObject::OpenFeatureClient,
    OptionsObject::MigratorGuard,
    OptionsObject::SameStructure,
    OptionsObject::SameResponse,
    OptionsObject::BeaconSink,
    OptionsObject::MigrationEventRelay,
    OptionsObject::LaunchDarklyBrowserClient,
    OptionsObject::MigrationConsole,
    OptionsObject::RedisFleet,
];

fn message(object: OptionsObject, keys: &[&str]) -> Option<String> {
    object.check(keys.iter().copied()).err().map(|e| crate::error::Error::from(e).to_string())
}

#[test]
fn the_issue_example_reads_exactly() {
    assert_eq!(
        message(OptionsObject::BigSegmentStoreManager, &["store", "queryTimeout"]).as_deref(),
        Some("queryTimeout is not an option of BigSegmentStoreManager; did you mean queryTimeoutMs?")
    );
}

#[test]
fn every_known_name_passes_and_no_keys_pass() {
    for object in ALL {
        assert_eq!(object.check(object.known().iter().copied()), Ok(()), "{object:?}");
        assert_eq!(object.check([]), Ok(()), "{object:?}");
    }
}

#[test]
fn every_known_name_is_a_plain_name_and_no_name_is_its_own_near_miss() {
    for object in ALL {
        let known = object.known();
        for (i, name) in known.iter().enumerate() {
            assert!(name.chars().all(|c| c.is_ascii_alphabetic()), "{name}");
            assert!(!known.iter().skip(i + 1).any(|other| other.eq_ignore_ascii_case(name)), "{name} twice");
        }
    }
}

#[test]
fn the_big_segment_store_manager_knows_the_api_names() {
    let first = ["store", "contextCacheSize", "contextCacheTimeMs", "statusPollIntervalMs"];
    let rest = ["staleAfterMs", "queryTimeoutMs", "logger", "meter"];
    assert_eq!(OptionsObject::BigSegmentStoreManager.known().to_vec(), [first, rest].concat());
}

#[test]
fn launch_darkly_seconds_names_point_at_the_millisecond_ones() {
    // LaunchDarkly's SDK options in seconds: the manager does not read them, and says which name it does read.
    for (theirs, ours) in [
        ("contextCacheTime", "contextCacheTimeMs"),
        ("statusPollInterval", "statusPollIntervalMs"),
        ("staleAfter", "staleAfterMs"),
    ] {
        assert_eq!(
            message(OptionsObject::BigSegmentStoreManager, &[theirs]),
            Some(format!("{theirs} is not an option of BigSegmentStoreManager; did you mean {ours}?"))
        );
    }
    assert_eq!(
        message(OptionsObject::BigSegmentStoreManager, &["userCacheSize"]).as_deref(),
        Some("userCacheSize is not an option of BigSegmentStoreManager")
    );
}

#[test]
fn create_migration_accepts_every_launch_darkly_name_and_cutovers_extras() {
    let launch_darkly = ["readNew", "writeNew", "readOld", "writeOld", "check", "execution"];
    let more = ["latencyTracking", "errorTracking", "originTimeoutMs", "logger", "meter"];
    let all = launch_darkly.into_iter().chain(more);
    assert_eq!(OptionsObject::CreateMigration.check(all), Ok(()));
    assert_eq!(
        message(OptionsObject::CreateMigration, &["readNew", "readnew"]).as_deref(),
        Some("readnew is not an option of createMigration; did you mean readNew?")
    );
    assert_eq!(
        message(OptionsObject::CreateMigration, &["originTimeout"]).as_deref(),
        Some("originTimeout is not an option of createMigration; did you mean originTimeoutMs?")
    );
    assert_eq!(
        message(OptionsObject::CreateMigration, &["latencyTrack"]).as_deref(),
        Some("latencyTrack is not an option of createMigration; did you mean latencyTracking?")
    );
    assert_eq!(
        message(OptionsObject::CreateMigration, &["timeout"]).as_deref(),
        Some("timeout is not an option of createMigration")
    );
}

#[test]
fn an_operations_options_know_only_the_signal_and_name_the_method() {
    let cases = [
        (OptionsObject::MigratorRead, "Migrator#read"),
        (OptionsObject::MigratorWrite, "Migrator#write"),
        (OptionsObject::LdMigrationRead, "LDMigration#read"),
        (OptionsObject::LdMigrationWrite, "LDMigration#write"),
    ];
    for (object, owner) in cases {
        assert_eq!(object.check(["signal"]), Ok(()));
        assert_eq!(
            message(object, &["signal", "sigal"]),
            Some(format!("sigal is not an option of {owner}; did you mean signal?"))
        );
        assert_eq!(message(object, &["timeoutMs"]), Some(format!("timeoutMs is not an option of {owner}")));
    }
}

#[test]
fn the_stores_and_adapters_name_their_options() {
    let cases = [
        (OptionsObject::MigratorBuilder, "loger", "loger is not an option of MigratorBuilder; did you mean logger?"),
        (
            OptionsObject::RedisBigSegmentStore,
            "prefx",
            "prefx is not an option of redisBigSegmentStore; did you mean prefix?",
        ),
        (OptionsObject::RedisBigSegmentStore, "cacheTTL", "cacheTTL is not an option of redisBigSegmentStore"),
        (
            OptionsObject::DynamoDbBigSegmentStore,
            "tablename",
            "tablename is not an option of dynamoDbBigSegmentStore; did you mean tableName?",
        ),
        (
            OptionsObject::LaunchDarklyBigSegmentStore,
            "queryTimeout",
            "queryTimeout is not an option of launchDarklyBigSegmentStore; did you mean queryTimeoutMs?",
        ),
        (
            OptionsObject::OpenFeatureClient,
            "providr",
            "providr is not an option of openFeatureClient; did you mean provider?",
        ),
        (OptionsObject::OpenFeatureClient, "domain", "domain is not an option of openFeatureClient"),
        (OptionsObject::SameStructure, "ignores", "ignores is not an option of sameStructure; did you mean ignore?"),
        (
            OptionsObject::SameResponse,
            "maxBodyByte",
            "maxBodyByte is not an option of sameResponse; did you mean maxBodyBytes?",
        ),
        (
            OptionsObject::LaunchDarklyBrowserClient,
            "event",
            "event is not an option of launchDarklyBrowserClient; did you mean events?",
        ),
    ];
    for (object, key, expected) in cases {
        assert_eq!(message(object, &[key]).as_deref(), Some(expected));
    }
}

#[test]
fn the_first_unknown_key_in_order_is_reported() {
    let error = OptionsObject::DynamoDbBigSegmentStore.check(["tableName", "prefixx", "region"]).unwrap_err();
    assert_eq!(error.key, "prefixx");
    assert_eq!(error.suggestion, Some("prefix"));
    assert_eq!(error.owner, "dynamoDbBigSegmentStore");
}

#[test]
fn names_are_matched_exactly_and_only_suggested_without_case() {
    let error = OptionsObject::RedisBigSegmentStore.check(["Prefix"]).unwrap_err();
    assert_eq!(error.suggestion, Some("prefix"));
    assert_eq!(OptionsObject::RedisBigSegmentStore.check(["prefix", "prefix"]), Ok(()));
}
