//! The background parts of a migrator's operations (API §1 "Shadowing in production"): how many
//! are running, whether a new one may start (`maxInFlight`), and `settled()`.
//!
//! A background part is what an operation goes on doing after its caller got the authoritative
//! result: the other origin, the comparison, the statistics and the one event. It is counted from
//! the moment it is known to exist (a parallel read: when both origins start; a serial read or a
//! write: when the authoritative origin has settled) until the operation has sent its event.

use std::cell::{Cell, RefCell};
use std::future::{self, Future};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// The most background parts a migrator runs at once when `background()` names no
/// `maxInFlight` (API §1).
pub const DEFAULT_MAX_IN_FLIGHT: u32 = 100;

#[derive(Default)]
struct Running {
    /// The parts running now, by the number each got when it started (numbers only grow), in no
    /// order: at most `maxInFlight` of them, and the vector keeps its capacity, so a part costs
    /// no allocation (a `BTreeSet` allocated a node whenever it went from empty to one part:
    /// part of the +17 % per operation background mode first cost in
    /// `shadow-read-parallel-fixedstage`). The oldest is looked for only when a `settled()` waits.
    ids: Vec<u64>,
    /// The number the next part gets.
    next_id: u64,
    /// `settled()` calls still waiting: each for every part numbered below its mark.
    waiters: Vec<(u64, Rc<Waiter>)>,
}

/// One `settled()` call's wait. (Not a `futures` oneshot channel: that one is thread-safe, and
/// brought its atomics into the wasm: 389 B gzipped.)
#[derive(Default)]
struct Waiter {
    ended: Cell<bool>,
    waker: RefCell<Option<Waker>>,
}

impl Waiter {
    fn end(&self) {
        self.ended.set(true);
        let waker = self.waker.borrow_mut().take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// Resolves when its waiter ended; a waiter that is dropped unended (the migrator is gone) ends
/// the wait too.
struct Settled(Rc<Waiter>);

impl Future for Settled {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0.ended.get() || Rc::strong_count(&self.0) == 1 {
            return Poll::Ready(());
        }
        *self.0.waker.borrow_mut() = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// The running background parts of one migrator.
pub struct BackgroundParts {
    max_in_flight: u32,
    running: RefCell<Running>,
}

/// One running background part; it ends when dropped (also when its operation is dropped).
pub struct Part<'a> {
    parts: &'a BackgroundParts,
    id: u64,
}

impl BackgroundParts {
    pub fn new(max_in_flight: u32) -> Self {
        BackgroundParts { max_in_flight, running: RefCell::default() }
    }

    /// How many parts are running.
    pub fn in_flight(&self) -> usize {
        self.running.borrow().ids.len()
    }

    /// Starts a part, or `None` when `maxInFlight` parts are running (the operation is shed).
    pub fn try_start(&self) -> Option<Part<'_>> {
        let mut running = self.running.borrow_mut();
        if running.ids.len() >= self.max_in_flight as usize {
            return None;
        }
        let id = running.next_id;
        running.next_id += 1;
        running.ids.push(id);
        Some(Part { parts: self, id })
    }

    /// Resolves when every part started before this call has ended: at once when none is running.
    pub fn settled(&self) -> impl Future<Output = ()> + 'static {
        let mut running = self.running.borrow_mut();
        let mark = running.next_id;
        if running.ids.is_empty() {
            return futures::future::Either::Left(future::ready(()));
        }
        let waiter = Rc::new(Waiter::default());
        running.waiters.push((mark, waiter.clone()));
        futures::future::Either::Right(Settled(waiter))
    }

    fn end(&self, id: u64) {
        let ready = {
            let mut running = self.running.borrow_mut();
            if let Some(at) = running.ids.iter().position(|running| *running == id) {
                running.ids.swap_remove(at);
            }
            if running.waiters.is_empty() {
                return;
            }
            let oldest = running.ids.iter().copied().min().unwrap_or(u64::MAX);
            let (ready, waiting) =
                std::mem::take(&mut running.waiters).into_iter().partition(|(mark, _)| *mark <= oldest);
            running.waiters = waiting;
            ready
        };
        // Outside the borrow: a waiter's task may be polled right here and start new parts.
        for (_, waiter) in ready {
            waiter.end();
        }
    }
}

impl Drop for Running {
    /// A migrator that is dropped with `settled()` calls waiting ends their wait.
    fn drop(&mut self) {
        for (_, waiter) in self.waiters.drain(..) {
            waiter.end();
        }
    }
}

impl Drop for Part<'_> {
    fn drop(&mut self) {
        self.parts.end(self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

    #[test]
    fn at_most_max_in_flight_parts_run_and_an_ended_one_frees_its_place() {
        let parts = BackgroundParts::new(2);
        let a = parts.try_start().unwrap();
        let b = parts.try_start().unwrap();
        assert!(parts.try_start().is_none(), "a third part is shed");
        assert_eq!(parts.in_flight(), 2);
        drop(a);
        let c = parts.try_start().unwrap();
        assert!(parts.try_start().is_none());
        drop((b, c));
        assert_eq!(parts.in_flight(), 0);
    }

    #[test]
    fn settled_waits_only_for_parts_started_before_it() {
        let parts = BackgroundParts::new(10);
        assert!(parts.settled().now_or_never().is_some(), "nothing running: at once");
        let early = parts.try_start().unwrap();
        let mut first = Box::pin(parts.settled());
        let late = parts.try_start().unwrap();
        let mut second = Box::pin(parts.settled());
        assert!(first.as_mut().now_or_never().is_none());
        drop(early);
        assert!(first.as_mut().now_or_never().is_some(), "the part before it ended; the later one does not count");
        assert!(second.as_mut().now_or_never().is_none());
        drop(late);
        assert!(second.now_or_never().is_some());
    }

    #[test]
    fn settled_waits_for_the_oldest_part_whatever_order_they_end_in() {
        let parts = BackgroundParts::new(10);
        let a = parts.try_start().unwrap();
        let b = parts.try_start().unwrap();
        let mut settled = Box::pin(parts.settled());
        drop(b);
        assert!(settled.as_mut().now_or_never().is_none(), "a is still running");
        drop(a);
        assert!(settled.now_or_never().is_some());
    }
}
