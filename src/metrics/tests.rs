//! The instrument table and the attribute rules.

#[cfg(feature = "segments")]
use super::instrument::{InstrumentSpec, DURATION_BUCKETS_S};
use super::*;
use crate::vocabulary::stage::{Operation, Origin, Stage};

#[test]
fn table_names_kinds_units_in_slot_order() {
    let names: Vec<_> = Instrument::table(&Instrument::MIGRATION).into_iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        [
            "cutover.migration.operations",
            "cutover.migration.origin.duration",
            "cutover.migration.origin.errors",
            "cutover.migration.origin.timeouts",
            "cutover.migration.consistency.checks",
            "cutover.migration.consistency.mismatches",
            "cutover.migration.shed",
            "cutover.migration.guard.changes",
            "cutover.migration.guard.state",
        ]
    );
    let names: Vec<_> = Instrument::table(&Instrument::BIG_SEGMENTS).into_iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        [
            "cutover.big_segments.lookups",
            "cutover.big_segments.cache_hits",
            "cutover.big_segments.store_queries",
            "cutover.big_segments.store.duration",
            "cutover.big_segments.status",
        ]
    );
    for group in [&Instrument::MIGRATION[..], &Instrument::BIG_SEGMENTS[..]] {
        for (slot, i) in group.iter().enumerate() {
            assert_eq!(i.slot(), slot, "{i:?}");
            let InstrumentSpec { kind, unit, advice, .. } = i.spec();
            match kind {
                InstrumentKind::Histogram => {
                    assert_eq!(unit, "s");
                    assert_eq!(
                        advice.map(|a| a.explicit_bucket_boundaries.to_vec()),
                        Some(DURATION_BUCKETS_S.to_vec())
                    );
                }
                _ => assert!(advice.is_none() && unit != "s"),
            }
        }
    }
    assert!(DURATION_BUCKETS_S.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn table_serializes_as_hosts_read_it() {
    let row = serde_json::to_value(Instrument::OriginDuration.spec()).unwrap();
    assert_eq!(row["kind"], "Histogram");
    assert_eq!(row["advice"]["explicitBucketBoundaries"][0], 0.0005);
    let row = serde_json::to_value(Instrument::BigSegmentsStatus.spec()).unwrap();
    assert_eq!((row["kind"].as_str(), row.get("advice")), (Some("ObservableGauge"), None));
}

#[test]
fn attributes_are_only_the_allowed_names_in_a_fixed_order() {
    let a = Attributes::operation("f", Stage::RampDown, Operation::Write)
        .with_origin(Origin::New)
        .with_error(ErrorType::named(Some("TypeError")));
    let pairs: Vec<_> = a.pairs().collect();
    assert_eq!(
        pairs,
        [
            ("feature_flag.key", "f"),
            ("cutover.migration.stage", "rampdown"),
            ("cutover.migration.operation", "write"),
            ("cutover.migration.origin", "new"),
            ("error.type", "TypeError"),
        ]
    );
    assert_eq!(Attributes::default().pairs().count(), 0);
}

#[test]
fn error_types_are_few() {
    assert_eq!(ErrorType::Timeout.as_str(), "timeout");
    assert_eq!(ErrorType::named(None).as_str(), "_OTHER");
    assert_eq!(ErrorType::named(Some("")).as_str(), "_OTHER");
    let long = "E".repeat(ErrorType::MAX_NAME + 1);
    assert_eq!(ErrorType::named(Some(&long)).as_str(), "_OTHER");
    let max = "E".repeat(ErrorType::MAX_NAME);
    assert_eq!(ErrorType::named(Some(&max)).as_str(), max);
}

#[test]
fn identity_tells_every_distinct_set_apart() {
    let mut seen = std::collections::HashMap::new();
    for flag in [None, Some("f"), Some("g")] {
        for stage in std::iter::once(None).chain(Stage::ALL.iter().copied().map(Some)) {
            for operation in [None, Some(Operation::Read), Some(Operation::Write)] {
                for origin in [None, Some(Origin::Old), Some(Origin::New)] {
                    for error_type in
                        [None, Some(ErrorType::Timeout), Some(ErrorType::Other), Some(ErrorType::Named("E"))]
                    {
                        let a = Attributes {
                            flag_key: flag,
                            stage,
                            operation,
                            origin,
                            error_type,
                            ..Attributes::default()
                        };
                        assert_eq!(seen.insert(a.identity(), a), None, "{a:?}");
                    }
                    for path in ["/a", "_OTHER"] {
                        let a = Attributes {
                            flag_key: flag,
                            stage,
                            operation,
                            origin,
                            mismatch_path: Some(path),
                            ..Attributes::default()
                        };
                        assert_eq!(seen.insert(a.identity(), a), None, "{a:?}");
                    }
                    for state in ["closed", "probing", "tripped"] {
                        let a = Attributes { flag_key: flag, stage, operation, origin, ..Attributes::default() }
                            .with_guard_state(state);
                        assert_eq!(seen.insert(a.identity(), a), None, "{a:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn tables_json_is_the_serde_form_of_the_tables() {
    let parsed: serde_json::Value = serde_json::from_str(super::instrument::TABLES_JSON).unwrap();
    let expected =
        serde_json::to_value([Instrument::table(&Instrument::MIGRATION), Instrument::table(&Instrument::BIG_SEGMENTS)])
            .unwrap();
    assert_eq!(parsed, expected);
}
