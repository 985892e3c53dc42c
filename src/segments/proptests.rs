//! Property-based tests of the Big Segments core: Redis reply and metadata parsing (SPEC B6),
//! option validation (B1), the LRU + absolute-TTL membership cache and single flight (B3), and
//! hashing (B2). Every property also asserts that nothing panics on junk input: a panic in wasm
//! kills the instance.
//!
//! Each property compares the code with a small model written here from the SPEC.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use futures::FutureExt;
use proptest::prelude::*;
use sha2::{Digest, Sha256};

use super::cache::{MembershipCache, SingleFlight};
use super::config::{BigSegmentsConfig, BigSegmentsOptionValues, ConfigErrorKind, OptionValue};
use super::hash::{big_segment_ref, hash_context_key};
use super::host_data::HostData;
use super::lookup::BigSegmentsStatus;
use super::manager::BigSegmentStoreManager;
use super::redis::{parse_synchronized_on, RedisHost, RedisStore, Reply};
use super::schema_store::{membership_of, SchemaStore, StoreError};
use super::store::{BigSegmentStore, StoreMetadata};
use crate::testing::{TestHost, TestValue};

// ---------------------------------------------------------------------------------------------
// Redis replies and metadata (SPEC B6)

fn text_reply_string() -> BoxedStrategy<String> {
    prop_oneof![
        2 => any::<String>(),
        3 => "[ \t\r\n\u{a0}\u{85}\u{2003}\u{3000}\u{feff}+\\-0-9a.e_x]{0,24}",
        3 => (
            "[ \t\r\n\u{a0}\u{2003}]{0,3}",
            prop::sample::select(vec!["", "+", "-", "--", "+-"]),
            "0{0,3}",
            prop_oneof![any::<i64>().prop_map(|n| n.unsigned_abs()), any::<u64>(), 0u64..10_000],
            "[ \t\r\n\u{a0}\u{2003}]{0,3}",
        )
            .prop_map(|(lead, sign, zeros, n, trail)| format!("{lead}{sign}{zeros}{n}{trail}")),
        1 => prop::sample::select(vec![
            "9223372036854775807", "9223372036854775808", "-9223372036854775808",
            "-9223372036854775809", "1_000", "0x10", "1e3", "12.5", " 12 34 ", "١٢٣", "１２",
            "", " ", "\u{2028}", "+", "-", "-0", "+0", "00000000000000000000000000000001",
        ])
        .prop_map(String::from),
    ]
    .boxed()
}

fn arb_reply() -> BoxedStrategy<HostData> {
    let leaf = prop_oneof![
        Just(HostData::Absent),
        Just(HostData::Null),
        text_reply_string().prop_map(HostData::Text),
        "[a-z.]{1,6}".prop_map(HostData::Text),
        any::<i64>().prop_map(|n| HostData::Number(n as f64)),
        any::<f64>().prop_map(HostData::Number),
        any::<bool>().prop_map(HostData::Bool),
        any::<String>().prop_map(HostData::Other),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(HostData::List),
            prop::collection::vec(("[a-z]{0,3}", inner), 0..3).prop_map(HostData::Map),
        ]
    })
    .boxed()
}

/// SPEC B6 for a number reply: an integer in JavaScript's safe range.
fn model_number(n: f64) -> Result<Option<f64>, ()> {
    (n.fract() == 0.0 && n.abs() < 9.0e15).then_some(Some(n)).ok_or(())
}

/// A SMEMBERS reply: mostly well formed (nil or an array of strings), sometimes anything.
fn set_reply() -> BoxedStrategy<HostData> {
    let member = prop_oneof![8 => "[a-c]\\.g[0-2]".prop_map(HostData::Text), 1 => arb_reply()];
    prop_oneof![
        2 => Just(HostData::Absent),
        6 => prop::collection::vec(member, 0..5).prop_map(HostData::List),
        1 => arb_reply(),
    ]
    .boxed()
}

/// SPEC B6: surrounding whitespace allowed, then a decimal integer (optional sign) that fits in
/// an i64; blank → never synchronized.
fn model_synchronized_on(text: &str) -> Result<Option<f64>, ()> {
    let text = text.trim_matches(char::is_whitespace);
    if text.is_empty() {
        return Ok(None);
    }
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(());
    }
    let mut magnitude: i128 = 0;
    for d in digits.bytes() {
        magnitude = magnitude * 10 + i128::from(d - b'0');
        if magnitude > i128::from(i64::MAX) + 1 {
            return Err(());
        }
    }
    let value = if negative { -magnitude } else { magnitude };
    let value = i64::try_from(value).map_err(|_| ())?;
    Ok(Some(value as f64))
}

fn model_set(reply: &HostData) -> Result<Vec<String>, ()> {
    match reply {
        HostData::Absent | HostData::Null => Ok(Vec::new()),
        HostData::List(items) => items
            .iter()
            .map(|item| match item {
                HostData::Text(t) => Ok(t.clone()),
                _ => Err(()),
            })
            .collect(),
        _ => Err(()),
    }
}

/// SPEC B6: both empty → none; excluded refs false, included refs true, include wins; one
/// entry per ref, sorted by ref.
fn model_membership(included: &[String], excluded: &[String]) -> Option<Vec<(String, bool)>> {
    if included.is_empty() && excluded.is_empty() {
        return None;
    }
    let mut refs: Vec<String> = included.iter().chain(excluded).cloned().collect();
    refs.sort();
    refs.dedup();
    Some(refs.into_iter().map(|r| (r.clone(), included.contains(&r))).collect())
}

/// A Redis host that answers from a script and records what it was asked.
struct ScriptedRedis {
    /// Replies handed out in order: one per `command`, or all of them for a `pipeline`.
    replies: Vec<HostData>,
    pipelines: bool,
    fail: Option<String>,
    commands: RefCell<Vec<Vec<String>>>,
    pipelined: RefCell<Vec<Vec<Vec<String>>>>,
}

impl RedisHost for ScriptedRedis {
    type Error = TestValue;
    fn command(&self, args: Vec<String>) -> Reply<TestValue> {
        let index = self.commands.borrow().len();
        self.commands.borrow_mut().push(args);
        let reply = match &self.fail {
            Some(e) => Err(TestValue::Text(e.clone())),
            None => Ok(self.replies.get(index).cloned().unwrap_or(HostData::Absent)),
        };
        async move { reply }.boxed_local()
    }
    fn pipeline(&self, commands: Vec<Vec<String>>) -> Option<Reply<TestValue>> {
        if !self.pipelines {
            return None;
        }
        self.pipelined.borrow_mut().push(commands);
        let replies = match &self.fail {
            Some(e) => Err(TestValue::Text(e.clone())),
            None => Ok(HostData::List(self.replies.clone())),
        };
        Some(async move { replies }.boxed_local())
    }
}

fn scripted(replies: Vec<HostData>, pipelines: bool, fail: Option<String>) -> ScriptedRedis {
    ScriptedRedis { replies, pipelines, fail, commands: RefCell::default(), pipelined: RefCell::default() }
}

fn prefix() -> impl Strategy<Value = Option<String>> {
    prop_oneof![Just(None), Just(Some(String::new())), Just(Some("custom".to_string())), any::<String>().prop_map(Some)]
}

fn effective_prefix(prefix: &Option<String>) -> &str {
    match prefix.as_deref() {
        None | Some("") => "launchdarkly",
        Some(p) => p,
    }
}

/// Runs `ops` on the cache and on [`CacheModel`] side by side.
fn check_cache_against_model(capacity: usize, ttl: f64, start: f64, ops: &[CacheOp]) -> Result<(), TestCaseError> {
    let mut cache = MembershipCache::new(capacity, ttl);
    let mut model = CacheModel { capacity, ttl, entries: Vec::new() };
    let mut now = start;
    for op in ops {
        match op {
            CacheOp::Insert(k, v) => {
                cache.insert(format!("k{k}"), *v, now);
                model.insert(format!("k{k}"), *v, now);
            }
            CacheOp::Get(k) => {
                let key = format!("k{k}");
                prop_assert_eq!(cache.get(&key, now).copied(), model.get(&key, now), "get {} at {}", key, now);
            }
            CacheOp::Advance(ms) => now += ms,
            CacheOp::Clear => {
                cache.clear();
                model.entries.clear();
            }
        }
        prop_assert_eq!(cache.len(), model.entries.len());
        prop_assert!(cache.len() <= capacity);
        prop_assert_eq!(cache.is_empty(), model.entries.is_empty());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn synchronized_on_parses_any_reply_like_the_model(reply in arb_reply()) {
        let got = parse_synchronized_on(&reply);
        match &reply {
            HostData::Absent | HostData::Null => prop_assert_eq!(got, Ok(None)),
            HostData::Number(n) => prop_assert_eq!(got.map_err(|_| ()), model_number(*n)),
            HostData::Text(t) => match model_synchronized_on(t) {
                Ok(want) => prop_assert_eq!(got, Ok(want), "{:?}", t),
                Err(()) => prop_assert!(matches!(&got, Err(m) if m.contains("not a number")), "{:?} → {:?}", t, got),
            },
            _ => prop_assert!(got.is_err()),
        }
    }

    #[test]
    fn synchronized_on_accepts_exactly_trimmed_decimal_i64(text in text_reply_string()) {
        let got = parse_synchronized_on(&HostData::Text(text.clone()));
        match model_synchronized_on(&text) {
            Ok(want) => prop_assert_eq!(got, Ok(want), "{:?}", text),
            Err(()) => prop_assert!(got.is_err(), "{:?} → {:?}", text, got),
        }
    }

    #[test]
    fn membership_of_matches_the_model(
        included in prop::collection::vec("[a-d]\\.g[0-2]", 0..6),
        excluded in prop::collection::vec("[a-d]\\.g[0-2]", 0..6),
    ) {
        prop_assert_eq!(membership_of(included.clone(), excluded.clone()), model_membership(&included, &excluded));
    }

    /// `metadata()` sends one GET of `P:big_segments_synchronized_on` and parses the reply.
    #[test]
    fn metadata_query_matches_the_model(reply in arb_reply(), prefix in prefix(), fail in prop::option::weighted(0.1, "[a-z]{1,5}")) {
        let store = RedisStore::new(scripted(vec![reply.clone()], true, fail.clone()), prefix.as_deref());
        let got = block_on(store.metadata());
        let key = format!("{}:big_segments_synchronized_on", effective_prefix(&prefix));
        prop_assert_eq!(store.host().commands.borrow().clone(), vec![vec!["GET".to_string(), key]]);
        if let Some(e) = fail {
            prop_assert_eq!(got, Err(StoreError::Host(TestValue::Text(e))));
        } else {
            let want = match &reply {
                HostData::Absent | HostData::Null => Ok(None),
                HostData::Number(n) => model_number(*n),
                HostData::Text(t) => model_synchronized_on(t),
                _ => Err(()),
            };
            match want {
                Ok(last) => prop_assert_eq!(got, Ok(StoreMetadata { last_up_to_date: last })),
                Err(()) => prop_assert!(matches!(got, Err(StoreError::Malformed(_))), "{:?}", got),
            }
        }
    }

    /// `membership()` over arbitrary replies: one pipeline (or two commands) with the schema's
    /// keys, then exactly the model's answer or a schema error — never a panic.
    #[test]
    fn membership_query_matches_the_model(
        replies in prop::collection::vec(set_reply(), 0..4),
        pipelines in any::<bool>(),
        prefix in prefix(),
        hash in "[A-Za-z0-9+/]{0,6}=?",
        fail in prop::option::weighted(0.1, "[a-z]{1,5}"),
    ) {
        let store = RedisStore::new(scripted(replies.clone(), pipelines, fail.clone()), prefix.as_deref());
        let got = block_on(store.membership(&hash));
        let p = effective_prefix(&prefix);
        let expected_commands = vec![
            vec!["SMEMBERS".to_string(), format!("{p}:big_segment_include:{hash}")],
            vec!["SMEMBERS".to_string(), format!("{p}:big_segment_exclude:{hash}")],
        ];
        if pipelines {
            prop_assert_eq!(store.host().pipelined.borrow().clone(), vec![expected_commands]);
            prop_assert!(store.host().commands.borrow().is_empty());
        } else {
            prop_assert_eq!(store.host().commands.borrow().clone(), expected_commands);
        }
        if let Some(e) = fail {
            prop_assert_eq!(got, Err(StoreError::Host(TestValue::Text(e))));
            return Ok(());
        }
        // Without a pipeline each command gets its own reply (nil when the script ran out).
        let nil = HostData::Absent;
        let (inc, exc) = if pipelines {
            (replies.first(), replies.get(1))
        } else {
            (Some(replies.first().unwrap_or(&nil)), Some(replies.get(1).unwrap_or(&nil)))
        };
        let want = match (inc, exc) {
            (Some(inc), Some(exc)) => match (model_set(inc), model_set(exc)) {
                (Ok(included), Ok(excluded)) => Ok(model_membership(&included, &excluded)),
                _ => Err(()),
            },
            _ => Err(()),
        };
        match want {
            Ok(m) => prop_assert_eq!(got, Ok(m)),
            Err(()) => prop_assert!(matches!(got, Err(StoreError::Malformed(_))), "{:?}", got),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Options (SPEC B1)

fn option_number() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => prop::sample::select(vec![
            0.0, -0.0, 1.0, 1.5, 0.5, -1.0, 1000.0, 5e-324, f64::MIN_POSITIVE, 1e300, f64::MAX,
            f64::MIN, 18_446_744_073_709_551_616.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY,
        ]),
        2 => any::<f64>(),
        2 => (0u32..5000).prop_map(f64::from),
        2 => -10.0f64..10.0,
    ]
}

fn option_value() -> impl Strategy<Value = OptionValue> {
    prop_oneof![
        2 => Just(OptionValue::Absent),
        1 => Just(OptionValue::Other("string")),
        5 => option_number().prop_map(OptionValue::Number),
    ]
}

const OPTION_NAMES: [&str; 5] =
    ["contextCacheSize", "contextCacheTimeMs", "statusPollIntervalMs", "staleAfterMs", "queryTimeoutMs"];

/// SPEC B1 and the manager docs: a positive integer size (saturating into usize); a finite
/// cache time ≥ 0; finite, positive other durations; absent → default; not a number → a type
/// error. The first bad option, in API order, is reported.
fn model_options(values: [OptionValue; 5]) -> Result<BigSegmentsConfig, (&'static str, ConfigErrorKind, String)> {
    let defaults = [1000.0, 5000.0, 5000.0, 120_000.0, 10_000.0];
    let mut out = [0.0; 5];
    for (i, value) in values.into_iter().enumerate() {
        let name = OPTION_NAMES[i];
        let n = match value {
            OptionValue::Absent => defaults[i],
            OptionValue::Other(got) => {
                return Err((
                    name,
                    ConfigErrorKind::Type,
                    format!("BigSegmentStoreManager: {name} must be a number, got {got}"),
                ))
            }
            OptionValue::Number(n) => n,
        };
        let (ok, requirement) = match i {
            0 => (n.is_finite() && n >= 1.0 && n.floor() == n, "a positive integer"),
            1 => (n.is_finite() && n >= 0.0, "a non-negative finite number"),
            _ => (n.is_finite() && n > 0.0, "a positive finite number"),
        };
        if !ok {
            let got = crate::util::text::number(n);
            return Err((
                name,
                ConfigErrorKind::Range,
                format!("BigSegmentStoreManager: {name} must be {requirement}, got {got}"),
            ));
        }
        out[i] = n;
    }
    let size = if out[0] >= usize::MAX as f64 { usize::MAX } else { out[0] as usize };
    Ok(BigSegmentsConfig {
        context_cache_size: size,
        context_cache_time_ms: out[1],
        status_poll_interval_ms: out[2],
        stale_after_ms: out[3],
        query_timeout_ms: out[4],
    })
}

/// A store type for managers built without a store.
struct NoStore;

impl BigSegmentStore for NoStore {
    type Membership = ();
    type Error = TestValue;
    fn get_metadata(&self) -> LocalBoxFuture<'static, Result<Option<StoreMetadata>, TestValue>> {
        async { Ok(None) }.boxed_local()
    }
    fn get_membership(&self, _: &str) -> LocalBoxFuture<'static, Result<Option<()>, TestValue>> {
        async { Ok(None) }.boxed_local()
    }
    fn empty_membership(&self) {}
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn from_options_accepts_exactly_what_the_model_accepts(values in [option_value(), option_value(), option_value(), option_value(), option_value()]) {
        let options = BigSegmentsOptionValues {
            context_cache_size: values[0],
            context_cache_time_ms: values[1],
            status_poll_interval_ms: values[2],
            stale_after_ms: values[3],
            query_timeout_ms: values[4],
        };
        let got = BigSegmentsConfig::from_options(&options);
        match (model_options(values), got) {
            (Ok(want), Ok(config)) => {
                prop_assert_eq!(config, want);
                prop_assert_eq!(config.validate(), Ok(()));
                let th = TestHost::new(1);
                let manager = BigSegmentStoreManager::<NoStore>::new(None, config, th.host.clone());
                prop_assert!(manager.is_ok());
                let lookup = block_on(manager.unwrap().get_user_membership("k")).unwrap();
                prop_assert_eq!(lookup.status, BigSegmentsStatus::NotConfigured);
            }
            (Err((option, kind, message)), Err(e)) => {
                prop_assert_eq!((e.option, e.kind, e.message.clone()), (option, kind, message.clone()));
                prop_assert_eq!(e.to_string(), message);
            }
            (want, got) => return Err(TestCaseError::fail(format!("model {want:?}, code {got:?}"))),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Membership cache (SPEC B3): LRU with an absolute TTL

#[derive(Clone, Debug)]
enum CacheOp {
    Insert(u8, u32),
    Get(u8),
    Advance(f64),
    Clear,
}

fn cache_op() -> impl Strategy<Value = CacheOp> {
    cache_op_over(10)
}

/// Cache operations over `keys` keys.
fn cache_op_over(keys: u8) -> impl Strategy<Value = CacheOp> {
    prop_oneof![
        4 => (0u8..keys, any::<u32>()).prop_map(|(k, v)| CacheOp::Insert(k, v)),
        5 => (0u8..keys).prop_map(CacheOp::Get),
        3 => prop_oneof![3 => (0u32..20).prop_map(f64::from), 1 => Just(0.0), 1 => 0.0f64..5.0].prop_map(CacheOp::Advance),
        1 => Just(CacheOp::Clear),
    ]
}

/// The cache as the module documents it, over a Vec in recency order (least recent first):
/// a hit while `now - inserted < ttl`, an expired entry is dropped on read, a read makes the
/// entry most recent without extending its life, an insert restarts the TTL and evicts the
/// least recent entries while full, and a capacity or TTL of 0 caches nothing.
struct CacheModel {
    capacity: usize,
    ttl: f64,
    entries: Vec<(String, u32, f64)>,
}

impl CacheModel {
    fn get(&mut self, key: &str, now: f64) -> Option<u32> {
        let i = self.entries.iter().position(|(k, _, _)| k == key)?;
        let entry = self.entries.remove(i);
        if now - entry.2 < self.ttl {
            let value = entry.1;
            self.entries.push(entry);
            Some(value)
        } else {
            None
        }
    }
    fn insert(&mut self, key: String, value: u32, now: f64) {
        if self.capacity == 0 || self.ttl.is_nan() || self.ttl <= 0.0 {
            return;
        }
        self.entries.retain(|(k, _, _)| *k != key);
        while self.entries.len() >= self.capacity {
            self.entries.remove(0);
        }
        self.entries.push((key, value, now));
    }
}

#[derive(Clone, Debug)]
enum FlightOp {
    Begin(u8),
    Join(u8),
    Finish(u8, u64),
    FinishCurrent(u8),
    TakeAll,
}

fn flight_op() -> impl Strategy<Value = FlightOp> {
    prop_oneof![
        3 => (0u8..4).prop_map(FlightOp::Begin),
        3 => (0u8..4).prop_map(FlightOp::Join),
        2 => (0u8..4, 0u64..8).prop_map(|(k, id)| FlightOp::Finish(k, id)),
        2 => (0u8..4).prop_map(FlightOp::FinishCurrent),
        1 => Just(FlightOp::TakeAll),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn cache_matches_the_lru_absolute_ttl_model(
        capacity in 0usize..=8,
        ttl in prop_oneof![4 => (0u32..=50).prop_map(f64::from), 1 => 0.0f64..50.0],
        start in prop_oneof![Just(0.0), 0.0f64..1e12],
        ops in prop::collection::vec(cache_op(), 0..100),
    ) {
        check_cache_against_model(capacity, ttl, start, &ops)?;
    }

    /// Wider: the index grows, and removals in the middle of its runs move entries back.
    #[test]
    fn cache_matches_the_model_over_many_keys(
        capacity in 1usize..=120,
        ttl in prop_oneof![4 => Just(1e9), 1 => (1u32..=200).prop_map(f64::from)],
        ops in prop::collection::vec(cache_op_over(200), 0..600),
    ) {
        check_cache_against_model(capacity, ttl, 0.0, &ops)?;
    }
    #[test]
    fn cache_never_panics_on_junk_times_and_ttls(
        capacity in 0usize..=4,
        ttl in prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY), Just(-1.0), Just(-0.0), any::<f64>()],
        ops in prop::collection::vec((any::<bool>(), 0u8..4, prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY), any::<f64>()]), 0..40),
    ) {
        let mut cache = MembershipCache::new(capacity, ttl);
        for (insert, k, now) in ops {
            if insert {
                cache.insert(format!("k{k}"), k, now);
            } else if let Some(v) = cache.get(&format!("k{k}"), now) {
                prop_assert_eq!(*v, k);
            }
            prop_assert!(cache.len() <= capacity);
            if ttl.is_nan() || ttl <= 0.0 {
                prop_assert!(cache.is_empty());
            }
        }
    }

    #[test]
    fn single_flight_matches_a_map_of_ids(ops in prop::collection::vec(flight_op(), 0..40)) {
        let mut flights: SingleFlight<u64> = SingleFlight::default();
        let mut model: HashMap<String, u64> = HashMap::new();
        let mut next_id = 0u64;
        for op in &ops {
            match op {
                FlightOp::Begin(k) => {
                    next_id += 1;
                    let seen = Rc::new(std::cell::Cell::new(0));
                    let s = seen.clone();
                    let query = flights.begin(format!("k{k}"), move |id| {
                        s.set(id);
                        async move { id }.boxed_local()
                    });
                    prop_assert_eq!(seen.get(), next_id);
                    prop_assert_eq!(block_on(query), next_id);
                    model.insert(format!("k{k}"), next_id);
                }
                FlightOp::Join(k) => {
                    let joined = flights.join(&format!("k{k}")).map(block_on);
                    prop_assert_eq!(joined, model.get(&format!("k{k}")).copied());
                }
                FlightOp::Finish(k, id) => {
                    let key = format!("k{k}");
                    let finished = flights.finish(&key, *id).map(block_on);
                    let want = (model.get(&key) == Some(id)).then_some(*id);
                    if want.is_some() {
                        model.remove(&key);
                    }
                    prop_assert_eq!(finished, want);
                }
                FlightOp::FinishCurrent(k) => {
                    let key = format!("k{k}");
                    let current = model.remove(&key);
                    let finished = current.and_then(|id| flights.finish(&key, id)).map(block_on);
                    prop_assert_eq!(finished, current);
                }
                FlightOp::TakeAll => {
                    let mut taken: Vec<u64> = flights.take_all().into_iter().map(block_on).collect();
                    let mut want: Vec<u64> = model.drain().map(|(_, id)| id).collect();
                    taken.sort_unstable();
                    want.sort_unstable();
                    prop_assert_eq!(taken, want);
                }
            }
            prop_assert_eq!(flights.len(), model.len());
            prop_assert_eq!(flights.is_empty(), model.is_empty());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Hashing (SPEC B2)

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn context_hash_is_padded_standard_base64_of_sha256(key in any::<String>()) {
        let hash = hash_context_key(&key);
        prop_assert_eq!(hash.len(), 44);
        prop_assert!(hash.ends_with('=') && !hash.ends_with("=="));
        prop_assert!(hash[..43].chars().all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/'));
        let digest = STANDARD.decode(&hash).unwrap();
        prop_assert_eq!(digest, Sha256::digest(key.as_bytes()).to_vec());
    }

    #[test]
    fn segment_ref_is_key_dot_g_generation(key in any::<String>(), generation in any::<u64>()) {
        let r = big_segment_ref(&key, generation);
        let (k, g) = r.rsplit_once(".g").unwrap();
        prop_assert_eq!(k, key.as_str());
        prop_assert_eq!(g.parse::<u64>().unwrap(), generation);
    }
}
