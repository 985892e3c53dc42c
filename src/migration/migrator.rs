//! The operation runner: one flow for reads and writes (SPEC A1–A4, A8, A9).

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use super::background::BackgroundParts;
use super::calling::{abortable, Calling};
use super::client::{migration_variation, DefaultStage, MigrationClient};
use super::consistency::LaterCheck;
use super::context_warning::ContextWarning;
use super::delegation::Tracking;
use super::guard::{FlagView, Guard, Route};
use super::mismatches::{Mismatch, Mismatches};
use super::op_state::OpState;
use super::operation::{OperationRequest, OperationResult, Outcome, Reply};
use super::origin::{ReadOrigins, WriteOrigins};
use super::settings::MigratorSettings;
use super::shared::Shared;
use super::stage::{ExecutionOrder, Operation, Origin, Stage};
use super::stats::{MigrationStats, StatsSnapshot};
use crate::host::{Host, HostValue};
use crate::metrics::Instrument;

/// Runs reads and writes by migration stage. Cheap to clone; clones share statistics.
pub struct Migrator<V> {
    shared: Rc<Shared<V>>,
}

impl<V> Clone for Migrator<V> {
    fn clone(&self) -> Self {
        Migrator { shared: self.shared.clone() }
    }
}

impl<V: HostValue> Migrator<V> {
    pub(crate) fn new(
        settings: MigratorSettings,
        (read, write): (ReadOrigins<V>, WriteOrigins<V>),
        client: Rc<dyn MigrationClient<V>>,
        host: Host,
        mismatches: Option<Mismatches<V>>,
        guard: Option<Guard>,
    ) -> Self {
        let stats = RefCell::new(MigrationStats::default());
        let background =
            BackgroundParts::new(settings.background_max_in_flight.unwrap_or(super::background::DEFAULT_MAX_IN_FLIGHT));
        let (context_warning, created_at) = (ContextWarning::default(), host.clock.epoch_ms());
        let shared = Shared {
            settings,
            read,
            write,
            client,
            host,
            stats,
            background,
            mismatches,
            context_warning,
            guard,
            created_at,
        };
        Migrator { shared: Rc::new(shared) }
    }

    pub fn stats(&self) -> StatsSnapshot {
        let mut snapshot = self.shared.stats.borrow().snapshot();
        if let Some(mismatches) = &self.shared.mismatches {
            snapshot.read.consistency.paths = mismatches.paths();
        }
        snapshot.guard = self.shared.guard.as_ref().map(Guard::snapshot);
        snapshot
    }

    /// `Migrator#guard(flagKey)`: the flag key's guard (closed since the migrator was built for
    /// a key never seen, or without `guard()`).
    pub fn guard(&self, flag_key: &str) -> FlagView {
        let shared = &self.shared;
        shared.guard.as_ref().and_then(|guard| guard.flag(flag_key)).unwrap_or(FlagView {
            state: super::guard::GuardState::Closed,
            since: shared.created_at,
            reason: None,
        })
    }

    /// The guard-state gauge's value per flag key kept (empty without `guard()`).
    pub fn guard_gauges(&self) -> Vec<(Rc<str>, f64)> {
        self.shared.guard.as_ref().map(Guard::gauges).unwrap_or_default()
    }

    /// The latency histograms behind `stats()`, in their wire form (see `MigrationStats`).
    pub fn latency_wires(&self) -> [Vec<f64>; 4] {
        self.shared.stats.borrow().latency_wires()
    }

    pub fn reset_stats(&self) {
        *self.shared.stats.borrow_mut() = MigrationStats::default();
        if let Some(mismatches) = &self.shared.mismatches {
            mismatches.reset_paths();
        }
        if let Some(guard) = &self.shared.guard {
            guard.reset_counts();
        }
    }

    /// The kept mismatches, oldest first (empty without `mismatches()`).
    pub fn mismatches(&self) -> Vec<Rc<Mismatch<V>>> {
        self.shared.mismatches.as_ref().map(Mismatches::kept).unwrap_or_default()
    }

    /// Resolves when every background part started before this call has ended (at once
    /// without `background()`).
    pub fn settled(&self) -> impl Future<Output = ()> + 'static {
        self.shared.background.settled()
    }

    /// How many background parts are running.
    pub fn in_flight(&self) -> usize {
        self.shared.background.in_flight()
    }

    /// Runs `operation` at the flag's stage, and hands the caller's outcome to `answer` once:
    /// the outcome, or the abort reason when the caller aborted (an aborted write still sends
    /// the event for the origins that completed).
    ///
    /// Without background mode `answer` is called when the operation has ended. In background
    /// mode it is called as soon as the authoritative origin has settled, with `true` when a
    /// background part goes on; the returned future then ends with that part (event sent). An
    /// `Err` from `answer` is what the host's `waitUntil` threw: it is logged, nothing more.
    pub fn run<A>(
        &self,
        operation: Operation,
        request: OperationRequest<V>,
        answer: A,
    ) -> impl Future<Output = ()> + 'static
    where
        A: Reply<V> + 'static,
    {
        let shared = self.shared.clone();
        async move {
            let state = OpState::new(operation, request.flag_key.clone());
            shared.execute(state, request, answer).await;
        }
    }
}

impl<V: HostValue> Shared<V> {
    async fn evaluate(&self, state: &OpState<V>, context: V, default_stage: DefaultStage) -> Stage {
        let mut evaluated =
            migration_variation(self.client.clone(), &self.host, &state.flag_key, context, &default_stage).await;
        evaluated.tracking.op(state.operation);
        *state.tracking.borrow_mut() = Some(evaluated.tracking);
        state.takes_events.set(evaluated.takes_events);
        state.stage.set(evaluated.stage);
        evaluated.stage
    }

    /// The one flow of every operation: evaluate the flag, call the origins its stage plans (now,
    /// or partly in the background), count it, send its event, answer the caller.
    async fn execute<A>(self: Rc<Self>, state: Rc<OpState<V>>, request: OperationRequest<V>, answer: A)
    where
        A: Reply<V>,
    {
        let OperationRequest { flag_key: _, context, default_stage, payload, mut abort } = request;
        let cancellable = abort.is_some() || self.settings.origin_timeout_ms.is_some();
        if self.mismatches.is_some() {
            *state.context.borrow_mut() = Some(context.clone());
        }
        let stage = match abortable(&mut abort, self.evaluate(&state, context, default_stage), &state).await {
            Ok(stage) => stage,
            Err(reason) => return self.aborted(&state, &reason, answer),
        };
        let route = self.route(&state, stage);
        let op = Calling { state: &state, payload: payload.as_ref(), cancellable, route };
        if self.settings.background_max_in_flight.is_some() {
            return match state.operation {
                Operation::Read => self.read_in_background(&op, stage, abort, answer).await,
                Operation::Write => self.write_in_background(&op, stage, abort, answer).await,
            };
        }
        let outcome = match state.operation {
            Operation::Read => abortable(&mut abort, self.read_origins(&op, stage), &state).await,
            Operation::Write => abortable(&mut abort, self.write_origins(&op, stage), &state).await.map(|o| (o, None)),
        };
        match outcome {
            Ok((outcome, later)) => {
                // A check that runs later is this operation's background part (one call of
                // `answer` for both cases: each call site inlines it).
                let later = later.and_then(|later| self.later_part(&state, later));
                if later.is_none() {
                    self.finish(&state, stage);
                }
                self.replied(answer(Ok(&outcome), later.is_some()));
                if let Some((later, part)) = later {
                    // The caller's signal aborts an operation only until it resolves.
                    drop(abort);
                    self.check_later(&state, later).await;
                    self.finish(&state, stage);
                    drop(part);
                }
            }
            Err(reason) => self.aborted(&state, &reason, answer),
        }
    }

    /// Counts a completed operation and sends its event. Not inlined: every flow calls it.
    #[inline(never)]
    pub(super) fn finish(&self, state: &OpState<V>, stage: Stage) {
        self.stats.borrow_mut().record_completed(state.operation, stage);
        if let Some(metrics) = &self.host.metrics {
            metrics.record(Instrument::MigrationOperations, 1.0, &state.attributes());
        }
        self.send_event(state);
        if let (Some(guard), Some(guarded)) = (&self.guard, state.guarded.get()) {
            guard.record(&self.host, &state.flag_key, guarded);
        }
    }

    /// Which origins the operation runs at `stage`: the stage's plan, or the guard's route (in
    /// the stages it acts in).
    fn route(&self, state: &OpState<V>, stage: Stage) -> Route {
        let Some(guard) = self.guard.as_ref().filter(|_| super::guard::writes_old(stage)) else {
            return Route::AsStaged;
        };
        let (route, guarded) = guard.route(&self.host, &state.flag_key, state.operation, stage);
        let _ = state.guarded.set(guarded);
        route
    }

    /// An operation that ran its authoritative origin only, `maxInFlight` background parts running.
    pub(super) fn shed(&self, state: &OpState<V>) {
        self.stats.borrow_mut().record_shed(state.operation);
        if let Some(metrics) = &self.host.metrics {
            metrics.record(Instrument::MigrationShed, 1.0, &state.attributes());
        }
    }

    /// The caller aborted: a write sends the event of the origins that completed.
    pub(super) fn aborted<A>(&self, state: &OpState<V>, reason: &V, answer: A)
    where
        A: Reply<V>,
    {
        if state.operation == Operation::Write {
            self.host.warn("Migration write was cancelled before completion");
            self.send_event(state);
        }
        self.replied(answer(Err(reason), false));
    }

    /// What handing the outcome over came to: a `waitUntil` that threw is logged, nothing more.
    pub(super) fn replied(&self, handed: Result<(), V>) {
        if let Err(thrown) = handed {
            self.host.error(&format!("waitUntil threw: {}", thrown.describe()));
        }
    }

    /// A read's origin calls (SPEC A2): the authoritative one, and the shadow in the builder's
    /// order with the consistency check — or, for a comparison that reads values first, the
    /// check to make once the caller has its result.
    async fn read_origins(&self, op: &Calling<'_, V>, stage: Stage) -> (Outcome<V>, Option<LaterCheck<V>>) {
        let plan = op.route.read_plan(stage);
        let auth = plan.authoritative;
        let call = |origin: Origin| self.call_origin(op, origin);
        let mut later = None;
        let result = if !plan.shadowed {
            call(auth).await
        } else {
            let other = auth.other();
            let (auth_result, other_result) = match self.settings.read_order {
                ExecutionOrder::Parallel => self.call_parallel(op, auth).await,
                ExecutionOrder::Serial => (call(auth).await, call(other).await),
                ExecutionOrder::OldFirst => match auth {
                    Origin::Old => (call(auth).await, call(other).await),
                    Origin::New => {
                        let other_result = call(other).await;
                        (call(auth).await, other_result)
                    }
                },
                ExecutionOrder::Random => {
                    if self.host.random.next_f64() < 0.5 {
                        (call(auth).await, call(other).await)
                    } else {
                        let other_result = call(other).await;
                        (call(auth).await, other_result)
                    }
                }
            };
            later = self.later_check(auth, self.snapshot(&auth_result), &other_result);
            if later.is_none() {
                self.compare_reads(op.state, auth, &auth_result, &other_result);
            }
            auth_result
        };
        (Outcome { authoritative: OperationResult { origin: auth, result }, non_authoritative: None }, later)
    }

    /// A write's origin calls (SPEC A3): the authoritative one, then the other when the stage
    /// writes both and the first succeeded.
    async fn write_origins(&self, op: &Calling<'_, V>, stage: Stage) -> Outcome<V> {
        let plan = op.route.write_plan(stage);
        let call = |origin: Origin| self.call_origin(op, origin);
        let authoritative = OperationResult { origin: plan.authoritative, result: call(plan.authoritative).await };
        let mut non_authoritative = None;
        if let (Ok(_), Some(other)) = (&authoritative.result, plan.non_authoritative) {
            non_authoritative = Some(OperationResult { origin: other, result: call(other).await });
        }
        Outcome { authoritative, non_authoritative }
    }

    /// Builds (or asks the external tracker for) the event and hands it to the client.
    fn send_event(&self, state: &OpState<V>) {
        let tracking = state.tracking.borrow_mut().take();
        let Some(tracking) = tracking else {
            self.host.error("error generating migration op event no origins were invoked; no event will be emitted");
            return;
        };
        if let Tracking::Own(t) = &tracking {
            if !state.takes_events.get() {
                // No event to build, which would report an invalid context: reported once.
                self.context_warning.check(&self.host, t.context());
                return;
            }
        }
        if let Some(event) = tracking.finish(&self.host) {
            if let Err(e) = self.client.track_migration_op(&event) {
                self.host.error(&format!("trackMigrationOp threw: {}", e.describe()));
            }
        }
    }
}
