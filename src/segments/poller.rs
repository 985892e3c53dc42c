//! Status polling (SPEC B4): one poll at a time, shared by whoever asks while it runs, and the
//! background poller — a host interval whose tick holds the manager only weakly and is skipped
//! while a poll is in flight.

use std::rc::Weak;

use futures::future::{self, LocalBoxFuture};
use futures::FutureExt;

use super::manager::{timed_out, with_timeout, BigSegmentStoreManager, Inner};
use super::status::BigSegmentStoreStatus;
use super::store::BigSegmentStore;
use crate::host::HostValue;
use crate::util::shared_future::SharedFuture;

/// What the background interval calls: a poll, unless the manager is gone, closed, or already
/// polling. Holds the manager weakly, so the interval never keeps it alive.
fn tick<S: BigSegmentStore + 'static>(manager: &Weak<Inner<S>>) {
    if let Some(inner) = manager.upgrade() {
        BigSegmentStoreManager::from_inner(inner).poll_in_background();
    }
}

impl<S: BigSegmentStore + 'static> BigSegmentStoreManager<S> {
    /// Starts background status polling: a poll now, then one every `statusPollIntervalMs`
    /// (a tick while a poll is in flight is skipped), until closed or the manager is dropped.
    /// The host's background interval does not keep an idle process alive. Idempotent; a no-op
    /// without a store or after close.
    pub fn start(&self) {
        if self.inner.store.is_none() {
            return;
        }
        {
            let mut st = self.inner.state.borrow_mut();
            if st.started || st.closed {
                return;
            }
            st.started = true;
        }
        let manager = std::rc::Rc::downgrade(&self.inner);
        let interval = self
            .inner
            .host
            .sleep
            .every_in_background(self.inner.config.status_poll_interval_ms, Box::new(move || tick(&manager)));
        let replaced = self.inner.state.borrow_mut().interval.replace(interval);
        drop(replaced);
        self.poll_in_background();
    }

    /// Starts a background poll unless the manager is closed or a poll is in flight. The poll
    /// runs as its own task; `close()` abandons it.
    fn poll_in_background(&self) {
        {
            let st = self.inner.state.borrow();
            if st.closed || st.poll.is_some() {
                return;
            }
        }
        let (task, abort) = future::abortable(self.poll_now());
        let replaced = self.inner.state.borrow_mut().background_poll.replace(abort);
        drop(replaced);
        self.inner.host.spawn.spawn(task.map(drop).boxed_local());
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
}
