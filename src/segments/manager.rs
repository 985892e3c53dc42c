//! [`BigSegmentStoreManager`]: its state, construction, counters and `close()` (SPEC B1, B4).
//! Lookups are in `lookup`, status polling in `poller`.
//!
//! Concurrency model: single-threaded, `?Send` futures. All mutable state sits in one
//! `RefCell` that is only borrowed for short, synchronous sections; it is never held across an
//! `.await` or a call into the store, a listener or the logger, because those may call back
//! into the manager synchronously.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use futures::future::{self, AbortHandle, Either, LocalBoxFuture};
use futures::FutureExt;

use super::cache::{MembershipCache, SharedQuery, SingleFlight};
use super::config::{BigSegmentsConfig, ConfigError};
use super::status::{BigSegmentStoreStatus, StatusProvider};
use super::store::BigSegmentStore;
use crate::host::{BackgroundInterval, Host};
use crate::util::histogram::Histogram;
use crate::util::shared_future::SharedFuture;

/// Running counts, for demos and benchmarks; serialized (camelCase keys) as the snapshot hosts
/// hand out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
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
pub(super) struct QueryFailed;

pub(super) type QueryOutcome<M> = Result<M, QueryFailed>;

pub(super) struct State<M: Clone + 'static> {
    pub(super) cache: MembershipCache<M>,
    pub(super) queries: SingleFlight<QueryOutcome<M>>,
    /// The status poll in flight (id, shared future); at most one at a time.
    pub(super) poll: Option<(u64, SharedQuery<BigSegmentStoreStatus>)>,
    pub(super) next_poll_id: u64,
    /// Monotonic ms when the last poll finished.
    pub(super) last_poll_at: Option<f64>,
    pub(super) started: bool,
    pub(super) closed: bool,
    /// The background poller's host interval; dropping it stops the ticks.
    pub(super) interval: Option<BackgroundInterval>,
    /// The background poll task in flight, for `close()` to abandon.
    pub(super) background_poll: Option<AbortHandle>,
    pub(super) closing: Option<SharedQuery<()>>,
    pub(super) counters: BigSegmentsCounters,
    /// How long each membership query took (failures and timeouts included), for the console.
    pub(super) store_latency: Histogram,
}

pub(super) struct Inner<S: BigSegmentStore> {
    pub(super) store: Option<Rc<S>>,
    pub(super) config: BigSegmentsConfig,
    pub(super) host: Host,
    pub(super) status: StatusProvider,
    pub(super) state: RefCell<State<S::Membership>>,
}

/// Big Segment lookups with caching, single flight, status polling and staleness (SPEC B3, B4).
/// Cheap to clone: clones share one manager.
pub struct BigSegmentStoreManager<S: BigSegmentStore> {
    pub(super) inner: Rc<Inner<S>>,
}

impl<S: BigSegmentStore> Clone for BigSegmentStoreManager<S> {
    fn clone(&self) -> Self {
        BigSegmentStoreManager { inner: self.inner.clone() }
    }
}

/// Races `call` against a host timer started now; `None` when the timer won.
pub(super) fn with_timeout<T: 'static>(
    host: &Host,
    call: LocalBoxFuture<'static, T>,
    timeout_ms: f64,
) -> impl Future<Output = Option<T>> + 'static {
    future::select(call, host.sleep.sleep(timeout_ms)).map(|winner| match winner {
        Either::Left((value, _)) => Some(value),
        Either::Right(_) => None,
    })
}

pub(super) fn timed_out(timeout_ms: f64) -> String {
    format!("timed out after {} ms", crate::util::text::number(timeout_ms))
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
            interval: None,
            background_poll: None,
            closing: None,
            counters: BigSegmentsCounters::default(),
            store_latency: Histogram::default(),
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

    pub(super) fn from_inner(inner: Rc<Inner<S>>) -> Self {
        BigSegmentStoreManager { inner }
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

    /// The membership queries' latency histogram in its wire form (`util::histogram`), for the
    /// console (store latency, merged across a fleet like a migrator's).
    pub fn store_latency_wire(&self) -> Vec<f64> {
        self.inner.state.borrow().store_latency.to_wire()
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

    /// Stops background polling (and abandons a poll in flight), then awaits the store's
    /// `close()`. Idempotent: every call returns the same completion and the store is closed
    /// once. Lookups first polled after this call return `Err(Closed)`.
    pub fn close(&self) -> LocalBoxFuture<'static, ()> {
        let (interval, background_poll, poll, queries, closing) = {
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
            (st.interval.take(), st.background_poll.take(), st.poll.take(), st.queries.take_all(), closing)
        };
        // Outside the borrow: dropping the interval clears the host timer; aborting the
        // background poll task and dropping the last handle of a query or poll drops its store
        // call and timer.
        drop(interval);
        if let Some(task) = background_poll {
            task.abort();
        }
        drop(poll);
        drop(queries);
        closing.boxed_local()
    }
}
