//! Where an operation's measurements go: cutover's own [`OpTracker`], or the flag system's own
//! tracker when the evaluation carried one (SPEC A9, tracker delegation).

use std::cell::Cell;
use std::rc::Rc;

use super::event::MigrationOpEvent;
use super::op_tracker::OpTracker;
use super::origin::Comparison;
use super::stage::{Operation, Origin};
use crate::diff::Explanation;
use crate::host::{Host, HostValue};

/// The flag system's tracker (LaunchDarkly's `LDMigrationTracker` shape). Every method may fail
/// with a host value (a JavaScript throw); cutover logs that and goes on.
pub trait ExternalTracker<V> {
    fn op(&self, op: Operation) -> Result<(), V>;
    fn invoked(&self, origin: Origin) -> Result<(), V>;
    fn latency(&self, origin: Origin, ms: f64) -> Result<(), V>;
    fn error(&self, origin: Origin) -> Result<(), V>;
    /// One origin call's measurements in this order: `invoked`, `latency` (when given), `error`
    /// (when the call failed). Returns what each method that threw threw, by method name. Hosts
    /// may make the three calls in one go.
    fn record_call(&self, origin: Origin, latency_ms: Option<f64>, failed: bool) -> Vec<(&'static str, V)> {
        let mut thrown = Vec::new();
        if let Err(e) = self.invoked(origin) {
            thrown.push(("invoked", e));
        }
        if let Some(ms) = latency_ms {
            if let Err(e) = self.latency(origin, ms) {
                thrown.push(("latency", e));
            }
        }
        if failed {
            if let Err(e) = self.error(origin) {
                thrown.push(("error", e));
            }
        }
        thrown
    }
    /// The tracker decides whether to sample, and calls `check` if it does.
    fn consistency(&self, check: Box<dyn FnMut() -> Result<bool, V>>) -> Result<(), V>;
    /// Runs the host's own comparison function through the tracker's `consistency` in one go:
    /// `None` when this tracker cannot (then [`Self::consistency`] gets a check to call);
    /// otherwise what the comparison answered, if the tracker ran it and it did not throw, or
    /// what the tracker threw.
    fn consistency_of(&self, _comparison: &V, _old: &V, _new: &V) -> Option<Result<Option<bool>, V>> {
        None
    }
    /// The event to send, if the tracker made one.
    fn create_event(&self) -> Result<Option<V>, V>;
    /// The tracker object itself, to hand back to callers of `migrationVariation`.
    fn handle(&self) -> V;
}

/// An event ready for `trackMigrationOp`.
pub enum OutgoingEvent<V> {
    /// Built by cutover's own tracker, in wire format.
    Own(MigrationOpEvent<V>),
    /// Made by the flag system's tracker; passed on untouched.
    External(V),
}

/// The tracker of one operation.
pub enum Tracking<V> {
    Own(OpTracker<V>),
    External(Box<dyn ExternalTracker<V>>),
}

impl<V: HostValue> Tracking<V> {
    fn guard(host: &Host, method: &str, result: Result<(), V>) {
        if let Err(e) = result {
            host.error(&format!("migration tracker method {method}() threw: {}", e.describe()));
        }
    }

    pub fn op(&mut self, host: &Host, op: Operation) {
        match self {
            Tracking::Own(t) => t.operation(op),
            Tracking::External(t) => Self::guard(host, "op", t.op(op)),
        }
    }

    pub fn invoked(&mut self, host: &Host, origin: Origin) {
        match self {
            Tracking::Own(t) => t.invoked(origin),
            Tracking::External(t) => Self::guard(host, "invoked", t.invoked(origin)),
        }
    }

    pub fn latency(&mut self, host: &Host, origin: Origin, ms: f64) {
        match self {
            // A latency the host measured is finite and ≥ 0; one that is not (a clock that went
            // back) is dropped, as `OpTracker::latency` refuses it.
            Tracking::Own(t) => {
                let _ = t.latency(origin, ms);
            }
            Tracking::External(t) => Self::guard(host, "latency", t.latency(origin, ms)),
        }
    }

    /// An origin call's bookkeeping (SPEC A4): invoked, its latency when latency tracking is on,
    /// an error when it failed and error tracking is on.
    pub fn record_call(&mut self, host: &Host, origin: Origin, latency_ms: Option<f64>, failed: bool) {
        match self {
            Tracking::Own(t) => {
                t.invoked(origin);
                if let Some(ms) = latency_ms {
                    let _ = t.latency(origin, ms);
                }
                if failed {
                    t.error(origin);
                }
            }
            Tracking::External(t) => {
                for (method, e) in t.record_call(origin, latency_ms, failed) {
                    Self::guard(host, method, Err(e));
                }
            }
        }
    }

    pub fn error(&mut self, host: &Host, origin: Origin) {
        match self {
            Tracking::Own(t) => t.error(origin),
            Tracking::External(t) => Self::guard(host, "error", t.error(origin)),
        }
    }

    /// As [`Self::consistency`], with `mismatches()`: cutover's own tracker lets the comparison
    /// explain a mismatch in the same pass (`Comparison::compare_explained`); a flag system's
    /// tracker runs the comparison itself, so its mismatches are explained afterwards (`None`).
    pub fn consistency_explained(
        &mut self,
        host: &Host,
        comparison: &Rc<dyn Comparison<V>>,
        (old, new): (&V, &V),
        max_differences: usize,
    ) -> (Option<bool>, Option<Explanation<V>>) {
        match self {
            Tracking::Own(t) => {
                let mut explanation = None;
                let answer = t.consistent(host, || {
                    comparison.compare_explained(old, new, max_differences).map(|(same, found)| {
                        explanation = found;
                        same
                    })
                });
                (answer, explanation)
            }
            Tracking::External(_) => (self.consistency(host, comparison, old, new), None),
        }
    }

    /// Runs the consistency check if the tracker samples it. Returns the comparison's answer
    /// when it ran and did not fail.
    pub fn consistency(&mut self, host: &Host, comparison: &Rc<dyn Comparison<V>>, old: &V, new: &V) -> Option<bool> {
        match self {
            Tracking::Own(t) => t.consistent(host, || comparison.compare(old, new)),
            Tracking::External(t) => {
                if let Some(direct) = comparison.handle().and_then(|f| t.consistency_of(f, old, new)) {
                    return match direct {
                        Ok(answer) => answer,
                        Err(e) => {
                            Self::guard(host, "consistency", Err(e));
                            None
                        }
                    };
                }
                let (comparison, old, new) = (comparison.clone(), old.clone(), new.clone());
                let check = move || comparison.compare(&old, &new);
                let answer = Rc::new(Cell::new(None));
                let seen = answer.clone();
                // A failing check is handed back to the tracker, which logs it and records
                // nothing (LaunchDarkly's does); one that lets it escape is logged by `guard`.
                let counted = move || {
                    let result = check();
                    if let Ok(v) = &result {
                        seen.set(Some(*v));
                    }
                    result
                };
                Self::guard(host, "consistency", t.consistency(Box::new(counted)));
                answer.get()
            }
        }
    }

    /// The event to send, already sampled; `None` (with the reason logged) when there is none.
    pub fn finish(&self, host: &Host) -> Option<OutgoingEvent<V>> {
        match self {
            Tracking::Own(t) => match t.build(host.clock.epoch_ms()) {
                Ok(event) => host.sample(t.evaluation().sampling_ratio).then_some(OutgoingEvent::Own(event)),
                Err(e) => {
                    host.error(&format!("error generating migration op event {e}; no event will be emitted"));
                    None
                }
            },
            Tracking::External(t) => match t.create_event() {
                Ok(Some(event)) => Some(OutgoingEvent::External(event)),
                Ok(None) => {
                    host.debug("the flag system's migration tracker made no event; nothing is sent");
                    None
                }
                Err(e) => {
                    host.error(&format!("migration tracker method createEvent() threw: {}", e.describe()));
                    None
                }
            },
        }
    }
}
