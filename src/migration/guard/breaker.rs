//! One flag key's guard: closed → tripped → probing → closed (API §1 "Guardrails"), judged on
//! the outcomes its operations bring, with no timer: a trip turns to probing at the first
//! operation after `cooldownMs`.

use std::rc::Rc;

use super::settings::GuardSettings;
use super::window::{Note, Window};
use crate::host::Clock;
use crate::migration::stage::{Operation, Origin, ReadPlan, Stage, WritePlan};
use crate::util::text::number;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuardState {
    Closed,
    Tripped,
    Probing,
}

impl GuardState {
    pub fn as_str(self) -> &'static str {
        match self {
            GuardState::Closed => "closed",
            GuardState::Tripped => "tripped",
            GuardState::Probing => "probing",
        }
    }

    /// The value of the gauge `cutover.migration.guard.state`.
    pub fn gauge(self) -> f64 {
        match self {
            GuardState::Closed => 0.0,
            GuardState::Probing => 1.0,
            GuardState::Tripped => 2.0,
        }
    }
}

/// Which origins an operation runs, as the guard decides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The stage's own plan.
    AsStaged,
    /// The old origin is authoritative: reads call it alone, writes call it first.
    OldFirst,
    /// A probing read: both origins as in `shadow` (old returned, the two compared).
    Probe,
}

/// Stages that still write the old origin, so that it can serve while the guard is not closed:
/// the only ones a guard acts in, and so the only ones whose outcomes it counts (in `off` the
/// new origin is not called; in `complete` it alone serves, and a trip would change nothing).
pub fn writes_old(stage: Stage) -> bool {
    matches!(stage, Stage::DualWrite | Stage::Shadow | Stage::Live | Stage::RampDown)
}

impl Route {
    pub fn read_plan(self, stage: Stage) -> ReadPlan {
        match self {
            _ if !writes_old(stage) => stage.read_plan(),
            Route::AsStaged => stage.read_plan(),
            Route::OldFirst => ReadPlan { authoritative: Origin::Old, shadowed: false },
            Route::Probe => ReadPlan { authoritative: Origin::Old, shadowed: true },
        }
    }

    pub fn write_plan(self, stage: Stage) -> WritePlan {
        match self {
            Route::AsStaged => stage.write_plan(),
            _ if !writes_old(stage) => stage.write_plan(),
            Route::OldFirst | Route::Probe => {
                WritePlan { authoritative: Origin::Old, non_authoritative: Some(Origin::New) }
            }
        }
    }

    /// Whether this route changes what `stage` would run for `operation` (a fallback).
    pub fn changes(self, stage: Stage, operation: Operation) -> bool {
        match operation {
            Operation::Read => self.read_plan(stage) != stage.read_plan(),
            Operation::Write => self.write_plan(stage) != stage.write_plan(),
        }
    }
}

/// What the window held when a change was decided (`GuardWindow` of the API).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WindowFigures {
    pub new_calls: u32,
    pub new_errors: u32,
    pub old_p99: Option<f64>,
    pub new_p99: Option<f64>,
    pub checked: u32,
    pub inconsistent: u32,
}

impl WindowFigures {
    fn of(window: &Window) -> Self {
        let counts = window.counts();
        let (old_p99, new_p99) = window.p99s();
        WindowFigures {
            new_calls: counts.new_calls,
            new_errors: counts.new_errors,
            old_p99,
            new_p99,
            checked: counts.checked,
            inconsistent: counts.inconsistent,
        }
    }
}

/// A change of state, as decided (the flag key is the caller's to add).
#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    pub from: GuardState,
    pub to: GuardState,
    pub reason: Rc<str>,
    /// Epoch milliseconds.
    pub at: f64,
    pub window: WindowFigures,
}

/// A flag key's state as `Migrator#guard(flagKey)` shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct FlagView {
    pub state: GuardState,
    /// Epoch milliseconds.
    pub since: f64,
    pub reason: Option<Rc<str>>,
}

/// A ratio as reasons print it: two decimals, or three where two would not show it above its
/// bound (`0.054 > 0.05`, not `0.05 > 0.05`).
fn above(n: f64, bound: f64) -> String {
    let two = (n * 100.0).round() / 100.0;
    number(if two > bound { two } else { n })
}

pub struct FlagGuard {
    state: GuardState,
    /// Monotonic milliseconds, for the cooldown.
    since_ms: f64,
    view: FlagView,
    window: Window,
    consecutive: u32,
    /// Reads routed while probing (1 in `probeRatio` probes, the first one included).
    probing_reads: u32,
}

impl FlagGuard {
    pub fn new(settings: &GuardSettings, clock: &dyn Clock) -> Self {
        FlagGuard {
            state: GuardState::Closed,
            since_ms: clock.monotonic_ms(),
            view: FlagView { state: GuardState::Closed, since: clock.epoch_ms(), reason: None },
            window: Window::new(settings.window_ms, settings.max_latency_ratio.is_some()),
            consecutive: 0,
            probing_reads: 0,
        }
    }

    pub fn view(&self) -> &FlagView {
        &self.view
    }

    pub fn state(&self) -> GuardState {
        self.state
    }

    fn change(&mut self, to: GuardState, reason: String, clock: &dyn Clock) -> Transition {
        let window = WindowFigures::of(&self.window);
        let reason: Rc<str> = reason.into();
        let at = clock.epoch_ms();
        let from = self.state;
        self.state = to;
        self.since_ms = clock.monotonic_ms();
        self.view = FlagView { state: to, since: at, reason: Some(reason.clone()) };
        if to != GuardState::Closed {
            // A trip forgets the calls that caused it; probing is judged on its own calls.
            self.window.clear();
            self.consecutive = 0;
            self.probing_reads = 0;
        }
        Transition { from, to, reason, at, window }
    }

    /// The route of an operation starting now; a trip whose cooldown has ended turns to probing
    /// first (the transition is returned).
    pub fn route(
        &mut self,
        settings: &GuardSettings,
        operation: Operation,
        clock: &dyn Clock,
    ) -> (Route, Option<Transition>) {
        let mut turned = None;
        if self.state == GuardState::Tripped && clock.monotonic_ms() - self.since_ms >= settings.cooldown_ms {
            let reason = format!(
                "cooldown of {} ms ended: 1 read in {} calls the new origin",
                number(settings.cooldown_ms),
                settings.probe_ratio
            );
            turned = Some(self.change(GuardState::Probing, reason, clock));
        }
        let route = match (self.state, operation) {
            (GuardState::Closed, _) => Route::AsStaged,
            (GuardState::Tripped, _) | (GuardState::Probing, Operation::Write) => Route::OldFirst,
            (GuardState::Probing, Operation::Read) => {
                let probe = self.probing_reads % settings.probe_ratio == 0;
                self.probing_reads = self.probing_reads.wrapping_add(1);
                if probe {
                    Route::Probe
                } else {
                    Route::OldFirst
                }
            }
        };
        (route, turned)
    }

    /// Counts what one operation brought and judges the bounds. Outcomes that end while tripped
    /// (of operations begun before the trip) are not counted.
    pub fn record(&mut self, settings: &GuardSettings, note: &Note, clock: &dyn Clock) -> Option<Transition> {
        if self.state == GuardState::Tripped {
            return None;
        }
        self.window.record(clock, note);
        match note.new_failed {
            Some(true) => self.consecutive = self.consecutive.saturating_add(1),
            Some(false) => self.consecutive = 0,
            None => {}
        }
        if self.consecutive >= settings.max_consecutive_errors {
            let reason = format!("{} consecutive errors", self.consecutive);
            return Some(self.change(GuardState::Tripped, reason, clock));
        }
        match self.exceeded(settings) {
            Some(Ok(reason)) => Some(self.change(GuardState::Tripped, reason, clock)),
            Some(Err(calls)) if self.state == GuardState::Probing => {
                let reason = format!("within every bound over {calls} calls since probing began");
                Some(self.change(GuardState::Closed, reason, clock))
            }
            _ => None,
        }
    }

    /// `None` below `minCalls`; else the first bound exceeded, or `Err(calls)`: within them all.
    fn exceeded(&self, settings: &GuardSettings) -> Option<Result<String, u32>> {
        let counts = self.window.counts();
        if counts.new_calls < settings.min_calls {
            return None;
        }
        let calls = counts.new_calls;
        let rate = f64::from(counts.new_errors) / f64::from(calls);
        if rate > settings.max_error_rate {
            return Some(Ok(format!(
                "error rate {} > {} over {calls} calls",
                above(rate, settings.max_error_rate),
                number(settings.max_error_rate)
            )));
        }
        if let (Some(max), (Some(old), Some(new))) = (settings.max_latency_ratio, self.window.p99s()) {
            let r = new / old;
            if old > 0.0 && r > max {
                return Some(Ok(format!(
                    "latency ratio {} > {} over {} operations (p99 new {} ms, old {} ms)",
                    above(r, max),
                    number(max),
                    self.window.pairs(),
                    number(new),
                    number(old)
                )));
            }
        }
        if let (Some(max), true) = (settings.max_inconsistency, counts.checked > 0) {
            let r = f64::from(counts.inconsistent) / f64::from(counts.checked);
            if r > max {
                return Some(Ok(format!(
                    "inconsistency {} > {} over {} checks",
                    above(r, max),
                    number(max),
                    counts.checked
                )));
            }
        }
        Some(Err(calls))
    }
}
