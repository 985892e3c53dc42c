//! Waiting slots: a table the host reports outcomes into by number, and a future per slot.
//!
//! The host cannot hold a Rust waker, so each wait gets a slot id that the host's callback
//! reports to ([`deliver`]). Slots live in one table rather than behind a pointer each: an
//! operation waits on a few host promises, and an allocation per wait measured as a tenth of a
//! fixed-stage read. An id is freed only when its report arrived or none can come, so it is never
//! reused while the host may still report on it: a wait dropped first leaves its slot
//! `Abandoned`, freed by the late report, unless its cleanup ruled a report out (a stopped timer).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::thread::LocalKey;

enum Slot<R> {
    Free,
    /// A `Wait` holds it; the report lands here.
    Waiting {
        report: Option<R>,
        waker: Option<Waker>,
    },
    /// Its `Wait` was dropped; the id is freed when the report arrives.
    Abandoned,
}

/// The table of slots (one per kind of report, in a thread-local).
pub struct Slots<R> {
    slots: Vec<Slot<R>>,
    free: Vec<u32>,
}

/// A table of slots, as a thread-local holds it.
pub type SlotTable<R> = LocalKey<RefCell<Slots<R>>>;

impl<R> Slots<R> {
    pub const fn new() -> Self {
        Slots { slots: Vec::new(), free: Vec::new() }
    }

    fn release(&mut self, id: u32) {
        if let Some(slot) = self.slots.get_mut(id as usize) {
            if !matches!(slot, Slot::Free) {
                *slot = Slot::Free;
                self.free.push(id);
            }
        }
    }

    /// Slots in use (waiting or abandoned).
    pub fn in_use(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

impl<R> Default for Slots<R> {
    fn default() -> Self {
        Self::new()
    }
}

/// Puts `report` in slot `id` and wakes its task; a report for an abandoned slot frees it, and
/// one for a slot that waits for nothing is dropped.
pub fn deliver<R>(table: &'static SlotTable<R>, id: u32, report: R) {
    let waker = table.with(|t| {
        let mut t = t.borrow_mut();
        match t.slots.get_mut(id as usize) {
            Some(Slot::Waiting { report: slot, waker }) => {
                *slot = Some(report);
                waker.take()
            }
            Some(Slot::Abandoned) => {
                t.release(id);
                None
            }
            _ => None,
        }
    });
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// A future for one report to its slot. Dropped before the report, it runs its cleanup.
pub struct Wait<R: 'static> {
    table: &'static SlotTable<R>,
    id: u32,
    done: bool,
    /// Returns whether it ruled out a later report (then the id may be reused at once).
    cleanup: Option<Box<dyn FnOnce() -> bool>>,
}

impl<R: 'static> Wait<R> {
    /// A new waiting slot in `table`; its id is what the host reports to.
    pub fn new(table: &'static SlotTable<R>) -> Self {
        let id = table.with(|t| {
            let mut t = t.borrow_mut();
            let waiting = Slot::Waiting { report: None, waker: None };
            match t.free.pop() {
                Some(id) => {
                    if let Some(slot) = t.slots.get_mut(id as usize) {
                        *slot = waiting;
                    }
                    id
                }
                None => {
                    t.slots.push(waiting);
                    u32::try_from(t.slots.len() - 1).unwrap_or(u32::MAX)
                }
            }
        });
        Wait { table, id, done: false, cleanup: None }
    }

    pub fn id(&self) -> u32 {
        self.id
    }

    /// Runs `cleanup` if this wait is dropped before its report arrives; it returns whether it
    /// ruled out a later report (a stopped timer, a relay removed before it fired).
    pub fn on_cancel(mut self, cleanup: impl FnOnce() -> bool + 'static) -> Self {
        self.cleanup = Some(Box::new(cleanup));
        self
    }

    /// Gives the slot up when nothing reported or will report to it (the host answered
    /// synchronously by other means).
    pub fn release(mut self) {
        self.done = true;
        self.table.with(|t| t.borrow_mut().release(self.id));
    }

    /// The report, if it already arrived (a host call that reported synchronously).
    pub fn take_report(&mut self) -> Option<R> {
        let id = self.id;
        let report = self.table.with(|t| {
            let mut t = t.borrow_mut();
            let report = match t.slots.get_mut(id as usize) {
                Some(Slot::Waiting { report, .. }) => report.take(),
                _ => None,
            }?;
            t.release(id);
            Some(report)
        })?;
        self.done = true;
        Some(report)
    }

    fn register(&self, cx: &Context<'_>) {
        self.table.with(|t| {
            if let Some(Slot::Waiting { waker, .. }) = t.borrow_mut().slots.get_mut(self.id as usize) {
                match waker {
                    Some(w) if w.will_wake(cx.waker()) => {}
                    _ => *waker = Some(cx.waker().clone()),
                }
            }
        });
    }
}

impl<R: 'static> Future for Wait<R> {
    type Output = R;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<R> {
        if let Some(report) = self.take_report() {
            return Poll::Ready(report);
        }
        self.register(cx);
        Poll::Pending
    }
}

impl<R: 'static> Drop for Wait<R> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let silenced = self.cleanup.take().is_some_and(|cleanup| cleanup());
        let id = self.id;
        self.table.with(|t| {
            let mut t = t.borrow_mut();
            let reported = matches!(t.slots.get(id as usize), Some(Slot::Waiting { report: Some(_), .. }));
            if silenced || reported {
                t.release(id);
            } else if let Some(slot) = t.slots.get_mut(id as usize) {
                *slot = Slot::Abandoned;
            }
        });
    }
}

#[cfg(test)]
#[path = "slots_tests.rs"]
mod tests;
