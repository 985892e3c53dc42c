//! Guardrails (API §1): a circuit breaker on the new origin, one per flag key. It counts the new
//! origin's outcomes over a sliding window and, when a bound is exceeded, makes the old origin
//! authoritative until a cooldown has passed and probing has found the new one healthy again.
//!
//! - `settings.rs`: the options and their defaults; `window.rs`: the bucketed window;
//!   `breaker.rs`: one flag key's states and routes; `table.rs`: the keys, least recently used
//!   dropped.
//! - Every change is reported here, once: a warning in the log, the metrics, `onChange` — after
//!   every borrow is released, so a listener or logger may call back into the migrator.

mod breaker;
mod settings;
mod table;
mod window;

#[cfg(test)]
mod tests;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

pub use breaker::{writes_old, FlagView, GuardState, Route, Transition, WindowFigures};
pub use settings::{GuardOptions, GuardSettings};
pub use table::MAX_FLAG_KEYS;
pub use window::Note;

use super::stage::{Operation, Origin, Stage};
use crate::host::Host;
use crate::metrics::{Attributes, Instrument};
use breaker::FlagGuard;
use table::GuardTable;

/// A change of a flag key's guard, as `onChange` receives it.
#[derive(Clone, Debug, PartialEq)]
pub struct GuardChange {
    pub flag_key: Rc<str>,
    pub transition: Transition,
}

/// `onChange`: told of every change in the caller's async context. An `Err` is what it threw,
/// described (logged, nothing more).
pub trait GuardListener {
    fn on_change(&self, change: &GuardChange) -> Result<(), String>;
}

/// `stats().guard`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GuardSnapshot {
    pub trips: u64,
    pub recoveries: u64,
    /// Operations whose origins the guard changed from the stage's plan: reads, writes.
    pub fallbacks: [u64; 2],
    /// Each flag key kept, in the order they came.
    pub flags: Vec<(Rc<str>, FlagView)>,
}

/// One operation's part in its flag key's guard: where its outcome goes, and the outcome noted
/// as its origins settle.
pub struct GuardedOp {
    guard: table::Shared,
    note: Cell<Note>,
}

impl GuardedOp {
    /// An origin call ended (`failed`: it threw, rejected, failed or timed out).
    pub fn note_call(&self, origin: Origin, failed: bool, latency_ms: f64) {
        let mut note = self.note.get();
        match origin {
            Origin::Old => note.old_ms = Some(latency_ms),
            Origin::New => {
                note.new_failed = Some(failed);
                note.new_ms = Some(latency_ms);
            }
        }
        self.note.set(note);
    }

    /// A consistency check ran.
    pub fn note_check(&self, consistent: bool) {
        let mut note = self.note.get();
        note.consistent = Some(consistent);
        self.note.set(note);
    }
}

#[derive(Clone, Copy, Default)]
struct Totals {
    trips: u64,
    recoveries: u64,
    fallbacks: [u64; 2],
}

pub struct Guard {
    settings: GuardSettings,
    table: RefCell<GuardTable>,
    totals: Cell<Totals>,
    listener: Option<Rc<dyn GuardListener>>,
}

impl Guard {
    pub fn new(settings: GuardSettings, listener: Option<Rc<dyn GuardListener>>) -> Self {
        Guard { settings, table: RefCell::default(), totals: Cell::default(), listener }
    }

    /// The route of an operation at `stage` that starts now, and its part in the guard.
    pub fn route(&self, host: &Host, flag_key: &Rc<str>, operation: Operation, stage: Stage) -> (Route, GuardedOp) {
        let settings = &self.settings;
        let guard = self.table.borrow_mut().entry(flag_key, || FlagGuard::new(settings, &*host.clock));
        let (route, turned) = guard.borrow_mut().route(settings, operation, &*host.clock);
        if route != Route::AsStaged && route.changes(stage, operation) {
            let mut totals = self.totals.get();
            if let Some(n) = totals.fallbacks.get_mut(operation as usize) {
                *n += 1;
            }
            self.totals.set(totals);
        }
        if let Some(transition) = turned {
            self.report(host, flag_key, transition);
        }
        (route, GuardedOp { guard, note: Cell::default() })
    }

    /// Counts a completed operation's outcome (an aborted one is never counted).
    pub fn record(&self, host: &Host, flag_key: &Rc<str>, op: &GuardedOp) {
        let transition = op.guard.borrow_mut().record(&self.settings, &op.note.get(), &*host.clock);
        if let Some(transition) = transition {
            self.report(host, flag_key, transition);
        }
    }

    /// Tells the log, the metrics and `onChange` of a change; no borrow is held.
    fn report(&self, host: &Host, flag_key: &Rc<str>, transition: Transition) {
        let mut totals = self.totals.get();
        match transition.to {
            GuardState::Tripped => totals.trips += 1,
            GuardState::Closed => totals.recoveries += 1,
            GuardState::Probing => {}
        }
        self.totals.set(totals);
        let (from, to) = (transition.from.as_str(), transition.to.as_str());
        host.warn(&format!(
            "migration guard of flag {}: {from} -> {to}: {}",
            crate::util::text::quoted(flag_key),
            transition.reason
        ));
        if let Some(metrics) = &host.metrics {
            let attributes = Attributes { flag_key: Some(flag_key), ..Attributes::default() }.with_guard_state(to);
            metrics.record(Instrument::GuardChanges, 1.0, &attributes);
        }
        if let Some(listener) = &self.listener {
            let change = GuardChange { flag_key: flag_key.clone(), transition };
            if let Err(thrown) = listener.on_change(&change) {
                host.error(&format!("guard: onChange threw: {thrown}"));
            }
        }
    }

    /// `Migrator#guard(flagKey)`: `None` for a key never seen (or dropped): closed.
    pub fn flag(&self, flag_key: &str) -> Option<FlagView> {
        self.table.borrow().get(flag_key).map(|guard| guard.borrow().view().clone())
    }

    pub fn snapshot(&self) -> GuardSnapshot {
        let totals = self.totals.get();
        let table = self.table.borrow();
        let flags = table.iter().map(|(key, guard)| (key.clone(), guard.borrow().view().clone())).collect();
        GuardSnapshot { trips: totals.trips, recoveries: totals.recoveries, fallbacks: totals.fallbacks, flags }
    }

    /// The state gauge's value for each flag key kept.
    pub fn gauges(&self) -> Vec<(Rc<str>, f64)> {
        self.table.borrow().iter().map(|(key, guard)| (key.clone(), guard.borrow().state().gauge())).collect()
    }

    /// `resetStats()`: the counts start again; the states stay.
    pub fn reset_counts(&self) {
        self.totals.set(Totals::default());
    }

    pub fn flag_keys(&self) -> usize {
        self.table.borrow().len()
    }
}
