//! Store status, the status provider and its listeners (SPEC B4).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::store::StoreMetadata;
use crate::host::Host;
use crate::metrics::instrument::{STATUS_AVAILABLE, STATUS_STALE, STATUS_UNAVAILABLE};

/// The health of the Big Segment store as last seen by a poll; serialized as the status object
/// hosts hand out (`{available, stale}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BigSegmentStoreStatus {
    /// The last `getMetadata()` call succeeded.
    pub available: bool,
    /// The store's data is older than `staleAfterMs` (or was never synchronized).
    pub stale: bool,
}

impl BigSegmentStoreStatus {
    /// The status recorded when the store could not be asked (failure, timeout, no store).
    pub const UNAVAILABLE: BigSegmentStoreStatus = BigSegmentStoreStatus { available: false, stale: false };

    /// The value of the status gauge (`cutover.big_segments.status`) for this status.
    pub fn gauge(self) -> f64 {
        match (self.available, self.stale) {
            (false, _) => STATUS_UNAVAILABLE,
            (true, true) => STATUS_STALE,
            (true, false) => STATUS_AVAILABLE,
        }
    }

    /// The status after a successful metadata query answered `metadata` at `now_epoch_ms`:
    /// stale when there is no metadata, no `lastUpToDate`, or
    /// `now − lastUpToDate ≥ staleAfter` (a non-finite `lastUpToDate` counts as stale too).
    pub fn from_metadata(metadata: Option<&StoreMetadata>, now_epoch_ms: f64, stale_after_ms: f64) -> Self {
        let stale = match metadata.and_then(|m| m.last_up_to_date) {
            None => true,
            Some(last) => {
                let age = now_epoch_ms - last;
                age.is_nan() || age >= stale_after_ms
            }
        };
        BigSegmentStoreStatus { available: true, stale }
    }
}

/// Identifies a listener for [`StatusProvider::remove_listener`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ListenerId(pub u64);

/// A status listener. An `Err` is logged at error level and does not stop other listeners.
pub type StatusListener = Rc<dyn Fn(BigSegmentStoreStatus) -> Result<(), String>>;

struct ProviderInner {
    host: Host,
    last: Cell<Option<BigSegmentStoreStatus>>,
    listeners: RefCell<Vec<(ListenerId, StatusListener)>>,
    next_id: Cell<u64>,
}

/// Holds the last status and notifies listeners of changes. Cheap to clone (shared state).
///
/// Rules: the first status ever is stored silently; later ones notify every listener, in the
/// order added, only when `available` or `stale` changed. `last_status()` already returns the
/// new status while listeners run. Listeners are snapshotted before calling, so one added during
/// a notification is first called on the next change and one removed during a notification
/// does not prevent the others (itself included) from being called this time.
#[derive(Clone)]
pub struct StatusProvider {
    inner: Rc<ProviderInner>,
}

impl StatusProvider {
    pub fn new(host: Host) -> Self {
        StatusProvider {
            inner: Rc::new(ProviderInner {
                host,
                last: Cell::new(None),
                listeners: RefCell::new(Vec::new()),
                next_id: Cell::new(0),
            }),
        }
    }

    /// The last status known, if any poll has finished.
    pub fn last_status(&self) -> Option<BigSegmentStoreStatus> {
        self.inner.last.get()
    }

    pub fn add_listener(&self, listener: StatusListener) -> ListenerId {
        let id = ListenerId(self.inner.next_id.get().wrapping_add(1));
        self.inner.next_id.set(id.0);
        self.inner.listeners.borrow_mut().push((id, listener));
        id
    }

    /// Removes a listener; returns whether it was registered.
    pub fn remove_listener(&self, id: ListenerId) -> bool {
        let mut listeners = self.inner.listeners.borrow_mut();
        let before = listeners.len();
        listeners.retain(|(lid, _)| *lid != id);
        listeners.len() != before
    }

    pub fn listener_count(&self) -> usize {
        self.inner.listeners.borrow().len()
    }

    /// Records a new status and notifies listeners if it changed (see the type's rules).
    pub(crate) fn update(&self, status: BigSegmentStoreStatus) {
        let previous = self.inner.last.replace(Some(status));
        match previous {
            Some(previous) if previous != status => {}
            _ => return,
        }
        let snapshot: Vec<StatusListener> =
            self.inner.listeners.borrow().iter().map(|(_, listener)| listener.clone()).collect();
        for listener in snapshot {
            if let Err(error) = listener(status) {
                self.inner.host.error(&format!("Big Segment store status listener threw an error: {error}"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_gauge_says_available_stale_or_unavailable() {
        let status = |available, stale| super::BigSegmentStoreStatus { available, stale };
        assert_eq!(status(true, false).gauge(), 0.0);
        assert_eq!(status(true, true).gauge(), 1.0);
        assert_eq!(status(false, false).gauge(), 2.0);
        assert_eq!(status(false, true).gauge(), 2.0);
    }

    use super::*;
    use crate::host::Level;
    use crate::testing::TestHost;

    const OK: BigSegmentStoreStatus = BigSegmentStoreStatus { available: true, stale: false };
    const STALE: BigSegmentStoreStatus = BigSegmentStoreStatus { available: true, stale: true };
    const DOWN: BigSegmentStoreStatus = BigSegmentStoreStatus::UNAVAILABLE;

    type Calls = Rc<RefCell<Vec<(&'static str, BigSegmentStoreStatus)>>>;

    fn recorder(calls: &Calls, name: &'static str) -> StatusListener {
        let calls = calls.clone();
        Rc::new(move |s| {
            calls.borrow_mut().push((name, s));
            Ok(())
        })
    }

    #[test]
    fn staleness_from_metadata_boundary_and_missing_data() {
        let now = 1_000_000.0;
        let meta = |t: Option<f64>| StoreMetadata { last_up_to_date: t };
        let s = |m: Option<StoreMetadata>| BigSegmentStoreStatus::from_metadata(m.as_ref(), now, 1000.0);
        assert_eq!(s(Some(meta(Some(now - 999.0)))), OK);
        assert_eq!(s(Some(meta(Some(now - 1000.0)))), STALE, "age == staleAfter is stale");
        assert_eq!(s(Some(meta(Some(now - 5000.0)))), STALE);
        assert_eq!(s(Some(meta(Some(now + 50.0)))), OK, "a timestamp in the future is fresh");
        assert_eq!(s(Some(meta(None))), STALE, "no lastUpToDate");
        assert_eq!(s(None), STALE, "no metadata");
        assert_eq!(s(Some(meta(Some(f64::NAN)))), STALE, "garbage timestamp");
    }

    #[test]
    fn first_status_is_stored_silently() {
        let th = TestHost::new(1);
        let provider = StatusProvider::new(th.host.clone());
        let calls: Calls = Rc::default();
        provider.add_listener(recorder(&calls, "a"));
        assert_eq!(provider.last_status(), None);
        provider.update(DOWN);
        assert_eq!(provider.last_status(), Some(DOWN));
        assert!(calls.borrow().is_empty());
    }

    #[test]
    fn listeners_called_only_on_change_of_available_or_stale() {
        let th = TestHost::new(1);
        let provider = StatusProvider::new(th.host.clone());
        let calls: Calls = Rc::default();
        provider.add_listener(recorder(&calls, "a"));
        provider.update(OK);
        provider.update(OK);
        assert!(calls.borrow().is_empty());
        provider.update(STALE);
        provider.update(STALE);
        provider.update(DOWN);
        provider.update(DOWN);
        provider.update(OK);
        assert_eq!(*calls.borrow(), vec![("a", STALE), ("a", DOWN), ("a", OK)]);
    }

    #[test]
    fn listeners_called_in_order_added_and_see_new_last_status() {
        let th = TestHost::new(1);
        let provider = StatusProvider::new(th.host.clone());
        let calls: Calls = Rc::default();
        for name in ["first", "second", "third"] {
            provider.add_listener(recorder(&calls, name));
        }
        let seen = Rc::new(Cell::new(None));
        let (p, s) = (provider.clone(), seen.clone());
        provider.add_listener(Rc::new(move |_| {
            s.set(p.last_status());
            Ok(())
        }));
        provider.update(OK);
        provider.update(STALE);
        assert_eq!(*calls.borrow(), vec![("first", STALE), ("second", STALE), ("third", STALE)]);
        assert_eq!(seen.get(), Some(STALE));
    }

    #[test]
    fn listener_added_during_notification_is_called_from_next_change() {
        let th = TestHost::new(1);
        let provider = StatusProvider::new(th.host.clone());
        let calls: Calls = Rc::default();
        let added = Rc::new(Cell::new(false));
        let (p, c, a) = (provider.clone(), calls.clone(), added.clone());
        provider.add_listener(Rc::new(move |_| {
            if !a.replace(true) {
                p.add_listener(recorder(&c, "late"));
            }
            Ok(())
        }));
        provider.update(OK);
        provider.update(STALE);
        assert!(calls.borrow().is_empty(), "not called for the change that added it");
        assert_eq!(provider.listener_count(), 2);
        provider.update(OK);
        assert_eq!(*calls.borrow(), vec![("late", OK)]);
    }

    #[test]
    fn listener_removed_during_notification_does_not_stop_others() {
        let th = TestHost::new(1);
        let provider = StatusProvider::new(th.host.clone());
        let calls: Calls = Rc::default();
        let victim = Rc::new(Cell::new(None));
        let (p, v) = (provider.clone(), victim.clone());
        provider.add_listener(Rc::new(move |_| {
            if let Some(id) = v.get() {
                assert!(p.remove_listener(id));
            }
            Ok(())
        }));
        victim.set(Some(provider.add_listener(recorder(&calls, "victim"))));
        provider.add_listener(recorder(&calls, "after"));
        provider.update(OK);
        provider.update(STALE);
        // snapshot semantics: this round still calls everyone registered when it started
        assert_eq!(*calls.borrow(), vec![("victim", STALE), ("after", STALE)]);
        victim.set(None);
        provider.update(OK);
        assert_eq!(*calls.borrow(), vec![("victim", STALE), ("after", STALE), ("after", OK)]);
    }

    #[test]
    fn failing_listener_is_logged_and_others_still_run() {
        let th = TestHost::new(1);
        let provider = StatusProvider::new(th.host.clone());
        let calls: Calls = Rc::default();
        provider.add_listener(recorder(&calls, "before"));
        provider.add_listener(Rc::new(|_| Err("kaboom".to_string())));
        provider.add_listener(recorder(&calls, "after"));
        provider.update(OK);
        provider.update(DOWN);
        assert_eq!(*calls.borrow(), vec![("before", DOWN), ("after", DOWN)]);
        let errors = th.logger.messages(Level::Error);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].contains("kaboom"), "{errors:?}");
    }

    #[test]
    fn removed_listener_is_not_called_and_unknown_id_is_reported() {
        let th = TestHost::new(1);
        let provider = StatusProvider::new(th.host.clone());
        let calls: Calls = Rc::default();
        let id = provider.add_listener(recorder(&calls, "a"));
        provider.add_listener(recorder(&calls, "b"));
        assert!(provider.remove_listener(id));
        assert!(!provider.remove_listener(id));
        provider.update(OK);
        provider.update(DOWN);
        assert_eq!(*calls.borrow(), vec![("b", DOWN)]);
    }
}
