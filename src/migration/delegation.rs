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

/// One measurement of an operation, kept for a flag system's tracker until the operation ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Measurement {
    /// `tracker.op(operation)`.
    Op(Operation),
    /// One origin call: `invoked(origin)`, then `latency(origin, ms)` when given, then
    /// `error(origin)` when it failed.
    Call { origin: Origin, latency_ms: Option<f64>, failed: bool },
}

/// What settling a flag system's tracker came to.
pub struct Settled<V> {
    /// Whether `createEvent()` made an event (then it was handed to the client).
    pub made_event: bool,
    /// What threw, in order, by the name of the method that threw it (a tracker method's, or
    /// [`SEND_METHOD`] for the client's).
    pub thrown: Vec<(&'static str, V)>,
}

/// The client method a tracker's event is handed to.
pub const SEND_METHOD: &str = "trackMigrationOp";

/// The flag system's tracker (LaunchDarkly's `LDMigrationTracker` shape). Every method may fail
/// with a host value (a JavaScript throw); cutover logs that and goes on.
///
/// Its measurements are kept in the core and handed over together when the operation ends
/// ([`Self::settle`]): one crossing into JavaScript instead of one per method (a shadow read
/// through LaunchDarkly's client went from 12 crossings to 8; issue 32).
pub trait ExternalTracker<V> {
    /// The tracker decides whether to sample, and calls `check` if it does.
    fn consistency(&self, check: Box<dyn FnMut() -> Result<bool, V>>) -> Result<(), V>;
    /// Runs the host's own comparison function through the tracker's `consistency` in one go:
    /// `None` when this tracker cannot (then [`Self::consistency`] gets a check to call);
    /// otherwise what the comparison answered, if the tracker ran it and it did not throw, or
    /// what the tracker threw.
    fn consistency_of(&self, _comparison: &V, _old: &V, _new: &V) -> Option<Result<Option<bool>, V>> {
        None
    }
    /// Replays `measurements` onto the tracker in order, each method on its own (one that throws
    /// does not stop the rest), then asks it for its event (`createEvent()`) and hands that to the
    /// flag client's [`SEND_METHOD`].
    fn settle(&self, measurements: &[Measurement]) -> Settled<V>;
    /// The tracker object itself, to hand back to callers of `migrationVariation`.
    fn handle(&self) -> V;
}

/// A flag system's tracker and the measurements kept for it.
pub struct ExternalTracking<V> {
    tracker: Box<dyn ExternalTracker<V>>,
    /// An operation, two origin calls and room for one more: no allocation past the first.
    measurements: Vec<Measurement>,
}

impl<V> ExternalTracking<V> {
    pub fn new(tracker: Box<dyn ExternalTracker<V>>) -> Self {
        ExternalTracking { tracker, measurements: Vec::with_capacity(4) }
    }

    pub fn tracker(&self) -> &dyn ExternalTracker<V> {
        &*self.tracker
    }
}

/// The tracker of one operation.
pub enum Tracking<V> {
    Own(OpTracker<V>),
    External(ExternalTracking<V>),
}

impl<V: HostValue> Tracking<V> {
    fn guard(host: &Host, method: &str, result: Result<(), V>) {
        if let Err(e) = result {
            host.error(&format!("migration tracker method {method}() threw: {}", e.describe()));
        }
    }

    pub fn op(&mut self, op: Operation) {
        match self {
            Tracking::Own(t) => t.operation(op),
            Tracking::External(t) => t.measurements.push(Measurement::Op(op)),
        }
    }

    /// An origin call's bookkeeping (SPEC A4): invoked, its latency when latency tracking is on,
    /// an error when it failed and error tracking is on.
    pub fn record_call(&mut self, origin: Origin, latency_ms: Option<f64>, failed: bool) {
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
            Tracking::External(t) => t.measurements.push(Measurement::Call { origin, latency_ms, failed }),
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
                let t = t.tracker();
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

    /// Ends the operation's tracking: cutover's own event, built and sampled, for the caller to
    /// send (`None`, with the reason logged, when there is none); a flag system's tracker gets its
    /// measurements, makes its event and sends it itself (what it threw logged), so `None`.
    pub fn finish(self, host: &Host) -> Option<MigrationOpEvent<V>> {
        match self {
            Tracking::Own(t) => match t.build(host.clock.epoch_ms()) {
                Ok(event) => host.sample(t.evaluation().sampling_ratio).then_some(event),
                Err(e) => {
                    host.error(&format!("error generating migration op event {e}; no event will be emitted"));
                    None
                }
            },
            Tracking::External(t) => {
                let settled = t.tracker.settle(&t.measurements);
                for (method, e) in settled.thrown {
                    match method {
                        SEND_METHOD => host.error(&format!("{SEND_METHOD} threw: {}", e.describe())),
                        _ => Self::guard(host, method, Err(e)),
                    }
                }
                if !settled.made_event {
                    host.debug("the flag system's migration tracker made no event; nothing is sent");
                }
                None
            }
        }
    }
}
