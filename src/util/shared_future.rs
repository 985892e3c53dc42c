//! A future whose output every clone receives: single flight for store queries, status polls and
//! close. What `futures::FutureExt::shared` does, written for one thread — kept because
//! `futures::future::Shared` (futures-util 0.3.34) cannot run on this crate's executor:
//!
//! - Measured (issue 12): with `Shared` in `segments/cache.rs` and the manager, the package
//!   tests of Big Segments trap (`RuntimeError: unreachable`) at the first shared store query.
//!   `Shared`'s notifier wakes its waiters while it holds its waker-list `Mutex`
//!   (`Notifier::wake_by_ref`); `crate::util::task` polls a woken task inside the wake (that keeps
//!   every task in its caller's async context), so the woken task polls the `Shared` again and
//!   locks that `Mutex` a second time — on wasm32 without threads std's `Mutex` panics on a
//!   recursive lock (natively it would deadlock). This type takes the wakers out before waking.
//! - Size: `Shared` also cost +1,083 bytes of gzipped wasm (80,908 → 81,991 B).
//!
//! - The inner future runs once, polled by whichever clone is polled; it is woken through a
//!   waker that wakes every clone waiting, so it makes progress even if the clone that last
//!   polled it is dropped.
//! - Every clone gets a clone of the output, including clones polled after it finished.
//! - Dropping the last clone drops the inner future (cancelling what it was doing).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use futures::future::LocalBoxFuture;

enum State<T> {
    /// Not finished; the future is `None` while one clone is polling it.
    Running(Option<LocalBoxFuture<'static, T>>),
    Done(T),
}

/// Wakes every clone that waits.
#[derive(Default)]
struct Waiters(Mutex<Vec<Waker>>);

impl Waiters {
    fn add(&self, waker: &Waker) {
        if let Ok(mut wakers) = self.0.lock() {
            if !wakers.iter().any(|w| w.will_wake(waker)) {
                wakers.push(waker.clone());
            }
        }
    }
}

impl Wake for Waiters {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        let wakers = self.0.lock().map(|mut w| std::mem::take(&mut *w)).unwrap_or_default();
        for waker in wakers {
            waker.wake();
        }
    }
}

pub struct SharedFuture<T> {
    state: Rc<RefCell<State<T>>>,
    waiters: Arc<Waiters>,
}

impl<T> Clone for SharedFuture<T> {
    fn clone(&self) -> Self {
        SharedFuture { state: self.state.clone(), waiters: self.waiters.clone() }
    }
}

impl<T: Clone + 'static> SharedFuture<T> {
    pub fn new(future: impl Future<Output = T> + 'static) -> Self {
        SharedFuture { state: Rc::new(RefCell::new(State::Running(Some(Box::pin(future))))), waiters: Arc::default() }
    }
}

impl<T: Clone> Future for SharedFuture<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let taken = match &mut *self.state.borrow_mut() {
            State::Done(output) => return Poll::Ready(output.clone()),
            State::Running(future) => future.take(),
        };
        self.waiters.add(cx.waker());
        // Another clone is polling it right now (a nested poll): it will wake us.
        let Some(mut future) = taken else {
            return Poll::Pending;
        };
        // Polled outside the borrow: the inner future may poll other clones of this one.
        let waker = Waker::from(self.waiters.clone());
        match future.as_mut().poll(&mut Context::from_waker(&waker)) {
            Poll::Ready(output) => {
                *self.state.borrow_mut() = State::Done(output.clone());
                waker.wake_by_ref();
                Poll::Ready(output)
            }
            Poll::Pending => {
                *self.state.borrow_mut() = State::Running(Some(future));
                Poll::Pending
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::channel::oneshot;
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;
    use std::cell::Cell;

    #[test]
    fn every_clone_gets_the_output_and_the_inner_future_runs_once() {
        let runs = Rc::new(Cell::new(0));
        let (tx, rx) = oneshot::channel::<u32>();
        let counted = runs.clone();
        let shared = SharedFuture::new(async move {
            counted.set(counted.get() + 1);
            rx.await.unwrap_or(0)
        });
        let mut pool = LocalPool::new();
        let got = Rc::new(RefCell::new(Vec::new()));
        for _ in 0..3 {
            let (s, got) = (shared.clone(), got.clone());
            pool.spawner()
                .spawn_local(async move {
                    let v = s.await;
                    got.borrow_mut().push(v);
                })
                .unwrap();
        }
        pool.run_until_stalled();
        assert!(got.borrow().is_empty());
        tx.send(7).unwrap();
        pool.run_until_stalled();
        assert_eq!(*got.borrow(), vec![7, 7, 7]);
        assert_eq!(runs.get(), 1);
        // A clone polled after it finished gets the output at once.
        assert_eq!(pool.run_until(shared), 7);
    }

    #[test]
    fn waiters_polled_inside_the_wake_all_get_the_output() {
        // `crate::util::task` polls a woken task inside the wake, as in the JavaScript host.
        let (tx, rx) = oneshot::channel::<u32>();
        let shared = SharedFuture::new(async move { rx.await.unwrap_or(0) });
        let got = Rc::new(RefCell::new(Vec::new()));
        for _ in 0..3 {
            let (s, got) = (shared.clone(), got.clone());
            crate::util::task::spawn(async move {
                let v = s.await;
                got.borrow_mut().push(v);
            });
        }
        assert!(got.borrow().is_empty());
        tx.send(9).unwrap();
        assert_eq!(*got.borrow(), vec![9, 9, 9], "woken and finished inside the send");
    }

    #[test]
    fn progress_continues_when_the_clone_that_polled_it_is_dropped() {
        let (tx, rx) = oneshot::channel::<u32>();
        let shared = SharedFuture::new(async move { rx.await.unwrap_or(0) });
        let mut pool = LocalPool::new();
        let first = shared.clone();
        let handle = pool.spawner().spawn_local_with_handle(first).unwrap();
        pool.run_until_stalled();
        drop(handle); // the clone that polled the inner future is gone
        let got = Rc::new(Cell::new(0));
        let (second, out) = (shared.clone(), got.clone());
        pool.spawner().spawn_local(async move { out.set(second.await) }).unwrap();
        pool.run_until_stalled();
        tx.send(5).unwrap();
        pool.run_until_stalled();
        assert_eq!(got.get(), 5);
    }

    #[test]
    fn dropping_every_clone_drops_the_inner_future() {
        struct Flag(Rc<Cell<bool>>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.set(true);
            }
        }
        let dropped = Rc::new(Cell::new(false));
        let flag = Flag(dropped.clone());
        let shared = SharedFuture::new(async move {
            let _flag = flag;
            futures::future::pending::<u32>().await
        });
        let mut pool = LocalPool::new();
        pool.spawner().spawn_local_with_handle(shared.clone()).map(drop).unwrap();
        pool.run_until_stalled();
        assert!(!dropped.get());
        drop(shared);
        pool.run_until_stalled();
        assert!(dropped.get());
    }
}
