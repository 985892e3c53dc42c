//! Native tests of the manager: configuration, lookups, single flight, timeouts, status
//! polling, close and re-entrancy, on a fake clock.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use futures::future::{self, LocalBoxFuture};
use futures::FutureExt;

use super::*;
use crate::host::{HostValue, Level, Sleep};
use crate::segments::{hash_context_key, StoreMetadata};
use crate::testing::TestHost;

const OK: BigSegmentStoreStatus = BigSegmentStoreStatus { available: true, stale: false };
const STALE: BigSegmentStoreStatus = BigSegmentStoreStatus { available: true, stale: true };
const DOWN: BigSegmentStoreStatus = BigSegmentStoreStatus::UNAVAILABLE;

#[derive(Clone, Debug, PartialEq)]
struct TestError(String);

impl HostValue for TestError {
    fn describe(&self) -> String {
        self.0.clone()
    }
}

type Members = BTreeMap<String, bool>;
type Hook = Rc<dyn Fn()>;

/// Decrements a gauge when the store call's future finishes or is dropped.
struct InFlight(Rc<Cell<usize>>);
impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

#[derive(Default)]
struct FakeState {
    memberships: RefCell<HashMap<String, Members>>,
    membership_error: RefCell<Option<String>>,
    /// `None`: answers at once; `Some(f64::INFINITY)`: never answers.
    membership_delay: Cell<Option<f64>>,
    metadata: RefCell<Option<StoreMetadata>>,
    metadata_error: RefCell<Option<String>>,
    metadata_delay: Cell<Option<f64>>,
    close_delay: Cell<Option<f64>>,
    membership_calls: RefCell<Vec<String>>,
    metadata_calls: Cell<usize>,
    metadata_in_flight: Rc<Cell<usize>>,
    metadata_max_in_flight: Cell<usize>,
    close_calls: Cell<usize>,
    on_membership: RefCell<Option<Hook>>,
    on_metadata: RefCell<Option<Hook>>,
}

/// A store that counts calls and can be told to fail, hang, be slow or return given data.
#[derive(Clone)]
struct FakeStore {
    s: Rc<FakeState>,
    sleep: Rc<dyn Sleep>,
}

impl FakeStore {
    fn new(th: &TestHost) -> Self {
        let store = FakeStore { s: Rc::default(), sleep: th.host.sleep.clone() };
        store.synced_at(th.host.clock.epoch_ms());
        store
    }
    fn synced_at(&self, epoch_ms: f64) {
        *self.s.metadata.borrow_mut() = Some(StoreMetadata { last_up_to_date: Some(epoch_ms) });
    }
    fn set_member(&self, context_key: &str, segment_ref: &str, included: bool) {
        self.s
            .memberships
            .borrow_mut()
            .entry(hash_context_key(context_key))
            .or_default()
            .insert(segment_ref.to_string(), included);
    }
    fn fail_membership(&self, error: Option<&str>) {
        *self.s.membership_error.borrow_mut() = error.map(str::to_string);
    }
    fn fail_metadata(&self, error: Option<&str>) {
        *self.s.metadata_error.borrow_mut() = error.map(str::to_string);
    }
    fn membership_calls(&self) -> usize {
        self.s.membership_calls.borrow().len()
    }
    fn metadata_calls(&self) -> usize {
        self.s.metadata_calls.get()
    }
    fn delayed<T: 'static>(&self, delay: Option<f64>, value: T) -> LocalBoxFuture<'static, T> {
        match delay {
            None => future::ready(value).boxed_local(),
            Some(ms) if ms.is_infinite() => future::pending().boxed_local(),
            Some(ms) => self.sleep.sleep(ms).map(move |_| value).boxed_local(),
        }
    }
}

impl BigSegmentStore for FakeStore {
    type Membership = Members;
    type Error = TestError;

    fn get_metadata(&self) -> LocalBoxFuture<'static, Result<Option<StoreMetadata>, TestError>> {
        self.s.metadata_calls.set(self.s.metadata_calls.get() + 1);
        let gauge = self.s.metadata_in_flight.clone();
        gauge.set(gauge.get() + 1);
        self.s.metadata_max_in_flight.set(self.s.metadata_max_in_flight.get().max(gauge.get()));
        let guard = InFlight(gauge);
        let hook = self.s.on_metadata.borrow().clone();
        if let Some(hook) = hook {
            hook();
        }
        let answer = match self.s.metadata_error.borrow().clone() {
            Some(e) => Err(TestError(e)),
            None => Ok(*self.s.metadata.borrow()),
        };
        self.delayed(self.s.metadata_delay.get(), answer)
            .map(move |answer| {
                drop(guard);
                answer
            })
            .boxed_local()
    }

    fn get_membership(&self, context_hash: &str) -> LocalBoxFuture<'static, Result<Option<Members>, TestError>> {
        self.s.membership_calls.borrow_mut().push(context_hash.to_string());
        let hook = self.s.on_membership.borrow().clone();
        if let Some(hook) = hook {
            hook();
        }
        let answer = match self.s.membership_error.borrow().clone() {
            Some(e) => Err(TestError(e)),
            None => Ok(self.s.memberships.borrow().get(context_hash).cloned()),
        };
        self.delayed(self.s.membership_delay.get(), answer)
    }

    fn empty_membership(&self) -> Members {
        Members::new()
    }

    fn close(&self) -> LocalBoxFuture<'static, ()> {
        self.s.close_calls.set(self.s.close_calls.get() + 1);
        self.delayed(self.s.close_delay.get(), ())
    }
}

fn config() -> BigSegmentsConfig {
    BigSegmentsConfig { query_timeout_ms: 100.0, ..BigSegmentsConfig::default() }
}

fn setup(config: BigSegmentsConfig) -> (TestHost, FakeStore, BigSegmentStoreManager<FakeStore>) {
    let th = TestHost::new(7);
    let store = FakeStore::new(&th);
    let manager = BigSegmentStoreManager::new(Some(store.clone()), config, th.host.clone()).unwrap();
    (th, store, manager)
}

fn members(pairs: &[(&str, bool)]) -> Members {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// Runs a lookup to completion without letting time pass.
fn lookup_now(th: &TestHost, m: &BigSegmentStoreManager<FakeStore>, key: &str) -> Result<Lookup<Members>, Closed> {
    let slot = th.start(m.get_user_membership(key));
    th.settle();
    let result = slot.borrow_mut().take();
    result.expect("lookup did not finish without time passing")
}

fn ok_lookup(th: &TestHost, m: &BigSegmentStoreManager<FakeStore>, key: &str) -> Lookup<Members> {
    lookup_now(th, m, key).unwrap()
}

fn errors(th: &TestHost) -> Vec<String> {
    th.logger.messages(Level::Error)
}

// --- configuration ---------------------------------------------------------------------

#[test]
fn defaults_match_spec_b1() {
    let d = BigSegmentsConfig::default();
    assert_eq!(d.context_cache_size, 1000);
    assert_eq!(d.context_cache_time_ms, 5000.0);
    assert_eq!(d.status_poll_interval_ms, 5000.0);
    assert_eq!(d.stale_after_ms, 120_000.0);
    assert_eq!(d.query_timeout_ms, 10_000.0);
    assert_eq!(d.validate(), Ok(()));
    assert_eq!(BigSegmentsConfig::from_options(&BigSegmentsOptionValues::default()), Ok(d));
}

#[test]
fn validate_rejects_out_of_range_values_naming_the_option() {
    type Edit = fn(&mut BigSegmentsConfig);
    let cases: Vec<(Edit, &str)> = vec![
        (|c| c.context_cache_size = 0, "contextCacheSize must be a positive integer"),
        (|c| c.context_cache_time_ms = -1.0, "contextCacheTimeMs must be a non-negative finite number"),
        (|c| c.context_cache_time_ms = f64::NAN, "contextCacheTimeMs must be a non-negative finite number"),
        (|c| c.context_cache_time_ms = f64::INFINITY, "contextCacheTimeMs must be a non-negative finite number"),
        (|c| c.status_poll_interval_ms = 0.0, "statusPollIntervalMs must be a positive finite number"),
        (|c| c.status_poll_interval_ms = f64::NAN, "statusPollIntervalMs must be a positive finite number"),
        (|c| c.stale_after_ms = -5.0, "staleAfterMs must be a positive finite number"),
        (|c| c.stale_after_ms = f64::INFINITY, "staleAfterMs must be a positive finite number"),
        (|c| c.query_timeout_ms = 0.0, "queryTimeoutMs must be a positive finite number"),
        (|c| c.query_timeout_ms = f64::NEG_INFINITY, "queryTimeoutMs must be a positive finite number"),
    ];
    for (edit, message) in cases {
        let mut c = BigSegmentsConfig::default();
        edit(&mut c);
        let err = c.validate().unwrap_err();
        // The owner, the option, the requirement and the value it got.
        let got = crate::util::text::number(match err.option {
            "contextCacheSize" => c.context_cache_size as f64,
            "contextCacheTimeMs" => c.context_cache_time_ms,
            "statusPollIntervalMs" => c.status_poll_interval_ms,
            "staleAfterMs" => c.stale_after_ms,
            _ => c.query_timeout_ms,
        });
        let whole = format!("BigSegmentStoreManager: {message}, got {got}");
        assert_eq!(err.message, whole);
        assert_eq!(err.to_string(), whole);
        assert_eq!(err.kind, ConfigErrorKind::Range);
        assert!(message.starts_with(err.option));
    }
    let zero_ttl = BigSegmentsConfig { context_cache_time_ms: 0.0, ..BigSegmentsConfig::default() };
    assert_eq!(zero_ttl.validate(), Ok(()), "a TTL of 0 disables caching and is allowed");
    let th = TestHost::new(1);
    let bad = BigSegmentsConfig { context_cache_size: 0, ..BigSegmentsConfig::default() };
    assert!(BigSegmentStoreManager::<FakeStore>::new(None, bad, th.host.clone()).is_err());
}

#[test]
fn from_options_maps_absent_wrong_type_and_non_integer_sizes() {
    use OptionValue::*;
    let opts = |f: fn(&mut BigSegmentsOptionValues)| {
        let mut o = BigSegmentsOptionValues::default();
        f(&mut o);
        BigSegmentsConfig::from_options(&o)
    };
    let ok = opts(|o| {
        o.context_cache_size = Number(10.0);
        o.query_timeout_ms = Number(250.5);
    })
    .unwrap();
    assert_eq!(ok.context_cache_size, 10);
    assert_eq!(ok.query_timeout_ms, 250.5);
    assert_eq!(ok.stale_after_ms, 120_000.0, "absent keeps the default");

    let err = opts(|o| o.context_cache_size = Other("string")).unwrap_err();
    assert_eq!(
        (err.kind, err.message.as_str()),
        (ConfigErrorKind::Type, "BigSegmentStoreManager: contextCacheSize must be a number, got string")
    );
    let err = opts(|o| o.stale_after_ms = Other("null")).unwrap_err();
    assert_eq!((err.kind, err.option), (ConfigErrorKind::Type, "staleAfterMs"));
    for bad in [1.5, 0.0, -3.0, f64::NAN, f64::INFINITY] {
        let o = BigSegmentsOptionValues { context_cache_size: Number(bad), ..Default::default() };
        let err = BigSegmentsConfig::from_options(&o).unwrap_err();
        let got = crate::util::text::number(bad);
        assert_eq!(
            (err.kind, err.message),
            (
                ConfigErrorKind::Range,
                format!("BigSegmentStoreManager: contextCacheSize must be a positive integer, got {got}")
            )
        );
    }
    let err = opts(|o| o.status_poll_interval_ms = Number(-1.0)).unwrap_err();
    assert_eq!(err.message, "BigSegmentStoreManager: statusPollIntervalMs must be a positive finite number, got -1");
    // the first invalid option in API order is reported
    let err = opts(|o| {
        o.query_timeout_ms = Other("boolean");
        o.context_cache_time_ms = Number(f64::NAN);
    })
    .unwrap_err();
    assert_eq!(err.option, "contextCacheTimeMs");
}

#[test]
fn lookup_status_strings() {
    assert_eq!(BigSegmentsStatus::Healthy.as_str(), "HEALTHY");
    assert_eq!(BigSegmentsStatus::Stale.as_str(), "STALE");
    assert_eq!(BigSegmentsStatus::StoreError.as_str(), "STORE_ERROR");
    assert_eq!(BigSegmentsStatus::NotConfigured.to_string(), "NOT_CONFIGURED");
    assert_eq!(BigSegmentsStatus::from_store_status(OK), BigSegmentsStatus::Healthy);
    assert_eq!(BigSegmentsStatus::from_store_status(STALE), BigSegmentsStatus::Stale);
    let down_and_stale = BigSegmentStoreStatus { available: false, stale: true };
    assert_eq!(BigSegmentsStatus::from_store_status(down_and_stale), BigSegmentsStatus::StoreError);
}

// --- lookups ---------------------------------------------------------------------------

#[test]
fn no_store_is_not_configured_and_nothing_else_happens() {
    let th = TestHost::new(1);
    let m = BigSegmentStoreManager::<FakeStore>::new(None, config(), th.host.clone()).unwrap();
    let got = lookup_now(&th, &m, "u1").unwrap();
    assert_eq!(got, Lookup { membership: None, status: BigSegmentsStatus::NotConfigured });
    m.start();
    th.advance(60_000.0);
    assert!(!m.is_started());
    assert_eq!(th.clock.pending_timers(), 0);
    assert_eq!(m.last_status(), None, "no status was polled");
    assert_eq!(m.counters(), BigSegmentsCounters::default());
    assert!(th.logger.lines.borrow().is_empty());
}

#[test]
fn first_lookup_queries_by_hash_and_polls_status_inline() {
    let (th, store, m) = setup(config());
    store.set_member("u1", "seg.g1", true);
    assert_eq!(m.last_status(), None);
    let got = ok_lookup(&th, &m, "u1");
    assert_eq!(got, Lookup { membership: Some(members(&[("seg.g1", true)])), status: BigSegmentsStatus::Healthy });
    assert_eq!(*store.s.membership_calls.borrow(), vec![hash_context_key("u1")]);
    assert_eq!(store.metadata_calls(), 1, "status polled inline by the first lookup");
    assert_eq!(m.last_status(), Some(OK));
}

#[test]
fn cache_hit_skips_the_store() {
    let (th, store, m) = setup(config());
    store.set_member("u1", "seg.g1", false);
    let first = ok_lookup(&th, &m, "u1");
    let second = ok_lookup(&th, &m, "u1");
    assert_eq!(first, second);
    assert_eq!(store.membership_calls(), 1);
    let c = m.counters();
    assert_eq!((c.lookups, c.cache_hits, c.cache_misses, c.membership_queries), (2, 1, 1, 1));
}

#[test]
fn lookup_now_answers_only_what_needs_no_waiting() {
    let (th, store, m) = setup(config());
    store.set_member("u1", "seg.g1", true);
    assert_eq!(m.lookup_now("u1"), None, "cold cache and no status: the store must be asked");
    assert_eq!(m.counters().lookups, 0, "a refused fast path counts nothing");
    let first = ok_lookup(&th, &m, "u1");
    assert_eq!(m.lookup_now("u1"), Some(Ok(first.clone())));
    assert_eq!(m.lookup_now("other"), None, "a miss needs the store");
    let c = m.counters();
    assert_eq!((c.lookups, c.cache_hits, c.membership_queries), (2, 1, 1));
    th.advance(5000.0);
    assert_eq!(m.lookup_now("u1"), None, "without start() a stale status must be re-polled");
    th.run(m.close());
    assert_eq!(m.lookup_now("u1"), Some(Err(Closed)));
}

#[test]
fn no_data_is_cached_as_empty_membership() {
    let (th, store, m) = setup(config());
    let got = ok_lookup(&th, &m, "nobody");
    assert_eq!(got, Lookup { membership: Some(Members::new()), status: BigSegmentsStatus::Healthy });
    let again = ok_lookup(&th, &m, "nobody");
    assert_eq!(again.membership, Some(Members::new()));
    assert_eq!(store.membership_calls(), 1, "the empty membership was a cache hit");
}

#[test]
fn ttl_is_absolute_so_a_hot_key_is_refreshed_every_cache_time() {
    let (th, store, m) = setup(config()); // cache time 5000
    store.set_member("hot", "seg.g1", true);
    let mut calls_at = Vec::new();
    for step in 0..=12 {
        if step > 0 {
            th.advance(1000.0);
        }
        ok_lookup(&th, &m, "hot");
        calls_at.push(store.membership_calls());
    }
    // t = 0..12 s: queried at 0, 5000 and 10000 although read every second
    assert_eq!(calls_at, vec![1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3]);
}

#[test]
fn cache_entry_expires_exactly_at_cache_time() {
    let (th, store, m) = setup(config());
    ok_lookup(&th, &m, "u");
    th.advance(4999.0);
    ok_lookup(&th, &m, "u");
    assert_eq!(store.membership_calls(), 1);
    th.advance(1.0);
    ok_lookup(&th, &m, "u");
    assert_eq!(store.membership_calls(), 2);
}

#[test]
fn lru_eviction_keeps_the_recently_used_context() {
    let (th, store, m) = setup(BigSegmentsConfig { context_cache_size: 2, ..config() });
    for key in ["a", "b", "a", "c"] {
        ok_lookup(&th, &m, key);
    }
    assert_eq!(store.membership_calls(), 3, "a, b, c; the second a was a hit");
    assert_eq!(m.cached_contexts(), 2);
    ok_lookup(&th, &m, "a");
    assert_eq!(store.membership_calls(), 3, "a survived because it was used recently");
    ok_lookup(&th, &m, "b");
    assert_eq!(store.membership_calls(), 4, "b was evicted");
    assert_eq!(store.s.membership_calls.borrow().last(), Some(&hash_context_key("b")));
}

#[test]
fn concurrent_misses_for_one_context_share_one_store_query() {
    let (th, store, m) = setup(config());
    store.set_member("u1", "seg.g3", true);
    store.s.membership_delay.set(Some(50.0));
    let slots: Vec<_> = (0..20).map(|_| th.start(m.get_user_membership("u1"))).collect();
    th.settle();
    assert_eq!(store.membership_calls(), 1);
    assert!(slots.iter().all(|s| s.borrow().is_none()), "still waiting for the store");
    th.advance(50.0);
    for slot in &slots {
        let got = slot.borrow_mut().take().unwrap().unwrap();
        assert_eq!(got, Lookup { membership: Some(members(&[("seg.g3", true)])), status: BigSegmentsStatus::Healthy });
    }
    assert_eq!(store.membership_calls(), 1);
    assert_eq!(m.counters().coalesced_lookups, 19);
    ok_lookup(&th, &m, "u1");
    assert_eq!(store.membership_calls(), 1, "the shared answer was cached once");
    // a different context is its own query
    th.start(m.get_user_membership("u2"));
    th.advance(50.0);
    assert_eq!(store.membership_calls(), 2);
}

#[test]
fn membership_errors_are_logged_returned_and_not_cached() {
    let (th, store, m) = setup(config());
    store.set_member("u1", "seg.g1", true);
    store.fail_membership(Some("boom"));
    let got = ok_lookup(&th, &m, "u1");
    assert_eq!(got, Lookup { membership: None, status: BigSegmentsStatus::StoreError });
    assert_eq!(errors(&th), vec!["Big Segment store membership query returned error: boom".to_string()]);
    assert_eq!(store.metadata_calls(), 0, "a failed membership query returns before the status step");
    ok_lookup(&th, &m, "u1");
    assert_eq!(store.membership_calls(), 2, "the error was not cached");
    store.fail_membership(None);
    assert_eq!(ok_lookup(&th, &m, "u1").status, BigSegmentsStatus::Healthy);
    ok_lookup(&th, &m, "u1");
    assert_eq!(store.membership_calls(), 3);
    assert_eq!(m.counters().membership_errors, 2);
}

#[test]
fn concurrent_failures_share_one_query_and_one_log_line() {
    let (th, store, m) = setup(config());
    store.fail_membership(Some("down"));
    store.s.membership_delay.set(Some(10.0));
    let slots: Vec<_> = (0..5).map(|_| th.start(m.get_user_membership("u"))).collect();
    th.advance(10.0);
    for slot in slots {
        assert_eq!(slot.borrow_mut().take().unwrap().unwrap().status, BigSegmentsStatus::StoreError);
    }
    assert_eq!(store.membership_calls(), 1);
    assert_eq!(errors(&th).len(), 1);
}

#[test]
fn membership_query_timeout_is_a_store_error_at_the_timeout() {
    let (th, store, m) = setup(config()); // query timeout 100
    store.s.membership_delay.set(Some(f64::INFINITY));
    let slot = th.start(m.get_user_membership("u1"));
    th.advance(99.0);
    assert!(slot.borrow().is_none(), "not before the timeout");
    th.advance(1.0);
    let got = slot.borrow_mut().take().unwrap().unwrap();
    assert_eq!(got, Lookup { membership: None, status: BigSegmentsStatus::StoreError });
    assert_eq!(
        errors(&th),
        vec!["Big Segment store membership query returned error: timed out after 100 ms".to_string()]
    );
    assert_eq!(th.clock.pending_timers(), 0, "the timeout timer is gone");
    // a store just inside the timeout is fine
    store.s.membership_delay.set(Some(99.0));
    let slot = th.start(m.get_user_membership("u1"));
    th.advance(99.0);
    assert_eq!(slot.borrow_mut().take().unwrap().unwrap().status, BigSegmentsStatus::Healthy);
    assert_eq!(store.membership_calls(), 2, "the timeout was not cached");
}

// --- status ----------------------------------------------------------------------------

#[test]
fn staleness_boundary_uses_epoch_clock_and_stale_after() {
    let (th, store, m) = setup(BigSegmentsConfig { stale_after_ms: 1000.0, ..config() });
    let now = th.host.clock.epoch_ms();
    store.synced_at(now - 999.0);
    assert_eq!(th.run(m.poll_now()), OK);
    store.synced_at(th.host.clock.epoch_ms() - 1000.0);
    assert_eq!(th.run(m.poll_now()), STALE);
    assert_eq!(ok_lookup(&th, &m, "u").status, BigSegmentsStatus::Stale);
    *store.s.metadata.borrow_mut() = Some(StoreMetadata { last_up_to_date: None });
    th.advance(5000.0);
    assert_eq!(ok_lookup(&th, &m, "v").status, BigSegmentsStatus::Stale, "never synchronized");
    *store.s.metadata.borrow_mut() = None;
    assert_eq!(th.run(m.poll_now()), STALE, "no metadata at all");
    // a store synced long ago goes stale as time passes, with no change to the store
    store.synced_at(th.host.clock.epoch_ms());
    assert_eq!(th.run(m.poll_now()), OK);
    th.advance(1000.0);
    assert_eq!(th.run(m.poll_now()), STALE);
}

#[test]
fn metadata_error_is_store_error_but_membership_is_still_returned() {
    let (th, store, m) = setup(config());
    store.set_member("u1", "seg.g1", true);
    store.fail_metadata(Some("no metadata for you"));
    let got = ok_lookup(&th, &m, "u1");
    assert_eq!(got, Lookup { membership: Some(members(&[("seg.g1", true)])), status: BigSegmentsStatus::StoreError });
    assert_eq!(m.last_status(), Some(DOWN));
    assert_eq!(errors(&th), vec!["Big Segment store status query returned error: no metadata for you".to_string()]);
}

#[test]
fn metadata_timeout_counts_as_unavailable() {
    let (th, store, m) = setup(config()); // timeout 100
    store.s.metadata_delay.set(Some(f64::INFINITY));
    let slot = th.start(m.get_user_membership("u1"));
    th.advance(99.0);
    assert!(slot.borrow().is_none(), "waiting for the inline first poll");
    th.advance(1.0);
    let got = slot.borrow_mut().take().unwrap().unwrap();
    assert_eq!((got.membership, got.status), (Some(Members::new()), BigSegmentsStatus::StoreError));
    assert_eq!(errors(&th), vec!["Big Segment store status query returned error: timed out after 100 ms".to_string()]);
    assert_eq!(m.counters().status_errors, 1);
}

#[test]
fn get_status_polls_only_when_no_status_is_known() {
    let (th, store, m) = setup(config());
    assert_eq!(th.run(m.get_status()), OK);
    assert_eq!(store.metadata_calls(), 1);
    store.fail_metadata(Some("x"));
    th.advance(60_000.0);
    assert_eq!(th.run(m.get_status()), OK, "the last status, however old");
    assert_eq!(store.metadata_calls(), 1);
    assert_eq!(th.run(m.poll_now()), DOWN, "poll_now always asks");
    assert_eq!(store.metadata_calls(), 2);
}

#[test]
fn without_start_a_lookup_repolls_once_the_status_is_a_poll_interval_old() {
    let (th, store, m) = setup(config()); // poll interval 5000
    ok_lookup(&th, &m, "u");
    assert_eq!(store.metadata_calls(), 1);
    store.fail_metadata(Some("down"));
    th.advance(4999.0);
    assert_eq!(ok_lookup(&th, &m, "u").status, BigSegmentsStatus::Healthy, "cache hit, status still fresh");
    assert_eq!(store.metadata_calls(), 1);
    th.advance(1.0);
    assert_eq!(ok_lookup(&th, &m, "u").status, BigSegmentsStatus::StoreError, "age == interval re-polls");
    assert_eq!(store.metadata_calls(), 2);
    assert_eq!(ok_lookup(&th, &m, "u").status, BigSegmentsStatus::StoreError);
    assert_eq!(store.metadata_calls(), 2);
}

#[test]
fn with_start_lookups_never_poll_inline() {
    let (th, store, m) = setup(config()); // poll interval 5000, timeout 100
    store.s.metadata_delay.set(Some(50.0));
    m.start();
    th.advance(50.0); // first background poll: 0..50
    assert_eq!((store.metadata_calls(), m.last_status()), (1, Some(OK)));
    ok_lookup(&th, &m, "u");
    // the fake clock fires timers due at the end of each advance, so step precisely
    th.advance(5000.0); // 5050: the second poll starts (answers at 5100)
    assert_eq!(store.metadata_calls(), 2);
    assert_eq!(store.s.metadata_in_flight.get(), 1);
    // the last status finished at 50: a full interval old, but a started manager answers
    // from it immediately instead of polling or waiting for the poll in flight
    store.fail_metadata(Some("down"));
    assert_eq!(ok_lookup(&th, &m, "u").status, BigSegmentsStatus::Healthy);
    assert_eq!(store.metadata_calls(), 2);
    th.advance(50.0); // 5100: second poll done (OK: it was asked before the failure)
    th.advance(5000.0); // 10100: third poll in flight, will fail
    assert_eq!(store.metadata_calls(), 3);
    assert_eq!(ok_lookup(&th, &m, "u").status, BigSegmentsStatus::Healthy, "no inline poll, no waiting");
    assert_eq!(store.metadata_calls(), 3);
    th.advance(50.0);
    assert_eq!(m.last_status(), Some(DOWN));
    assert_eq!(ok_lookup(&th, &m, "u").status, BigSegmentsStatus::StoreError);
}

#[test]
fn background_polling_runs_every_interval_is_idempotent_and_notifies_changes() {
    let (th, store, m) = setup(config());
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    m.status_provider().add_listener(Rc::new(move |status| {
        s.borrow_mut().push(status);
        Ok(())
    }));
    m.start();
    m.start();
    th.settle();
    assert!(m.is_started());
    assert_eq!(store.metadata_calls(), 1, "polls at once, once");
    assert_eq!(m.last_status(), Some(OK));
    assert!(seen.borrow().is_empty(), "first status is silent");
    th.advance(4999.0);
    assert_eq!(store.metadata_calls(), 1);
    th.advance(1.0);
    assert_eq!(store.metadata_calls(), 2);
    assert!(seen.borrow().is_empty(), "unchanged status does not notify");
    store.fail_metadata(Some("down"));
    th.advance(5000.0);
    assert_eq!(*seen.borrow(), vec![DOWN]);
    store.fail_metadata(None);
    m.start();
    th.advance(5000.0);
    assert_eq!(store.metadata_calls(), 4);
    assert_eq!(*seen.borrow(), vec![DOWN, OK]);
    assert_eq!(th.clock.pending_timers(), 1, "one poller sleeping");
}

#[test]
fn status_polls_never_overlap() {
    let interval = 100.0;
    let (th, store, m) =
        setup(BigSegmentsConfig { status_poll_interval_ms: interval, query_timeout_ms: 1000.0, ..config() });
    store.s.metadata_delay.set(Some(300.0)); // slower than the interval
    m.start();
    let mut answers = Vec::new();
    for step in 0..300 {
        if step % 7 == 0 {
            answers.push(th.start(m.poll_now()));
            answers.push(th.start(m.get_status()));
            th.start(m.get_user_membership(&format!("k{step}")));
        }
        th.advance(10.0);
    }
    assert_eq!(store.s.metadata_max_in_flight.get(), 1);
    // 3000 ms of busy polling: each poll takes 300 ms; nothing ran in parallel
    let calls = store.metadata_calls();
    assert!((8..=10).contains(&calls), "{calls} polls");
    th.advance(1000.0);
    assert!(answers.iter().all(|a| a.borrow().is_some()));
}

#[test]
fn inline_polls_from_many_lookups_share_one_metadata_call() {
    let (th, store, m) = setup(config());
    store.s.metadata_delay.set(Some(20.0));
    let slots: Vec<_> = (0..10).map(|i| th.start(m.get_user_membership(&format!("k{i}")))).collect();
    th.advance(20.0);
    assert!(slots
        .iter()
        .all(|s| s.borrow().as_ref().is_some_and(|r| r.as_ref().unwrap().status == BigSegmentsStatus::Healthy)));
    assert_eq!(store.metadata_calls(), 1);
    assert_eq!(store.membership_calls(), 10);
}

// --- close -----------------------------------------------------------------------------

#[test]
fn close_is_idempotent_stops_polling_and_rejects_later_lookups() {
    let (th, store, m) = setup(config());
    store.s.close_delay.set(Some(30.0));
    m.start();
    th.settle();
    ok_lookup(&th, &m, "u");
    assert_eq!(store.metadata_calls(), 1);
    let first = th.start(m.close());
    let second = th.start(m.close());
    th.advance(29.0);
    assert!(first.borrow().is_none() && second.borrow().is_none(), "awaits the store's close()");
    th.advance(1.0);
    assert!(first.borrow().is_some() && second.borrow().is_some());
    assert_eq!(store.s.close_calls.get(), 1);
    th.run(m.close());
    assert_eq!(store.s.close_calls.get(), 1);
    assert!(m.is_closed());
    assert_eq!(th.clock.pending_timers(), 0, "the poller's timer is gone");
    th.advance(60_000.0);
    assert_eq!(store.metadata_calls(), 1, "no polling after close");
    assert_eq!(lookup_now(&th, &m, "u"), Err(Closed));
    assert_eq!(lookup_now(&th, &m, "new"), Err(Closed));
    assert_eq!(store.membership_calls(), 1);
    assert_eq!(th.run(m.get_status()), OK, "last status, no store call");
    assert_eq!(th.run(m.poll_now()), OK);
    assert_eq!(store.metadata_calls(), 1);
    m.start();
    th.settle();
    assert_eq!(store.metadata_calls(), 1, "start after close does nothing");
}

#[test]
fn close_abandons_a_hanging_poll_and_leaves_no_timers() {
    let (th, store, m) = setup(BigSegmentsConfig { query_timeout_ms: 10_000.0, ..config() });
    store.s.metadata_delay.set(Some(f64::INFINITY));
    store.s.membership_delay.set(Some(f64::INFINITY));
    m.start();
    th.settle();
    assert_eq!(store.s.metadata_in_flight.get(), 1);
    assert_eq!(th.clock.pending_timers(), 2, "the poller's interval and the poll's timeout timer");
    th.run(m.close());
    th.settle();
    assert_eq!(th.clock.pending_timers(), 0);
    assert_eq!(store.s.metadata_in_flight.get(), 0, "the hanging call was dropped");
    assert_eq!(store.s.close_calls.get(), 1);
    assert!(errors(&th).is_empty());
}

#[test]
fn close_without_store_is_fine_and_lookups_then_fail() {
    let th = TestHost::new(1);
    let m = BigSegmentStoreManager::<FakeStore>::new(None, config(), th.host.clone()).unwrap();
    th.run(m.close());
    th.run(m.close());
    assert_eq!(lookup_now(&th, &m, "u"), Err(Closed));
}

#[test]
fn dropping_every_handle_ends_the_poller() {
    let (th, store, m) = setup(config());
    m.start();
    th.settle();
    assert_eq!(th.clock.live_intervals(), 1);
    drop(m);
    th.settle();
    assert_eq!(th.clock.pending_timers(), 0, "the interval held the manager only weakly");
    th.advance(20_000.0);
    assert_eq!(store.metadata_calls(), 1);
}

#[test]
fn dropping_the_manager_during_a_background_poll_ends_the_poller_after_it() {
    let (th, store, m) = setup(config());
    store.s.metadata_delay.set(Some(50.0));
    m.start();
    th.settle();
    drop(m);
    assert_eq!(th.clock.live_intervals(), 1, "the poll in flight holds the manager");
    th.advance(50.0);
    assert_eq!(th.clock.pending_timers(), 0);
    th.advance(20_000.0);
    assert_eq!(store.metadata_calls(), 1);
}

#[test]
fn background_ticks_while_a_poll_is_in_flight_are_skipped() {
    let (th, store, m) =
        setup(BigSegmentsConfig { status_poll_interval_ms: 100.0, query_timeout_ms: 1000.0, ..config() });
    store.s.metadata_delay.set(Some(250.0));
    m.start(); // polls 0..250; ticks at 100 and 200 are skipped; 300 polls (300..550); …
    for _ in 0..100 {
        th.advance(10.0);
    }
    assert_eq!(store.metadata_calls(), 4, "polls at 0, 300, 600 and 900");
    assert_eq!(store.s.metadata_max_in_flight.get(), 1);
    assert_eq!(m.counters().status_polls, 4);
}

#[test]
fn a_tick_joins_no_inline_poll_it_skips_it() {
    let (th, store, m) = setup(BigSegmentsConfig { status_poll_interval_ms: 100.0, ..config() });
    m.start();
    th.settle();
    store.s.metadata_delay.set(Some(60.0));
    th.advance(90.0);
    let inline = th.start(m.poll_now()); // 90..150: in flight when the tick at 100 fires
    th.advance(10.0);
    assert_eq!(store.metadata_calls(), 2, "the tick at 100 was skipped");
    th.advance(50.0);
    assert_eq!(inline.borrow_mut().take(), Some(OK));
    th.advance(50.0); // the tick at 200 polls
    assert_eq!(store.metadata_calls(), 3);
}

#[test]
fn close_clears_the_interval() {
    let (th, store, m) = setup(config());
    m.start();
    th.settle();
    assert_eq!(th.clock.live_intervals(), 1);
    th.run(m.close());
    assert_eq!(th.clock.live_intervals(), 0);
    th.advance(60_000.0);
    assert_eq!(store.metadata_calls(), 1);
}

// --- re-entrancy -----------------------------------------------------------------------

#[test]
fn store_and_listener_callbacks_may_reenter_the_manager() {
    let (th, store, m) = setup(config());
    let th = Rc::new(th);
    store.set_member("u1", "seg.g1", true);
    // the store calls back into the manager synchronously from inside its methods
    let (m1, th1) = (m.clone(), th.clone());
    *store.s.on_membership.borrow_mut() = Some(Rc::new(move || {
        let _ = m1.counters();
        let _ = m1.last_status();
        th1.start(m1.get_user_membership("u1"));
        th1.start(m1.get_status());
    }));
    let (m2, th2) = (m.clone(), th.clone());
    *store.s.on_metadata.borrow_mut() = Some(Rc::new(move || {
        let _ = m2.cached_contexts();
        th2.start(m2.poll_now());
        th2.start(m2.get_user_membership("u2"));
    }));
    let (m3, th3) = (m.clone(), th.clone());
    let reentries = Rc::new(Cell::new(0));
    let r = reentries.clone();
    m.status_provider().add_listener(Rc::new(move |_| {
        r.set(r.get() + 1);
        m3.start();
        th3.start(m3.poll_now());
        th3.start(m3.get_user_membership("u1"));
        Ok(())
    }));
    let got = lookup_now(&th, &m, "u1").unwrap();
    assert_eq!(got.status, BigSegmentsStatus::Healthy);
    th.settle();
    assert_eq!(store.membership_calls(), 2, "u1 once (the re-entrant lookup joined it), u2 once");
    store.fail_metadata(Some("down"));
    th.run(m.poll_now());
    th.settle();
    assert_eq!(reentries.get(), 1);
    assert_eq!(m.last_status(), Some(DOWN));
    assert!(m.is_started(), "the listener started the poller");
    th.run(m.close());
}

// Metrics: lookups, cache hits and store queries as the counters count them.

fn metered_setup() -> (TestHost, FakeStore, BigSegmentStoreManager<FakeStore>, Rc<crate::testing::RecordingSink>) {
    let mut th = TestHost::new(7);
    let sink = Rc::new(crate::testing::RecordingSink::default());
    th.host.metrics = Some(sink.clone());
    let store = FakeStore::new(&th);
    let manager = BigSegmentStoreManager::new(Some(store.clone()), config(), th.host.clone()).unwrap();
    (th, store, manager, sink)
}

#[test]
fn metrics_of_lookups_agree_with_the_counters() {
    let (th, store, m, sink) = metered_setup();
    store.set_member("u1", "seg.g1", true);
    ok_lookup(&th, &m, "u1");
    ok_lookup(&th, &m, "u1");
    assert!(m.lookup_now("u1").is_some(), "a warm lookup answered at once");
    ok_lookup(&th, &m, "u2");
    let c = m.counters();
    assert_eq!((c.lookups, c.cache_hits, c.membership_queries), (4, 2, 2));
    assert_eq!(sink.sum("cutover.big_segments.lookups", ""), c.lookups as f64);
    assert_eq!(sink.sum("cutover.big_segments.cache_hits", ""), c.cache_hits as f64);
    assert_eq!(sink.sum("cutover.big_segments.store_queries", ""), c.membership_queries as f64);
    assert_eq!(sink.count("cutover.big_segments.store.duration"), 2);
    assert!(sink.records.borrow().iter().all(|(_, _, a)| a.is_empty()), "no context key or hash");
}

#[test]
fn metrics_of_failed_and_timed_out_queries_carry_error_type() {
    let (th, store, m, sink) = metered_setup();
    store.fail_membership(Some("boom"));
    ok_lookup(&th, &m, "u1");
    store.fail_membership(None);
    store.s.membership_delay.set(Some(f64::INFINITY));
    let slot = th.start(m.get_user_membership("u2"));
    th.advance(100.0);
    assert!(slot.borrow_mut().take().is_some());
    let c = m.counters();
    assert_eq!((c.membership_queries, c.membership_errors), (2, 2));
    assert_eq!(sink.sum("cutover.big_segments.store_queries", "error.type=_OTHER"), 1.0);
    assert_eq!(sink.sum("cutover.big_segments.store_queries", "error.type=timeout"), 1.0);
    assert_eq!(sink.sum("cutover.big_segments.store.duration", "error.type=timeout"), 0.1);
    assert_eq!(sink.total("cutover.big_segments.store_queries"), c.membership_queries as f64);
}

#[test]
fn store_latency_records_each_membership_query_timeouts_included() {
    let (th, store, m) = setup(config()); // query timeout 100
    let summary = |m: &BigSegmentStoreManager<FakeStore>| {
        crate::util::histogram::Histogram::from_wire(&m.store_latency_wire()).unwrap().summary()
    };
    assert_eq!(summary(&m), None);
    store.s.membership_delay.set(Some(30.0));
    let slot = th.start(m.get_user_membership("u1"));
    th.advance(30.0);
    assert!(slot.borrow_mut().take().is_some());
    let one = summary(&m).unwrap();
    assert_eq!((one.count, one.p50, one.max), (1, 30.0, 30.0));
    // A cache hit asks nothing of the store; a timed-out query took the timeout.
    ok_lookup(&th, &m, "u1");
    store.s.membership_delay.set(Some(f64::INFINITY));
    let slot = th.start(m.get_user_membership("u2"));
    th.advance(100.0);
    assert!(slot.borrow_mut().take().is_some());
    let two = summary(&m).unwrap();
    assert_eq!((two.count, two.max), (2, 100.0));
}
