//! The read and write executors (SPEC A1–A4, A8, A9).

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use futures::future::{self, Either, LocalBoxFuture};

use super::builder::{ReadOrigins, WriteOrigins};
use super::client::{migration_variation, DefaultStage, MigrationClient};
use super::stage::{ExecutionOrder, Operation, Origin, Stage};
use super::stats::{CallRecord, MigrationStats, StatsSnapshot};
use super::tracking::Tracking;
use crate::host::{Host, HostValue};

/// Lets the core cancel one origin call: the host aborts the `signal` the origin was given.
pub trait CallControl<V> {
    /// The call ran past the origin timeout: abort its signal with a timeout error and return
    /// that error (it becomes the call's failure).
    fn time_out(&self, after_ms: f64) -> V;
    /// The caller aborted the operation while the call was in flight.
    fn abort(&self, reason: &V);
}

/// An origin call in flight. The outcome comes with the call's latency in milliseconds when the
/// host timed it where it settled (the core reads its own clock otherwise).
pub struct OriginCall<V> {
    pub outcome: LocalBoxFuture<'static, (Result<V, V>, Option<f64>)>,
    pub control: Box<dyn CallControl<V>>,
}

/// One implementation of a read or a write. `cancellable` tells the host whether the core may
/// cancel this call (a timeout is set or the caller passed a signal).
/// What an origin call came to: its result, and its latency when the host timed it.
pub type Timed<V> = (Result<V, V>, Option<f64>);

pub trait OriginFn<V> {
    fn call(&self, payload: Option<&V>, cancellable: bool) -> OriginCall<V>;
    /// Starts this origin and then `other` with the same payload, neither cancellable, and
    /// resolves when both settled — one wait instead of two, for hosts that can (`None`: the
    /// core calls them one by one). Both outcomes must be timed by the host.
    fn call_both(
        &self,
        _other: &dyn OriginFn<V>,
        _payload: Option<&V>,
    ) -> Option<LocalBoxFuture<'static, [Timed<V>; 2]>> {
        None
    }
    /// The host's own function, for `call_both` of another origin.
    fn handle(&self) -> Option<&V> {
        None
    }
    /// Whether the host times its calls itself (every outcome carries a latency).
    fn timed_by_host(&self) -> bool {
        false
    }
}

/// The consistency comparison, always called as `(old, new)`.
pub trait Comparison<V> {
    fn compare(&self, old: &V, new: &V) -> Result<bool, V>;
    /// The host's own comparison function, for trackers that can call it themselves.
    fn handle(&self) -> Option<&V> {
        None
    }
}

/// The settings a builder collects besides the origins.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MigratorSettings {
    pub read_order: ExecutionOrder,
    pub track_latency: bool,
    pub track_errors: bool,
    pub origin_timeout_ms: Option<f64>,
}

impl Default for MigratorSettings {
    fn default() -> Self {
        MigratorSettings {
            read_order: ExecutionOrder::Parallel,
            track_latency: true,
            track_errors: true,
            origin_timeout_ms: None,
        }
    }
}

/// One origin's result.
#[derive(Clone, Debug, PartialEq)]
pub struct OperationResult<V> {
    pub origin: Origin,
    pub result: Result<V, V>,
}

/// A write's results: the second write is absent when it did not run.
#[derive(Clone, Debug, PartialEq)]
pub struct WriteResult<V> {
    pub authoritative: OperationResult<V>,
    pub non_authoritative: Option<OperationResult<V>>,
}

/// Resolves with the abort reason when the caller's signal aborts.
pub type AbortFuture<V> = LocalBoxFuture<'static, V>;

/// What a caller asks of one operation.
pub struct OperationRequest<V> {
    pub flag_key: Rc<str>,
    pub context: V,
    pub default_stage: DefaultStage,
    pub payload: Option<V>,
    pub abort: Option<AbortFuture<V>>,
}

struct Shared<V> {
    settings: MigratorSettings,
    read: ReadOrigins<V>,
    write: WriteOrigins<V>,
    client: Rc<dyn MigrationClient<V>>,
    host: Host,
    stats: RefCell<MigrationStats>,
}

/// The state of one operation, shared with the abort path.
struct OpState<V> {
    operation: Operation,
    flag_key: Rc<str>,
    tracking: RefCell<Option<Tracking<V>>>,
    takes_events: std::cell::Cell<bool>,
    abort_reason: RefCell<Option<V>>,
}

/// Cancels an origin call that is dropped before it finished (the operation was aborted).
struct InFlight<V: HostValue> {
    control: Box<dyn CallControl<V>>,
    state: Rc<OpState<V>>,
    finished: bool,
}

impl<V: HostValue> Drop for InFlight<V> {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        let reason = self.state.abort_reason.borrow().clone();
        if let Some(reason) = reason {
            self.control.abort(&reason);
        }
    }
}

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
        read: ReadOrigins<V>,
        write: WriteOrigins<V>,
        client: Rc<dyn MigrationClient<V>>,
        host: Host,
    ) -> Self {
        let stats = RefCell::new(MigrationStats::default());
        Migrator { shared: Rc::new(Shared { settings, read, write, client, host, stats }) }
    }

    pub fn stats(&self) -> StatsSnapshot {
        self.shared.stats.borrow().snapshot()
    }

    pub fn reset_stats(&self) {
        *self.shared.stats.borrow_mut() = MigrationStats::default();
    }

    /// Reads at the flag's stage. Fails only when the caller aborts (with the abort reason).
    pub fn read(&self, request: OperationRequest<V>) -> impl Future<Output = Result<OperationResult<V>, V>> + 'static {
        let shared = self.shared.clone();
        async move {
            let OperationRequest { flag_key, context, default_stage, payload, abort } = request;
            let state = OpState::new(Operation::Read, flag_key);
            let cancellable = abort.is_some() || shared.settings.origin_timeout_ms.is_some();
            let run = shared.clone().run_read(state.clone(), context, default_stage, payload, cancellable);
            match with_abort(run, abort, &state).await {
                Ok(result) => Ok(result),
                Err(reason) => Err(reason),
            }
        }
    }

    /// Writes at the flag's stage. Fails only when the caller aborts; the event for the origins
    /// that completed is still sent.
    pub fn write(&self, request: OperationRequest<V>) -> impl Future<Output = Result<WriteResult<V>, V>> + 'static {
        let shared = self.shared.clone();
        async move {
            let OperationRequest { flag_key, context, default_stage, payload, abort } = request;
            let state = OpState::new(Operation::Write, flag_key);
            let cancellable = abort.is_some() || shared.settings.origin_timeout_ms.is_some();
            let run = shared.clone().run_write(state.clone(), context, default_stage, payload, cancellable);
            match with_abort(run, abort, &state).await {
                Ok(result) => Ok(result),
                Err(reason) => {
                    shared.host.warn("Migration write was cancelled before completion");
                    shared.send_event(&state);
                    Err(reason)
                }
            }
        }
    }
}

impl<V: HostValue> OpState<V> {
    fn new(operation: Operation, flag_key: Rc<str>) -> Rc<Self> {
        Rc::new(OpState {
            operation,
            flag_key,
            tracking: RefCell::new(None),
            takes_events: std::cell::Cell::new(false),
            abort_reason: RefCell::new(None),
        })
    }

    fn with_tracking(&self, f: impl FnOnce(&mut Tracking<V>)) {
        if let Some(t) = self.tracking.borrow_mut().as_mut() {
            f(t);
        }
    }
}

/// Runs `op` unless the caller aborts first; on abort, in-flight origin calls are cancelled
/// (their signals aborted) and the abort reason is returned.
async fn with_abort<T, V: HostValue>(
    op: impl std::future::Future<Output = T>,
    abort: Option<AbortFuture<V>>,
    state: &Rc<OpState<V>>,
) -> Result<T, V> {
    let Some(abort) = abort else {
        return Ok(op.await);
    };
    let op = Box::pin(op);
    match future::select(abort, op).await {
        Either::Left((reason, op)) => {
            *state.abort_reason.borrow_mut() = Some(reason.clone());
            drop(op);
            Err(reason)
        }
        Either::Right((value, _)) => Ok(value),
    }
}

impl<V: HostValue> Shared<V> {
    async fn evaluate(&self, state: &OpState<V>, context: V, default_stage: DefaultStage) -> Stage {
        let mut evaluated =
            migration_variation(self.client.clone(), &self.host, &state.flag_key, context, &default_stage).await;
        evaluated.tracking.op(&self.host, state.operation);
        *state.tracking.borrow_mut() = Some(evaluated.tracking);
        state.takes_events.set(evaluated.takes_events);
        evaluated.stage
    }

    /// Calls one origin with timing, timeout and bookkeeping (SPEC A4).
    async fn call_origin(
        &self,
        state: &Rc<OpState<V>>,
        origin: Origin,
        f: &Rc<dyn OriginFn<V>>,
        payload: Option<&V>,
        cancellable: bool,
    ) -> Result<V, V> {
        let clock = &self.host.clock;
        // The host's own timing is used when it has one; a timed-out call is timed here.
        let own_clock = !f.timed_by_host() || self.settings.origin_timeout_ms.is_some();
        let started = if own_clock { clock.monotonic_ms() } else { 0.0 };
        let call = f.call(payload, cancellable);
        let mut in_flight = InFlight { control: call.control, state: state.clone(), finished: false };
        let ((result, host_latency), timed_out) = match self.settings.origin_timeout_ms {
            None => (call.outcome.await, false),
            Some(ms) => match future::select(call.outcome, self.host.sleep.sleep(ms)).await {
                Either::Left((outcome, _)) => (outcome, false),
                Either::Right(((), _)) => ((Err(in_flight.control.time_out(ms)), None), true),
            },
        };
        in_flight.finished = true;
        let latency_ms = match host_latency {
            Some(ms) if !timed_out => ms,
            _ if own_clock => clock.monotonic_ms() - started,
            _ => 0.0,
        };
        self.record_origin(state, origin, &result, latency_ms, timed_out);
        result
    }

    /// One origin call's bookkeeping: the tracker (SPEC A4) and the statistics.
    fn record_origin(
        &self,
        state: &OpState<V>,
        origin: Origin,
        result: &Result<V, V>,
        latency_ms: f64,
        timed_out: bool,
    ) {
        let failed = result.is_err();
        let host = &self.host;
        let settings = &self.settings;
        state.with_tracking(|t| {
            let latency = settings.track_latency.then_some(latency_ms);
            t.record_call(host, origin, latency, failed && settings.track_errors)
        });
        self.stats.borrow_mut().record_call(state.operation, origin, CallRecord { latency_ms, failed, timed_out });
    }

    /// Both read origins at once (SPEC A2 `parallel`): through the host's `call_both` when the
    /// calls cannot be cancelled and it offers one, else joined one by one.
    async fn call_parallel(
        &self,
        state: &Rc<OpState<V>>,
        auth: Origin,
        payload: Option<&V>,
        cancellable: bool,
    ) -> (Result<V, V>, Result<V, V>) {
        let other = auth.other();
        let (f_auth, f_other) = (self.origin_fn(Operation::Read, auth), self.origin_fn(Operation::Read, other));
        if !cancellable {
            if let Some(both) = f_auth.call_both(&**f_other, payload) {
                let [(auth_result, auth_ms), (other_result, other_ms)] = both.await;
                self.record_origin(state, auth, &auth_result, auth_ms.unwrap_or(0.0), false);
                self.record_origin(state, other, &other_result, other_ms.unwrap_or(0.0), false);
                return (auth_result, other_result);
            }
        }
        future::join(
            self.call_origin(state, auth, f_auth, payload, cancellable),
            self.call_origin(state, other, f_other, payload, cancellable),
        )
        .await
    }

    fn origin_fn(&self, op: Operation, origin: Origin) -> &Rc<dyn OriginFn<V>> {
        match (op, origin) {
            (Operation::Read, Origin::Old) => &self.read.old,
            (Operation::Read, Origin::New) => &self.read.new,
            (Operation::Write, Origin::Old) => &self.write.old,
            (Operation::Write, Origin::New) => &self.write.new,
        }
    }

    async fn run_read(
        self: Rc<Self>,
        state: Rc<OpState<V>>,
        context: V,
        default_stage: DefaultStage,
        payload: Option<V>,
        cancellable: bool,
    ) -> OperationResult<V> {
        let stage = self.evaluate(&state, context, default_stage).await;
        let plan = stage.read_plan();
        let auth = plan.authoritative;
        let call = |origin: Origin| {
            self.call_origin(&state, origin, self.origin_fn(Operation::Read, origin), payload.as_ref(), cancellable)
        };
        let result = if !plan.shadowed {
            call(auth).await
        } else {
            let other = auth.other();
            let (auth_result, other_result) = match self.settings.read_order {
                ExecutionOrder::Parallel => self.call_parallel(&state, auth, payload.as_ref(), cancellable).await,
                ExecutionOrder::Serial => (call(auth).await, call(other).await),
                ExecutionOrder::Random => {
                    if self.host.random.next_f64() < 0.5 {
                        (call(auth).await, call(other).await)
                    } else {
                        let other_result = call(other).await;
                        (call(auth).await, other_result)
                    }
                }
            };
            let (old, new) = match auth {
                Origin::Old => (&auth_result, &other_result),
                Origin::New => (&other_result, &auth_result),
            };
            self.check_consistency(&state, old, new);
            auth_result
        };
        self.stats.borrow_mut().record_completed(Operation::Read, stage);
        self.send_event(&state);
        OperationResult { origin: auth, result }
    }

    /// Compares two successful reads when a comparison is configured and the tracker samples it.
    fn check_consistency(&self, state: &OpState<V>, old: &Result<V, V>, new: &Result<V, V>) {
        let (Some(comparison), Ok(old), Ok(new)) = (&self.read.comparison, old, new) else {
            return;
        };
        let mut answer = None;
        state.with_tracking(|t| answer = t.consistency(&self.host, comparison, old, new));
        if let Some(consistent) = answer {
            self.stats.borrow_mut().record_check(consistent);
        }
    }

    async fn run_write(
        self: Rc<Self>,
        state: Rc<OpState<V>>,
        context: V,
        default_stage: DefaultStage,
        payload: Option<V>,
        cancellable: bool,
    ) -> WriteResult<V> {
        let stage = self.evaluate(&state, context, default_stage).await;
        let plan = stage.write_plan();
        let call = |origin: Origin| {
            self.call_origin(&state, origin, self.origin_fn(Operation::Write, origin), payload.as_ref(), cancellable)
        };
        let authoritative = OperationResult { origin: plan.authoritative, result: call(plan.authoritative).await };
        let mut non_authoritative = None;
        if let (Ok(_), Some(other)) = (&authoritative.result, plan.non_authoritative) {
            non_authoritative = Some(OperationResult { origin: other, result: call(other).await });
        }
        self.stats.borrow_mut().record_completed(Operation::Write, stage);
        self.send_event(&state);
        WriteResult { authoritative, non_authoritative }
    }

    /// Builds (or asks the external tracker for) the event and hands it to the client.
    fn send_event(&self, state: &OpState<V>) {
        let tracking = state.tracking.borrow_mut().take();
        let Some(tracking) = tracking else {
            self.host.error("error generating migration op event no origins were invoked; no event will be emitted");
            return;
        };
        if let Tracking::Own(_) = tracking {
            if !state.takes_events.get() {
                return;
            }
        }
        if let Some(event) = tracking.finish(&self.host) {
            if let Err(e) = self.client.track_migration_op(event) {
                self.host.error(&format!("trackMigrationOp threw: {}", e.describe()));
            }
        }
    }
}
