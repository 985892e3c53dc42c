//! Membership lookups (SPEC B3): the lookup status, the cache, single-flight store queries, and
//! the status a lookup may use.

use std::fmt;

use futures::future::{self, LocalBoxFuture};
use futures::FutureExt;

use super::cache::SharedQuery;
use super::hash::hash_context_key;
use super::manager::{timed_out, with_timeout, BigSegmentStoreManager, QueryFailed, QueryOutcome, State};
use super::status::BigSegmentStoreStatus;
use super::store::BigSegmentStore;
use crate::host::HostValue;
use crate::metrics::{Attributes, ErrorType, Instrument};

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

impl<S: BigSegmentStore + 'static> BigSegmentStoreManager<S> {
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
            if let Some(hit) = st.cache.get(&key, now).map(|m| m.clone()) {
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
        // Recorded outside the state's borrow: a sink may call back into this manager.
        self.record_lookup(matches!(step, Step::Hit(_)));
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
        let clock = &self.inner.host.clock;
        let started = clock.monotonic_ms();
        let answer = with_timeout(&self.inner.host, store.get_membership(&hash), timeout_ms).await;
        self.inner.state.borrow_mut().store_latency.record(clock.monotonic_ms() - started);
        if let Some(metrics) = &self.inner.host.metrics {
            let name = match &answer {
                Some(Err(error)) => error.error_name(),
                _ => None,
            };
            let attributes = match &answer {
                Some(Ok(_)) => Attributes::default(),
                Some(Err(_)) => Attributes::default().with_error(ErrorType::named(name.as_deref())),
                None => Attributes::default().with_error(ErrorType::Timeout),
            };
            metrics.record(Instrument::BigSegmentsStoreQueries, 1.0, &attributes);
            metrics.record(
                Instrument::BigSegmentsStoreDuration,
                (clock.monotonic_ms() - started) / 1000.0,
                &attributes,
            );
        }
        let answer = match answer {
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
        let now = self.inner.host.clock.monotonic_ms();
        self.answer_at(key, now, |membership, status| Lookup { membership: membership.cloned(), status })
    }

    /// [`Self::lookup_now`] at `now`, a reading of the host's monotonic clock the caller took,
    /// answered by `answer` from the cached membership itself (`None`: not configured) instead
    /// of a clone of it, so that a host may keep what it makes of a membership in the cache
    /// (`&mut`). `answer` runs while the manager's state is borrowed: it must not call back into
    /// the manager (the bindings only build frozen objects in it).
    pub fn answer_at<R>(
        &self,
        key: &str,
        now: f64,
        answer: impl FnOnce(Option<&mut S::Membership>, BigSegmentsStatus) -> R,
    ) -> Option<Result<R, Closed>> {
        let answered = {
            let mut st = self.inner.state.borrow_mut();
            if st.closed {
                return Some(Err(Closed));
            }
            if self.inner.store.is_none() {
                return Some(Ok(answer(None, BigSegmentsStatus::NotConfigured)));
            }
            let status = BigSegmentsStatus::from_store_status(self.usable_status(&st, now)?);
            let membership = st.cache.get(key, now)?;
            let answered = answer(Some(membership), status);
            st.counters.lookups += 1;
            st.counters.cache_hits += 1;
            answered
        };
        self.record_lookup(true);
        Some(Ok(answered))
    }

    /// A lookup that reached the cache, for the metric sink (as the counters count it).
    fn record_lookup(&self, cache_hit: bool) {
        if let Some(metrics) = &self.inner.host.metrics {
            metrics.record(Instrument::BigSegmentsLookups, 1.0, &Attributes::default());
            if cache_hit {
                metrics.record(Instrument::BigSegmentsCacheHits, 1.0, &Attributes::default());
            }
        }
    }
}
