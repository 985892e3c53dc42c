//! Runs each task where it is woken: no executor queue between a wake and the poll.
//!
//! An executor that queues woken tasks and drains them from one scheduled callback (what
//! `wasm_bindgen_futures::spawn_local` does with a microtask) runs every task it drains in the
//! host's async context of whoever scheduled that callback — in Node, one request's
//! `AsyncLocalStorage` store leaks into another request's origins. Here a task is polled at once:
//! first inside [`spawn`], then inside whatever wakes it. A host that only wakes a task from
//! callbacks that run in the task's own async context (promise reactions and timers registered
//! while the task was being polled) therefore keeps every task in the context it was spawned in,
//! and an operation costs no executor hop. (This is why the crate does not use
//! wasm-bindgen-futures: its queue put three concurrent operations' origins in the first one's
//! `AsyncLocalStorage` store, and cost two crossings and a microtask per operation.)
//!
//! Re-entrancy: a wake that arrives while the task is being polled (its own poll settled
//! something synchronously) marks it to be polled again once the current poll returns; a wake of
//! another task polls that task right there, nested; a wake of a finished task's slot is ignored,
//! or polls the slot's next task once more than needed, which futures allow.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Wake, Waker};

type Task = Pin<Box<dyn Future<Output = ()>>>;

enum Slot {
    /// Waiting for a wake.
    Idle(Task),
    /// Being polled; `woken` when a wake arrived meanwhile.
    Polling {
        woken: bool,
    },
    Free,
}

/// A slot and the waker of whichever task holds it. The waker is made once per slot and kept:
/// a stale wake (from a finished task's leftover waker) at worst polls the slot's next task
/// once more than needed, which futures allow, and a task costs no waker allocation.
struct Entry {
    slot: Slot,
    waker: Waker,
}

#[derive(Default)]
struct Tasks {
    slots: Vec<Entry>,
    free: Vec<usize>,
}

thread_local! {
    static TASKS: RefCell<Tasks> = RefCell::default();
}

/// Names one task slot.
struct TaskWaker {
    index: usize,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        run(self.index);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        run(self.index);
    }
}

/// Starts `task`: polls it now, then wherever it is woken, until it completes.
pub fn spawn(task: impl Future<Output = ()> + 'static) {
    let task: Task = Box::pin(task);
    let taken = TASKS.with(|t| {
        let mut t = t.borrow_mut();
        let polling = Slot::Polling { woken: false };
        if let Some(index) = t.free.pop() {
            if let Some(entry) = t.slots.get_mut(index) {
                entry.slot = polling;
                return (index, entry.waker.clone());
            }
        }
        let index = t.slots.len();
        let waker = Waker::from(Arc::new(TaskWaker { index }));
        t.slots.push(Entry { slot: polling, waker: waker.clone() });
        (index, waker)
    });
    let (index, waker) = taken;
    drive(index, task, &waker);
}

/// Polls the task in slot `index` unless it is being polled already (then it is marked to be
/// polled again) or the slot is free.
fn run(index: usize) {
    let taken = TASKS.with(|t| {
        let mut t = t.borrow_mut();
        let entry = t.slots.get_mut(index)?;
        match std::mem::replace(&mut entry.slot, Slot::Polling { woken: false }) {
            Slot::Idle(task) => Some((task, entry.waker.clone())),
            Slot::Polling { .. } => {
                entry.slot = Slot::Polling { woken: true };
                None
            }
            Slot::Free => {
                entry.slot = Slot::Free;
                None
            }
        }
    });
    if let Some((task, waker)) = taken {
        drive(index, task, &waker);
    }
}

/// Polls until the task completes or waits with no wake pending; the slot is `Polling` meanwhile
/// and no borrow of the task table is held while the task runs.
fn drive(index: usize, mut task: Task, waker: &Waker) {
    loop {
        let ready = task.as_mut().poll(&mut Context::from_waker(waker)).is_ready();
        let again = TASKS.with(|t| {
            let mut t = t.borrow_mut();
            let Some(entry) = t.slots.get_mut(index) else { return false };
            let woken = matches!(entry.slot, Slot::Polling { woken: true });
            if ready {
                entry.slot = Slot::Free;
                t.free.push(index);
                return false;
            }
            entry.slot = Slot::Polling { woken: false };
            woken
        });
        if ready {
            // Dropped outside the table's borrow: its drop may wake or spawn other tasks.
            drop(task);
            return;
        }
        if !again {
            break;
        }
    }
    TASKS.with(|t| {
        if let Some(entry) = t.borrow_mut().slots.get_mut(index) {
            entry.slot = Slot::Idle(task);
        }
    });
}

/// Tasks spawned and not finished (for tests and leak checks).
pub fn pending() -> usize {
    TASKS.with(|t| t.borrow().slots.iter().filter(|e| !matches!(e.slot, Slot::Free)).count())
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::channel::oneshot;
    use std::cell::Cell;
    use std::rc::Rc;
    use std::task::Poll;

    #[test]
    fn a_ready_task_completes_inside_spawn() {
        let done = Rc::new(Cell::new(false));
        let d = done.clone();
        spawn(async move { d.set(true) });
        assert!(done.get());
        assert_eq!(pending(), 0);
    }

    #[test]
    fn a_waiting_task_runs_inside_the_wake() {
        let (tx, rx) = oneshot::channel::<u32>();
        let seen = Rc::new(Cell::new(0));
        let s = seen.clone();
        spawn(async move { s.set(rx.await.unwrap_or(0)) });
        assert_eq!(seen.get(), 0);
        assert_eq!(pending(), 1);
        tx.send(7).unwrap();
        assert_eq!(seen.get(), 7, "polled inside send(), no executor in between");
        assert_eq!(pending(), 0);
    }

    #[test]
    fn a_wake_during_its_own_poll_polls_again() {
        // The task wakes itself while being polled (as a promise that settles synchronously does).
        let polls = Rc::new(Cell::new(0));
        let p = polls.clone();
        spawn(futures::future::poll_fn(move |cx| {
            p.set(p.get() + 1);
            if p.get() < 3 {
                cx.waker().wake_by_ref();
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        }));
        assert_eq!(polls.get(), 3);
        assert_eq!(pending(), 0);
    }

    #[test]
    fn a_task_woken_by_another_task_runs_nested_and_stale_wakes_are_harmless() {
        let (tx, rx) = oneshot::channel::<()>();
        let order = Rc::new(RefCell::new(Vec::new()));
        let o = order.clone();
        spawn(async move {
            let _ = rx.await;
            o.borrow_mut().push("b");
        });
        let (go_tx, go_rx) = oneshot::channel::<()>();
        let o = order.clone();
        spawn(async move {
            let _ = go_rx.await;
            o.borrow_mut().push("a1");
            let _ = tx.send(());
            o.borrow_mut().push("a2");
        });
        go_tx.send(()).unwrap();
        assert_eq!(*order.borrow(), ["a1", "b", "a2"]);
        // Slots are reused; an old waker for a finished task must not poll the new one.
        let (tx2, rx2) = oneshot::channel::<()>();
        let hit = Rc::new(Cell::new(false));
        let h = hit.clone();
        spawn(async move {
            let _ = rx2.await;
            h.set(true);
        });
        // A leftover waker of a finished task may poll the slot's new task once more: harmless.
        for index in 0..3 {
            Waker::from(Arc::new(TaskWaker { index })).wake_by_ref();
        }
        assert!(!hit.get());
        tx2.send(()).unwrap();
        assert!(hit.get());
        assert_eq!(pending(), 0);
    }

    #[test]
    fn spawning_from_inside_a_task_runs_the_new_task_at_once() {
        let order = Rc::new(RefCell::new(Vec::new()));
        let o = order.clone();
        spawn(async move {
            o.borrow_mut().push(1);
            let inner = o.clone();
            spawn(async move { inner.borrow_mut().push(2) });
            o.borrow_mut().push(3);
        });
        assert_eq!(*order.borrow(), [1, 2, 3]);
    }
}
