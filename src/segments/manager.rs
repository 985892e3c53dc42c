//! [`BigSegmentStoreManager`]: membership lookups through the cache, status polling and
//! `close()` (SPEC B1, B3, B4).
//!
//! Concurrency model: single-threaded, `?Send` futures. All mutable state sits in one
//! `RefCell` that is only borrowed for short, synchronous sections; it is never held across an
//! `.await` or a call into the store, a listener or the logger, because those may call back
//! into the manager synchronously.

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::rc::{Rc, Weak};

use futures::channel::oneshot;
use futures::future::{self, Either, LocalBoxFuture};
use futures::FutureExt;

use super::cache::{MembershipCache, SharedQuery, SingleFlight};
use super::hash::hash_context_key;
use super::status::{BigSegmentStoreStatus, StatusProvider};
use super::BigSegmentStore;
use crate::host::{Host, HostValue};
use crate::shared_future::SharedFuture;

// ---------------------------------------------------------------------------------------------
// Lookup status

/// The status attached to a membership lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BigSegmentsStatus {
    Healthy,
    Stale,
    StoreError,
    NotConfigured,
}

impl BigSegmentsStatus {
    /// The wire/JS name: `HEALTHY`, `STALE`, `STORE_ERROR`, `NOT_CONFIGURED`.
    pub fn as_str(self) -> &'static str {
        match self {
            BigSegmentsStatus::Healthy => "HEALTHY",
            BigSegmentsStatus::Stale => "STALE",
            BigSegmentsStatus::StoreError => "STORE_ERROR",
            BigSegmentsStatus::NotConfigured => "NOT_CONFIGURED",
        }
    }

    /// SPEC B3.5: not available → `STORE_ERROR`; stale → `STALE`; else `HEALTHY`.
    pub fn from_store_status(status: BigSegmentStoreStatus) -> Self {
        if !status.available {
            BigSegmentsStatus::StoreError
        } else if status.stale {
            BigSegmentsStatus::Stale
        } else {
            BigSegmentsStatus::Healthy
        }
    }
}

impl fmt::Display for BigSegmentsStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

// ---------------------------------------------------------------------------------------------
// Configuration

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

/// Which JS error class a [`ConfigError`] maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigErrorKind {
    /// `RangeError`: a number out of range (negative, NaN, infinite, non-integer size, …).
    Range,
    /// `TypeError`: not a number at all.
    Type,
}

/// An invalid option; `option` is the JS option name and `message` names it too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub option: &'static str,
    pub kind: ConfigErrorKind,
    pub message: String,
}

impl ConfigError {
    fn range(option: &'static str, requirement: &str) -> Self {
        ConfigError { option, kind: ConfigErrorKind::Range, message: format!("{option} must be {requirement}") }
    }
    /// `<option> must be a number` (for the bindings when a value has the wrong JS type).
    pub fn wrong_type(option: &'static str) -> Self {
        ConfigError { option, kind: ConfigErrorKind::Type, message: format!("{option} must be a number") }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

/// One numeric option as the bindings found it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum OptionValue {
    /// Not given (`undefined`): the default applies.
    #[default]
    Absent,
    Number(f64),
    /// Present but not a number: a `TypeError`.
    Other,
}

/// Raw numeric options, for [`BigSegmentsConfig::from_options`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
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
        Err(ConfigError::range(option, if allow_zero { NON_NEGATIVE } else { POSITIVE }))
    }
}

fn check_size(option: &'static str, value: f64) -> Result<usize, ConfigError> {
    if value.is_finite() && value >= 1.0 && value.fract() == 0.0 {
        // Saturating: a size beyond usize::MAX is as good as unbounded.
        Ok(value as usize)
    } else {
        Err(ConfigError::range(option, POSITIVE_INTEGER))
    }
}

impl BigSegmentsConfig {
    pub const CONTEXT_CACHE_SIZE: &'static str = "contextCacheSize";
    pub const CONTEXT_CACHE_TIME_MS: &'static str = "contextCacheTimeMs";
    pub const STATUS_POLL_INTERVAL_MS: &'static str = "statusPollIntervalMs";
    pub const STALE_AFTER_MS: &'static str = "staleAfterMs";
    pub const QUERY_TIMEOUT_MS: &'static str = "queryTimeoutMs";

    /// Checks every option, in API order, and reports the first invalid one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.context_cache_size == 0 {
            return Err(ConfigError::range(Self::CONTEXT_CACHE_SIZE, POSITIVE_INTEGER));
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
                OptionValue::Other => Err(ConfigError::wrong_type(option)),
            }
        }
        let d = BigSegmentsConfig::default();
        let size = match values.context_cache_size {
            OptionValue::Absent => d.context_cache_size,
            OptionValue::Number(n) => check_size(Self::CONTEXT_CACHE_SIZE, n)?,
            OptionValue::Other => return Err(ConfigError::wrong_type(Self::CONTEXT_CACHE_SIZE)),
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

// ---------------------------------------------------------------------------------------------
// Manager

/// The manager was closed before this call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Closed;

impl fmt::Display for Closed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Big Segment store manager is closed")
    }
}

impl std::error::Error for Closed {}

/// The answer to `get_user_membership`.
#[derive(Clone, Debug, PartialEq)]
pub struct Lookup<M> {
    /// `None` when not configured or when the membership query failed.
    pub membership: Option<M>,
    pub status: BigSegmentsStatus,
}

/// Running counts, for demos and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BigSegmentsCounters {
    /// Lookups that reached the cache (not `NOT_CONFIGURED`, not after close).
    pub lookups: u64,
    pub cache_hits: u64,
    pub cache_misses: u64,
    /// Misses that joined a store query already in flight for the same context.
    pub coalesced_lookups: u64,
    /// `get_membership` calls made to the store.
    pub membership_queries: u64,
    /// Membership queries that failed or timed out.
    pub membership_errors: u64,
    /// `get_metadata` calls made to the store.
    pub status_polls: u64,
    /// Status polls that failed or timed out.
    pub status_errors: u64,
}

/// A membership query that failed; the error was already logged.
#[derive(Clone, Copy, Debug)]
struct QueryFailed;

type QueryOutcome<M> = Result<M, QueryFailed>;

struct State<M: Clone + 'static> {
    cache: MembershipCache<M>,
    queries: SingleFlight<QueryOutcome<M>>,
    /// The status poll in flight (id, shared future); at most one at a time.
    poll: Option<(u64, SharedQuery<BigSegmentStoreStatus>)>,
    next_poll_id: u64,
    /// Monotonic ms when the last poll finished.
    last_poll_at: Option<f64>,
    started: bool,
    closed: bool,
    /// Dropping it stops the background poller.
    stop_poller: Option<oneshot::Sender<()>>,
    closing: Option<SharedQuery<()>>,
    counters: BigSegmentsCounters,
}

struct Inner<S: BigSegmentStore> {
    store: Option<Rc<S>>,
    config: BigSegmentsConfig,
    host: Host,
    status: StatusProvider,
    state: RefCell<State<S::Membership>>,
}

/// Big Segment lookups with caching, single flight, status polling and staleness (SPEC B3, B4).
/// Cheap to clone: clones share one manager.
pub struct BigSegmentStoreManager<S: BigSegmentStore> {
    inner: Rc<Inner<S>>,
}

impl<S: BigSegmentStore> Clone for BigSegmentStoreManager<S> {
    fn clone(&self) -> Self {
        BigSegmentStoreManager { inner: self.inner.clone() }
    }
}

/// Races `call` against a host timer started now; `None` when the timer won.
fn with_timeout<T: 'static>(
    host: &Host,
    call: LocalBoxFuture<'static, T>,
    timeout_ms: f64,
) -> impl Future<Output = Option<T>> + 'static {
    future::select(call, host.sleep.sleep(timeout_ms)).map(|winner| match winner {
        Either::Left((value, _)) => Some(value),
        Either::Right(_) => None,
    })
}

fn timed_out(timeout_ms: f64) -> String {
    format!("timed out after {} ms", crate::text::number(timeout_ms))
}

impl<S: BigSegmentStore + 'static> BigSegmentStoreManager<S> {
    /// A manager over `store` (`None`: every lookup is `NOT_CONFIGURED`). Validates `config`.
    /// Nothing runs until a lookup, a status request or [`start`](Self::start).
    pub fn new(store: Option<S>, config: BigSegmentsConfig, host: Host) -> Result<Self, ConfigError> {
        config.validate()?;
        let state = State {
            cache: MembershipCache::new(config.context_cache_size, config.context_cache_time_ms),
            queries: SingleFlight::default(),
            poll: None,
            next_poll_id: 0,
            last_poll_at: None,
            started: false,
            closed: false,
            stop_poller: None,
            closing: None,
            counters: BigSegmentsCounters::default(),
        };
        let inner = Inner {
            store: store.map(Rc::new),
            config,
            status: StatusProvider::new(host.clone()),
            host,
            state: RefCell::new(state),
        };
        Ok(BigSegmentStoreManager { inner: Rc::new(inner) })
    }

    pub fn config(&self) -> &BigSegmentsConfig {
        &self.inner.config
    }

    /// Status and listeners. Polls update it; it never polls by itself.
    pub fn status_provider(&self) -> &StatusProvider {
        &self.inner.status
    }

    pub fn last_status(&self) -> Option<BigSegmentStoreStatus> {
        self.inner.status.last_status()
    }

    pub fn counters(&self) -> BigSegmentsCounters {
        self.inner.state.borrow().counters
    }

    /// Contexts currently cached (expired entries not yet looked at included).
    pub fn cached_contexts(&self) -> usize {
        self.inner.state.borrow().cache.len()
    }

    pub fn is_started(&self) -> bool {
        self.inner.state.borrow().started
    }

    pub fn is_closed(&self) -> bool {
        self.inner.state.borrow().closed
    }

    /// Starts background status polling: poll, sleep `statusPollIntervalMs`, repeat, until
    /// closed (or the manager is dropped). Idempotent; a no-op without a store or after close.
    pub fn start(&self) {
        if self.inner.store.is_none() {
            return;
        }
        let stop = {
            let mut st = self.inner.state.borrow_mut();
            if st.started || st.closed {
                return;
            }
            st.started = true;
            let (tx, rx) = oneshot::channel();
            st.stop_poller = Some(tx);
            rx
        };
        let task = Self::poll_loop(
            Rc::downgrade(&self.inner),
            self.inner.host.clone(),
            self.inner.config.status_poll_interval_ms,
            stop,
        );
        self.inner.host.spawn.spawn(task.boxed_local());
    }

    /// The loop holds the manager weakly between polls, so dropping every handle ends it too.
    async fn poll_loop(weak: Weak<Inner<S>>, host: Host, interval_ms: f64, mut stop: oneshot::Receiver<()>) {
        loop {
            let poll = match weak.upgrade() {
                Some(inner) => {
                    let manager = BigSegmentStoreManager { inner };
                    if manager.is_closed() {
                        return;
                    }
                    manager.poll_now()
                }
                None => return,
            };
            if let Either::Right(_) = future::select(poll, &mut stop).await {
                return;
            }
            let pause = host.sleep.sleep_in_background(interval_ms);
            if let Either::Right(_) = future::select(pause, &mut stop).await {
                return;
            }
        }
    }

    /// Membership of `context_key` and the store status (SPEC B3). `Err(Closed)` when the
    /// manager was closed before this future was first polled.
    pub fn get_user_membership(
        &self,
        context_key: &str,
    ) -> LocalBoxFuture<'static, Result<Lookup<S::Membership>, Closed>> {
        self.clone().lookup(context_key.to_owned()).boxed_local()
    }

    async fn lookup(self, key: String) -> Result<Lookup<S::Membership>, Closed> {
        enum Step<M: Clone + 'static> {
            Hit(M),
            Wait(SharedQuery<QueryOutcome<M>>),
        }
        let now = self.inner.host.clock.monotonic_ms();
        let step = {
            let mut st = self.inner.state.borrow_mut();
            if st.closed {
                return Err(Closed);
            }
            if self.inner.store.is_none() {
                return Ok(Lookup { membership: None, status: BigSegmentsStatus::NotConfigured });
            }
            st.counters.lookups += 1;
            if let Some(hit) = st.cache.get(&key, now) {
                st.counters.cache_hits += 1;
                Step::Hit(hit)
            } else {
                st.counters.cache_misses += 1;
                match st.queries.join(&key) {
                    Some(query) => {
                        st.counters.coalesced_lookups += 1;
                        Step::Wait(query)
                    }
                    None => {
                        let this = self.clone();
                        let query_key = key.clone();
                        Step::Wait(st.queries.begin(key, move |id| this.query(query_key, id).boxed_local()))
                    }
                }
            }
        };
        let membership = match step {
            Step::Hit(membership) => membership,
            Step::Wait(query) => match query.await {
                Ok(membership) => membership,
                Err(QueryFailed) => return Ok(Lookup { membership: None, status: BigSegmentsStatus::StoreError }),
            },
        };
        let status = self.status_for_lookup().await;
        Ok(Lookup { membership: Some(membership), status: BigSegmentsStatus::from_store_status(status) })
    }

    /// One store query for a cache miss, shared by every concurrent miss for `key`. Caches a
    /// success (a "no data" answer as the empty membership); logs and caches nothing on failure.
    async fn query(self, key: String, id: u64) -> QueryOutcome<S::Membership> {
        let Some(store) = self.inner.store.clone() else {
            return self.finish_query(key, id, Err(QueryFailed));
        };
        let hash = hash_context_key(&key);
        self.inner.state.borrow_mut().counters.membership_queries += 1;
        let timeout_ms = self.inner.config.query_timeout_ms;
        let answer = match with_timeout(&self.inner.host, store.get_membership(&hash), timeout_ms).await {
            Some(Ok(Some(membership))) => Ok(membership),
            Some(Ok(None)) => Ok(store.empty_membership()),
            Some(Err(error)) => Err(error.describe()),
            None => Err(timed_out(timeout_ms)),
        };
        let outcome = match answer {
            Ok(membership) => Ok(membership),
            Err(failure) => {
                self.inner.state.borrow_mut().counters.membership_errors += 1;
                self.inner.host.error(&format!("Big Segment store membership query returned error: {failure}"));
                Err(QueryFailed)
            }
        };
        self.finish_query(key, id, outcome)
    }

    fn finish_query(&self, key: String, id: u64, outcome: QueryOutcome<S::Membership>) -> QueryOutcome<S::Membership> {
        let now = self.inner.host.clock.monotonic_ms();
        let finished = {
            let mut st = self.inner.state.borrow_mut();
            let finished = st.queries.finish(&key, id);
            if let Ok(membership) = &outcome {
                if !st.closed {
                    st.cache.insert(key, membership.clone(), now);
                }
            }
            finished
        };
        drop(finished);
        outcome
    }

    /// The status a lookup may use without polling: `None` when none is known yet or, without
    /// background polling, when the last poll finished `statusPollIntervalMs` or more ago.
    fn usable_status(&self, st: &State<S::Membership>, now: f64) -> Option<BigSegmentStoreStatus> {
        let refresh = !st.started
            && match st.last_poll_at {
                None => true,
                Some(at) => now - at >= self.inner.config.status_poll_interval_ms,
            };
        if refresh {
            None
        } else {
            self.inner.status.last_status()
        }
    }

    /// SPEC B3.4: the usable status, or an inline poll when there is none.
    fn status_for_lookup(&self) -> LocalBoxFuture<'static, BigSegmentStoreStatus> {
        let now = self.inner.host.clock.monotonic_ms();
        let usable = self.usable_status(&self.inner.state.borrow(), now);
        match usable {
            Some(status) => future::ready(status).boxed_local(),
            None => self.poll_now(),
        }
    }

    /// The answer to `get_user_membership` when it needs no waiting at all (closed, not
    /// configured, or a cache hit with a usable status); `None` when the store or a status poll
    /// must be asked, and then nothing was counted. Lets hosts answer hot lookups synchronously.
    pub fn lookup_now(&self, key: &str) -> Option<Result<Lookup<S::Membership>, Closed>> {
        self.lookup_at(key, self.inner.host.clock.monotonic_ms())
    }

    /// [`Self::lookup_now`] at `now`, a reading of the host's monotonic clock the caller took.
    pub fn lookup_at(&self, key: &str, now: f64) -> Option<Result<Lookup<S::Membership>, Closed>> {
        let mut st = self.inner.state.borrow_mut();
        if st.closed {
            return Some(Err(Closed));
        }
        if self.inner.store.is_none() {
            return Some(Ok(Lookup { membership: None, status: BigSegmentsStatus::NotConfigured }));
        }
        let status = self.usable_status(&st, now)?;
        let membership = st.cache.get(key, now)?;
        st.counters.lookups += 1;
        st.counters.cache_hits += 1;
        Some(Ok(Lookup { membership: Some(membership), status: BigSegmentsStatus::from_store_status(status) }))
    }

    /// The last status, or a poll now if there is none (`getStatus()`).
    pub fn get_status(&self) -> LocalBoxFuture<'static, BigSegmentStoreStatus> {
        match self.inner.status.last_status() {
            Some(status) => future::ready(status).boxed_local(),
            None => self.poll_now(),
        }
    }

    /// Polls the store now, or joins the poll already in flight (polls never overlap).
    /// Without a store the status is `UNAVAILABLE` (nothing is called or logged). After close
    /// it returns the last status (or `UNAVAILABLE`) without calling the store.
    pub fn poll_now(&self) -> LocalBoxFuture<'static, BigSegmentStoreStatus> {
        let mut st = self.inner.state.borrow_mut();
        if let Some((_, poll)) = &st.poll {
            return poll.clone().boxed_local();
        }
        if st.closed {
            drop(st);
            let status = self.inner.status.last_status().unwrap_or(BigSegmentStoreStatus::UNAVAILABLE);
            return future::ready(status).boxed_local();
        }
        st.next_poll_id = st.next_poll_id.wrapping_add(1);
        let id = st.next_poll_id;
        let poll = SharedFuture::new(self.clone().run_poll(id));
        st.poll = Some((id, poll.clone()));
        poll.boxed_local()
    }

    async fn run_poll(self, id: u64) -> BigSegmentStoreStatus {
        let status = match self.inner.store.clone() {
            None => BigSegmentStoreStatus::UNAVAILABLE,
            Some(store) => {
                self.inner.state.borrow_mut().counters.status_polls += 1;
                let timeout_ms = self.inner.config.query_timeout_ms;
                let failure = match with_timeout(&self.inner.host, store.get_metadata(), timeout_ms).await {
                    Some(Ok(metadata)) => Ok(BigSegmentStoreStatus::from_metadata(
                        metadata.as_ref(),
                        self.inner.host.clock.epoch_ms(),
                        self.inner.config.stale_after_ms,
                    )),
                    Some(Err(error)) => Err(error.describe()),
                    None => Err(timed_out(timeout_ms)),
                };
                match failure {
                    Ok(status) => status,
                    Err(failure) => {
                        self.inner.state.borrow_mut().counters.status_errors += 1;
                        self.inner.host.error(&format!("Big Segment store status query returned error: {failure}"));
                        BigSegmentStoreStatus::UNAVAILABLE
                    }
                }
            }
        };
        let now = self.inner.host.clock.monotonic_ms();
        let (finished, closed) = {
            let mut st = self.inner.state.borrow_mut();
            let finished = match &st.poll {
                Some((current, _)) if *current == id => st.poll.take(),
                _ => None,
            };
            st.last_poll_at = Some(now);
            (finished, st.closed)
        };
        drop(finished);
        if !closed {
            // Notifies listeners; no borrow is held.
            self.inner.status.update(status);
        }
        status
    }

    /// Stops background polling (and abandons a poll in flight), then awaits the store's
    /// `close()`. Idempotent: every call returns the same completion and the store is closed
    /// once. Lookups first polled after this call return `Err(Closed)`.
    pub fn close(&self) -> LocalBoxFuture<'static, ()> {
        let (stop, poll, queries, closing) = {
            let mut st = self.inner.state.borrow_mut();
            if let Some(closing) = &st.closing {
                return closing.clone().boxed_local();
            }
            st.closed = true;
            let store = self.inner.store.clone();
            let closing = SharedFuture::new(async move {
                if let Some(store) = store {
                    store.close().await;
                }
            });
            st.closing = Some(closing.clone());
            st.cache.clear();
            (st.stop_poller.take(), st.poll.take(), st.queries.take_all(), closing)
        };
        // Dropped outside the borrow: dropping a stop sender wakes the poller, dropping the
        // last handle of a query or poll drops its store call and timer.
        drop(stop);
        drop(poll);
        drop(queries);
        closing.boxed_local()
    }
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};
    use std::collections::{BTreeMap, HashMap};
    use std::rc::Rc;

    use futures::future::{self, LocalBoxFuture};
    use futures::FutureExt;

    use super::*;
    use crate::host::{Level, Sleep};
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
        fn to_json(&self) -> Option<crate::json::Json> {
            None
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
            assert_eq!(err.message, message);
            assert_eq!(err.to_string(), message);
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

        let err = opts(|o| o.context_cache_size = Other).unwrap_err();
        assert_eq!((err.kind, err.message.as_str()), (ConfigErrorKind::Type, "contextCacheSize must be a number"));
        let err = opts(|o| o.stale_after_ms = Other).unwrap_err();
        assert_eq!((err.kind, err.option), (ConfigErrorKind::Type, "staleAfterMs"));
        for bad in [1.5, 0.0, -3.0, f64::NAN, f64::INFINITY] {
            let o = BigSegmentsOptionValues { context_cache_size: Number(bad), ..Default::default() };
            let err = BigSegmentsConfig::from_options(&o).unwrap_err();
            assert_eq!(
                (err.kind, err.message.as_str()),
                (ConfigErrorKind::Range, "contextCacheSize must be a positive integer")
            );
        }
        let err = opts(|o| o.status_poll_interval_ms = Number(-1.0)).unwrap_err();
        assert_eq!(err.message, "statusPollIntervalMs must be a positive finite number");
        // the first invalid option in API order is reported
        let err = opts(|o| {
            o.query_timeout_ms = Other;
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
            assert_eq!(
                got,
                Lookup { membership: Some(members(&[("seg.g3", true)])), status: BigSegmentsStatus::Healthy }
            );
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
        assert_eq!(
            got,
            Lookup { membership: Some(members(&[("seg.g1", true)])), status: BigSegmentsStatus::StoreError }
        );
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
        assert_eq!(
            errors(&th),
            vec!["Big Segment store status query returned error: timed out after 100 ms".to_string()]
        );
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
        assert_eq!(th.clock.pending_timers(), 1, "the poll's timeout timer");
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
        drop(m);
        th.settle();
        assert_eq!(th.clock.pending_timers(), 0);
        th.advance(20_000.0);
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
}
