//! Calling origins (SPEC A4): one call timed, bounded by `originTimeout`, cancelled when the
//! operation is aborted, and recorded (tracker, statistics, metrics); both read origins at once.

use std::future::Future;
use std::pin::pin;
use std::rc::Rc;

use futures::future::{self, Either};

use super::op_state::OpState;
use super::operation::AbortFuture;
use super::origin::{CallControl, OriginFn};
use super::shared::Shared;
use super::stage::{Operation, Origin};
use super::stats::CallRecord;
use crate::host::HostValue;
use crate::metrics::{ErrorType, Instrument};

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

/// What every origin call of one operation shares.
pub(super) struct Calling<'a, V> {
    pub(super) state: &'a Rc<OpState<V>>,
    pub(super) payload: Option<&'a V>,
    pub(super) cancellable: bool,
    /// Which origins the operation runs (the stage's plan, or its guard's route).
    pub(super) route: super::guard::Route,
}

impl<V> Clone for Calling<'_, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<V> Copy for Calling<'_, V> {}

/// Awaits `op` unless the caller's signal aborts first: then the abort reason, which is kept in
/// `state` before `op` is dropped, so that the origin calls in flight in it are cancelled.
pub(super) async fn abortable<T, V: HostValue>(
    abort: &mut Option<AbortFuture<V>>,
    op: impl Future<Output = T>,
    state: &OpState<V>,
) -> Result<T, V> {
    let Some(signal) = abort.as_mut() else {
        return Ok(op.await);
    };
    match future::select(signal, pin!(op)).await {
        Either::Left((reason, _)) => {
            *state.abort_reason.borrow_mut() = Some(reason.clone());
            Err(reason)
        }
        Either::Right((value, _)) => Ok(value),
    }
}

/// An origin call's result, and how it was measured (background mode records it later).
pub(super) type Called<V> = (Result<V, V>, Measured);

/// How long an origin call took, and whether it timed out.
#[derive(Clone, Copy)]
pub(super) struct Measured {
    pub(super) latency_ms: f64,
    pub(super) timed_out: bool,
}

impl<V: HostValue> Shared<V> {
    /// Calls one origin of the operation with timing, timeout and bookkeeping (SPEC A4).
    pub(super) async fn call_origin(&self, op: &Calling<'_, V>, origin: Origin) -> Result<V, V> {
        let (result, measured) = self.call_unrecorded(op, origin).await;
        self.record_origin(op.state, origin, &result, measured);
        result
    }

    /// Calls one origin with timing and timeout, leaving its bookkeeping to the caller
    /// (background mode records every origin when the operation ends).
    pub(super) async fn call_unrecorded(&self, op: &Calling<'_, V>, origin: Origin) -> Called<V> {
        let Calling { state, payload, cancellable, .. } = *op;
        let f = self.origin_fn(state.operation, origin);
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
        (result, Measured { latency_ms, timed_out })
    }

    /// One origin call's bookkeeping: the tracker (SPEC A4) and the statistics.
    pub(super) fn record_origin(&self, state: &OpState<V>, origin: Origin, result: &Result<V, V>, measured: Measured) {
        let Measured { latency_ms, timed_out } = measured;
        let failed = result.is_err();
        let settings = &self.settings;
        state.with_tracking(|t| {
            let latency = settings.track_latency.then_some(latency_ms);
            t.record_call(origin, latency, failed && settings.track_errors)
        });
        self.stats.borrow_mut().record_call(state.operation, origin, CallRecord { latency_ms, failed, timed_out });
        if let Some(guarded) = state.guarded.get() {
            guarded.note_call(origin, failed, latency_ms);
        }
        if let Some(metrics) = &self.host.metrics {
            let attributes = state.attributes().with_origin(origin);
            metrics.record(Instrument::OriginDuration, latency_ms / 1000.0, &attributes);
            if let Err(error) = result {
                let name = if timed_out { None } else { error.error_name() };
                let error_type = if timed_out { ErrorType::Timeout } else { ErrorType::named(name.as_deref()) };
                metrics.record(Instrument::OriginErrors, 1.0, &attributes.with_error(error_type));
                if timed_out {
                    metrics.record(Instrument::OriginTimeouts, 1.0, &attributes);
                }
            }
        }
    }

    /// Both read origins at once (SPEC A2 `parallel`): through the host's `call_both` when the
    /// calls cannot be cancelled and it offers one, else joined one by one.
    pub(super) async fn call_parallel(&self, op: &Calling<'_, V>, auth: Origin) -> (Result<V, V>, Result<V, V>) {
        let Calling { state, payload, cancellable, .. } = *op;
        let other = auth.other();
        let (f_auth, f_other) = (self.origin_fn(Operation::Read, auth), self.origin_fn(Operation::Read, other));
        if !cancellable {
            if let Some(both) = f_auth.call_both(&**f_other, payload) {
                let [(auth_result, auth_ms), (other_result, other_ms)] = both.await;
                let measured = |ms: Option<f64>| Measured { latency_ms: ms.unwrap_or(0.0), timed_out: false };
                self.record_origin(state, auth, &auth_result, measured(auth_ms));
                self.record_origin(state, other, &other_result, measured(other_ms));
                return (auth_result, other_result);
            }
        }
        future::join(self.call_origin(op, auth), self.call_origin(op, other)).await
    }

    pub(super) fn origin_fn(&self, op: Operation, origin: Origin) -> &Rc<dyn OriginFn<V>> {
        match (op, origin) {
            (Operation::Read, Origin::Old) => &self.read.old,
            (Operation::Read, Origin::New) => &self.read.new,
            (Operation::Write, Origin::Old) => &self.write.old,
            (Operation::Write, Origin::New) => &self.write.new,
        }
    }
}
