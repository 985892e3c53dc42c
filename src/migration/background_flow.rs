//! Background mode's flows (API §1 "Shadowing in production"): a read or a write that answers
//! its caller as soon as the authoritative origin has settled and goes on with the rest — the
//! other origin, the comparison, every origin's bookkeeping and the one event — as the
//! operation's background part, unless `maxInFlight` parts are running (then it is shed: only
//! the authoritative origin runs). The foreground flow and the shared steps are in `migrator.rs`.

use std::future::Future;
use std::pin::pin;

use futures::future::{self, Either};
use futures::FutureExt;

use super::calling::{abortable, Called, Calling, Measured};
use super::op_state::single;
use super::operation::{AbortFuture, Reply};
use super::origin::Timed;
use super::shared::Shared;
use super::stage::{ExecutionOrder, Operation, Origin, Stage};
use crate::host::HostValue;

impl<V: HostValue> Shared<V> {
    /// A read in background mode: the caller gets the authoritative result as soon as it settles;
    /// the other origin (started with it when `parallel`, after it otherwise), the comparison and
    /// the event follow as the operation's background part.
    pub(super) async fn read_in_background<A>(
        &self,
        op: &Calling<'_, V>,
        stage: Stage,
        mut abort: Option<AbortFuture<V>>,
        answer: A,
    ) where
        A: Reply<V>,
    {
        let state = op.state;
        let plan = op.route.read_plan(stage);
        let auth = plan.authoritative;
        let other = auth.other();
        let call = |origin: Origin| self.call_origin(op, origin);
        let parallel = self.settings.read_order == ExecutionOrder::Parallel;
        let part = if !plan.shadowed {
            None
        } else if parallel {
            self.background.try_start()
        } else {
            // The other origin starts once the authoritative one has settled: decided then.
            return self.authoritative_first(op, stage, (abort, answer), auth, Some(other)).await;
        };
        let Some(part) = part else {
            if plan.shadowed {
                self.shed(state);
            }
            return match abortable(&mut abort, call(auth), state).await {
                Ok(result) => {
                    let outcome = single(auth, result);
                    self.finish(state, stage);
                    self.replied(answer(Ok(&outcome), false));
                }
                Err(reason) => self.aborted(state, &reason, answer),
            };
        };
        let (auth_call, other_call) = self.call_each(op, auth);
        let (mut auth_call, mut other_call) = (pin!(auth_call), pin!(other_call));
        let first = abortable(&mut abort, future::select(auth_call.as_mut(), other_call.as_mut()), state).await;
        // A comparison that reads values first snapshots the authoritative value before the
        // caller gets it.
        let (((auth_result, auth_measured), (other_result, other_measured)), auth_snapshot) = match first {
            Err(reason) => return self.aborted(state, &reason, answer),
            Ok(Either::Left((auth_called, _))) => {
                let auth_snapshot = self.snapshot(&auth_called.0);
                let outcome = single(auth, auth_called.0);
                self.replied(answer(Ok(&outcome), true));
                (((outcome.authoritative.result, auth_called.1), other_call.await), auth_snapshot)
            }
            Ok(Either::Right((other_called, _))) => match abortable(&mut abort, auth_call, state).await {
                Err(reason) => {
                    // As in foreground mode, an origin that completed before the abort is counted.
                    self.record_origin(state, other, &other_called.0, other_called.1);
                    return self.aborted(state, &reason, answer);
                }
                Ok((auth_result, auth_measured)) => {
                    let auth_snapshot = self.snapshot(&auth_result);
                    let outcome = single(auth, auth_result);
                    self.replied(answer(Ok(&outcome), true));
                    (((outcome.authoritative.result, auth_measured), other_called), auth_snapshot)
                }
            },
        };
        self.record_origin(state, auth, &auth_result, auth_measured);
        self.record_origin(state, other, &other_result, other_measured);
        match self.later_check(auth, auth_snapshot, &other_result) {
            Some(later) => self.check_later(state, later).await,
            None => self.compare_reads(state, auth, &auth_result, &other_result),
        }
        self.finish(state, stage);
        drop(part);
    }

    /// Both read origins started together, each reporting as it settles: through the host's
    /// `call_each` when the calls cannot be cancelled and it offers one (one host call instead
    /// of two), else one by one.
    fn call_each<'a>(
        &'a self,
        op: &'a Calling<'a, V>,
        auth: Origin,
    ) -> (impl Future<Output = Called<V>> + 'a, impl Future<Output = Called<V>> + 'a) {
        let other = auth.other();
        let (f_auth, f_other) = (self.origin_fn(Operation::Read, auth), self.origin_fn(Operation::Read, other));
        let each = if op.cancellable { None } else { f_auth.call_each(&**f_other, op.payload) };
        let measured = |(result, ms): Timed<V>| (result, Measured { latency_ms: ms.unwrap_or(0.0), timed_out: false });
        match each {
            Some([auth_call, other_call]) => {
                (Either::Left(auth_call.map(measured)), Either::Left(other_call.map(measured)))
            }
            None => (Either::Right(self.call_unrecorded(op, auth)), Either::Right(self.call_unrecorded(op, other))),
        }
    }

    /// A write in background mode: the caller gets the authoritative write's result; the other
    /// write follows as the background part when the stage writes both and the first succeeded.
    pub(super) async fn write_in_background<A>(
        &self,
        op: &Calling<'_, V>,
        stage: Stage,
        abort: Option<AbortFuture<V>>,
        answer: A,
    ) where
        A: Reply<V>,
    {
        let plan = op.route.write_plan(stage);
        self.authoritative_first(op, stage, (abort, answer), plan.authoritative, plan.non_authoritative).await;
    }

    /// The authoritative origin for the caller; then `other`, as the background part, unless
    /// `maxInFlight` parts are running (shed) or this is a write whose first write failed. A
    /// read compares the two.
    async fn authoritative_first<A>(
        &self,
        op: &Calling<'_, V>,
        stage: Stage,
        (mut abort, answer): (Option<AbortFuture<V>>, A),
        auth: Origin,
        other: Option<Origin>,
    ) where
        A: Reply<V>,
    {
        let state = op.state;
        let (outcome, auth_measured) = match abortable(&mut abort, self.call_unrecorded(op, auth), state).await {
            Ok((result, measured)) => (single(auth, result), measured),
            Err(reason) => return self.aborted(state, &reason, answer),
        };
        drop(abort);
        let auth_result = &outcome.authoritative.result;
        let read = state.operation == Operation::Read;
        let other = other.filter(|_| read || auth_result.is_ok());
        let Some((other, part)) = other.and_then(|other| Some((other, self.background.try_start()?))) else {
            self.record_origin(state, auth, auth_result, auth_measured);
            if other.is_some() {
                self.shed(state);
            }
            self.finish(state, stage);
            return self.replied(answer(Ok(&outcome), false));
        };
        let auth_snapshot = if read { self.snapshot(auth_result) } else { None };
        self.replied(answer(Ok(&outcome), true));
        // Recorded (tracker, statistics, metrics) with the authoritative one; no caller waits for it.
        let (other_result, other_measured) = self.call_unrecorded(op, other).await;
        self.record_origin(state, auth, auth_result, auth_measured);
        self.record_origin(state, other, &other_result, other_measured);
        if read {
            match self.later_check(auth, auth_snapshot, &other_result) {
                Some(later) => self.check_later(state, later).await,
                None => self.compare_reads(state, auth, auth_result, &other_result),
            }
        }
        self.finish(state, stage);
        drop(part);
    }
}
