//! The instruments: names, kinds, units, descriptions and histogram bucket advice. Their serde
//! form is the table a host creates its instruments from (`name`, `kind`, `unit`,
//! `description`, `advice`).

use serde::Serialize;

/// What a host makes of an instrument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum InstrumentKind {
    Counter,
    Histogram,
    ObservableGauge,
}

/// Every measurement the core records, in table order (the index is the instrument's slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Instrument {
    MigrationOperations,
    OriginDuration,
    OriginErrors,
    OriginTimeouts,
    ConsistencyChecks,
    ConsistencyMismatches,
    MigrationShed,
    GuardChanges,
    GuardState,
    BigSegmentsLookups,
    BigSegmentsCacheHits,
    BigSegmentsStoreQueries,
    BigSegmentsStoreDuration,
    BigSegmentsStatus,
}

/// Seconds: 0.5 ms … 10 s, roughly ×2–2.5 per bucket (origin calls and store queries).
pub const DURATION_BUCKETS_S: [f64; 14] =
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// The status gauge's values: the store's data can be used and is fresh; is stale; cannot be
/// read (the last metadata query failed or timed out).
pub const STATUS_AVAILABLE: f64 = 0.0;
pub const STATUS_STALE: f64 = 1.0;
pub const STATUS_UNAVAILABLE: f64 = 2.0;

/// One row of the table hosts create instruments from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InstrumentSpec {
    pub name: &'static str,
    pub kind: InstrumentKind,
    pub unit: &'static str,
    pub description: &'static str,
    /// Explicit bucket boundaries, for histograms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<Advice>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Advice {
    pub explicit_bucket_boundaries: &'static [f64],
}

impl Instrument {
    pub const MIGRATION: [Instrument; 9] = [
        Instrument::MigrationOperations,
        Instrument::OriginDuration,
        Instrument::OriginErrors,
        Instrument::OriginTimeouts,
        Instrument::ConsistencyChecks,
        Instrument::ConsistencyMismatches,
        Instrument::MigrationShed,
        Instrument::GuardChanges,
        Instrument::GuardState,
    ];
    pub const BIG_SEGMENTS: [Instrument; 5] = [
        Instrument::BigSegmentsLookups,
        Instrument::BigSegmentsCacheHits,
        Instrument::BigSegmentsStoreQueries,
        Instrument::BigSegmentsStoreDuration,
        Instrument::BigSegmentsStatus,
    ];

    /// The instrument's slot within its group's table.
    pub fn slot(self) -> usize {
        match self {
            Instrument::MigrationOperations | Instrument::BigSegmentsLookups => 0,
            Instrument::OriginDuration | Instrument::BigSegmentsCacheHits => 1,
            Instrument::OriginErrors | Instrument::BigSegmentsStoreQueries => 2,
            Instrument::OriginTimeouts | Instrument::BigSegmentsStoreDuration => 3,
            Instrument::ConsistencyChecks | Instrument::BigSegmentsStatus => 4,
            Instrument::ConsistencyMismatches => 5,
            Instrument::MigrationShed => 6,
            Instrument::GuardChanges => 7,
            Instrument::GuardState => 8,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Instrument::MigrationOperations => "cutover.migration.operations",
            Instrument::OriginDuration => "cutover.migration.origin.duration",
            Instrument::OriginErrors => "cutover.migration.origin.errors",
            Instrument::OriginTimeouts => "cutover.migration.origin.timeouts",
            Instrument::ConsistencyChecks => "cutover.migration.consistency.checks",
            Instrument::ConsistencyMismatches => "cutover.migration.consistency.mismatches",
            Instrument::MigrationShed => "cutover.migration.shed",
            Instrument::GuardChanges => "cutover.migration.guard.changes",
            Instrument::GuardState => "cutover.migration.guard.state",
            Instrument::BigSegmentsLookups => "cutover.big_segments.lookups",
            Instrument::BigSegmentsCacheHits => "cutover.big_segments.cache_hits",
            Instrument::BigSegmentsStoreQueries => "cutover.big_segments.store_queries",
            Instrument::BigSegmentsStoreDuration => "cutover.big_segments.store.duration",
            Instrument::BigSegmentsStatus => "cutover.big_segments.status",
        }
    }

    pub fn kind(self) -> InstrumentKind {
        match self {
            Instrument::OriginDuration | Instrument::BigSegmentsStoreDuration => InstrumentKind::Histogram,
            Instrument::BigSegmentsStatus | Instrument::GuardState => InstrumentKind::ObservableGauge,
            _ => InstrumentKind::Counter,
        }
    }

    pub fn spec(self) -> InstrumentSpec {
        let (unit, description) = match self {
            Instrument::MigrationOperations => ("{operation}", "Migration reads and writes completed"),
            Instrument::OriginDuration => ("s", "Duration of each origin call"),
            Instrument::OriginErrors => ("{error}", "Origin calls that failed, timeouts included"),
            Instrument::OriginTimeouts => ("{timeout}", "Origin calls that timed out"),
            Instrument::ConsistencyChecks => ("{check}", "Consistency checks of shadow reads"),
            Instrument::ConsistencyMismatches => {
                ("{mismatch}", "Consistency checks that found the two reads different")
            }
            Instrument::MigrationShed => (
                "{operation}",
                "Operations that ran their authoritative origin only: maxInFlight background parts were running",
            ),
            Instrument::GuardChanges => ("{change}", "Changes of a migration guard's state"),
            Instrument::GuardState => ("1", "Migration guard state: 0 closed, 1 probing, 2 tripped"),
            Instrument::BigSegmentsLookups => ("{lookup}", "Big Segment membership lookups"),
            Instrument::BigSegmentsCacheHits => ("{lookup}", "Lookups answered from the cache"),
            Instrument::BigSegmentsStoreQueries => ("{query}", "Membership queries sent to the store"),
            Instrument::BigSegmentsStoreDuration => ("s", "Duration of each membership query"),
            Instrument::BigSegmentsStatus => ("1", "Big Segment store status: 0 available, 1 stale, 2 unavailable"),
        };
        let kind = self.kind();
        let advice =
            (kind == InstrumentKind::Histogram).then_some(Advice { explicit_bucket_boundaries: &DURATION_BUCKETS_S });
        InstrumentSpec { name: self.name(), kind, unit, description, advice }
    }

    /// The table of `group`, in slot order.
    pub fn table(group: &[Instrument]) -> Vec<InstrumentSpec> {
        group.iter().map(|i| i.spec()).collect()
    }
}

/// The two tables (migrations, then Big Segments) as the JSON hosts parse: the serde form of
/// [`Instrument::table`], written out so that the wasm carries text instead of a serializer
/// (serde-wasm-bindgen for these rows cost 3.6 KB of wasm; a native test keeps the two equal).
pub const TABLES_JSON: &str = concat!(
    r#"[[{"name":"cutover.migration.operations","kind":"Counter","unit":"{operation}","description":"Migration reads and writes completed"},"#,
    r#"{"name":"cutover.migration.origin.duration","kind":"Histogram","unit":"s","description":"Duration of each origin call","advice":{"explicitBucketBoundaries":[0.0005,0.001,0.0025,0.005,0.01,0.025,0.05,0.1,0.25,0.5,1.0,2.5,5.0,10.0]}},"#,
    r#"{"name":"cutover.migration.origin.errors","kind":"Counter","unit":"{error}","description":"Origin calls that failed, timeouts included"},"#,
    r#"{"name":"cutover.migration.origin.timeouts","kind":"Counter","unit":"{timeout}","description":"Origin calls that timed out"},"#,
    r#"{"name":"cutover.migration.consistency.checks","kind":"Counter","unit":"{check}","description":"Consistency checks of shadow reads"},"#,
    r#"{"name":"cutover.migration.consistency.mismatches","kind":"Counter","unit":"{mismatch}","description":"Consistency checks that found the two reads different"},"#,
    r#"{"name":"cutover.migration.shed","kind":"Counter","unit":"{operation}","description":"Operations that ran their authoritative origin only: maxInFlight background parts were running"},"#,
    r#"{"name":"cutover.migration.guard.changes","kind":"Counter","unit":"{change}","description":"Changes of a migration guard's state"},"#,
    r#"{"name":"cutover.migration.guard.state","kind":"ObservableGauge","unit":"1","description":"Migration guard state: 0 closed, 1 probing, 2 tripped"}],"#,
    r#"[{"name":"cutover.big_segments.lookups","kind":"Counter","unit":"{lookup}","description":"Big Segment membership lookups"},"#,
    r#"{"name":"cutover.big_segments.cache_hits","kind":"Counter","unit":"{lookup}","description":"Lookups answered from the cache"},"#,
    r#"{"name":"cutover.big_segments.store_queries","kind":"Counter","unit":"{query}","description":"Membership queries sent to the store"},"#,
    r#"{"name":"cutover.big_segments.store.duration","kind":"Histogram","unit":"s","description":"Duration of each membership query","advice":{"explicitBucketBoundaries":[0.0005,0.001,0.0025,0.005,0.01,0.025,0.05,0.1,0.25,0.5,1.0,2.5,5.0,10.0]}},"#,
    r#"{"name":"cutover.big_segments.status","kind":"ObservableGauge","unit":"1","description":"Big Segment store status: 0 available, 1 stale, 2 unavailable"}]]"#,
);
