//! The consistency check of a shadowed read (SPEC A2): the comparison (or the tracker's own
//! check), its statistics and metrics, and with `mismatches()` the explanation of a mismatch.
//!
//! A comparison that reads values first (`Comparison::snapshot`, `sameResponse`) is checked
//! later: each origin's value is snapshotted when it has settled, the caller gets its result, and
//! the check runs once both snapshots are read — as the operation's background part, in
//! foreground mode too, so its one event carries `consistent`.

use std::pin::pin;

use futures::future::LocalBoxFuture;
use futures::future::{self, Either};
use futures::{FutureExt, TryFutureExt};

use super::background::Part;
use super::mismatches::{Found, Mismatches};
use super::op_state::OpState;
use super::origin::Snapshot;
use super::shared::Shared;
use super::stage::Origin;
use crate::host::HostValue;
use crate::metrics::Instrument;

/// A read's check that runs later: the two snapshots, being read.
pub(super) struct LaterCheck<V> {
    old: Snapshot<V>,
    new: Snapshot<V>,
}

impl<V: HostValue> Shared<V> {
    /// The consistency check of a read whose authoritative origin is `auth`.
    pub(super) fn compare_reads(
        &self,
        state: &OpState<V>,
        auth: Origin,
        auth_result: &Result<V, V>,
        other_result: &Result<V, V>,
    ) {
        let (old, new) = match auth {
            Origin::Old => (auth_result, other_result),
            Origin::New => (other_result, auth_result),
        };
        self.check_consistency(state, old, new);
    }

    /// Compares two successful reads when a comparison is configured and the tracker samples it.
    pub(super) fn check_consistency(&self, state: &OpState<V>, old: &Result<V, V>, new: &Result<V, V>) {
        let (Ok(old), Ok(new)) = (old, new) else {
            return;
        };
        self.check_values(state, old, new);
    }

    /// The check of two values (two successful reads, or their snapshots). Not inlined: its two
    /// callers share one copy.
    #[inline(never)]
    fn check_values(&self, state: &OpState<V>, old: &V, new: &V) {
        let Some(comparison) = &self.read.comparison else {
            return;
        };
        let (mut answer, mut explained) = (None, None);
        state.with_tracking(|t| match &self.mismatches {
            Some(mismatches) => {
                let max = mismatches.max_differences();
                (answer, explained) = t.consistency_explained(&self.host, comparison, (old, new), max);
            }
            None => answer = t.consistency(&self.host, comparison, old, new),
        });
        let Some(consistent) = answer else {
            return;
        };
        self.stats.borrow_mut().record_check(consistent);
        if let Some(guarded) = state.guarded.get() {
            guarded.note_check(consistent);
        }
        // A mismatch is explained only when `mismatches()` asked for it.
        let label = match (&self.mismatches, consistent) {
            (Some(mismatches), false) => self.explain(mismatches, state, comparison.ignore(), (old, new), explained),
            _ => None,
        };
        if let Some(metrics) = &self.host.metrics {
            let attributes = state.attributes();
            metrics.record(Instrument::ConsistencyChecks, 1.0, &attributes);
            if !consistent {
                let attributes = match &label {
                    Some(path) => attributes.with_mismatch_path(path),
                    None => attributes,
                };
                metrics.record(Instrument::ConsistencyMismatches, 1.0, &attributes);
            }
        }
    }

    /// Starts the snapshot of a settled read origin's result, when the read's comparison reads
    /// values first and the origin succeeded (`None` otherwise: nothing to read).
    pub(super) fn snapshot(&self, result: &Result<V, V>) -> Option<Snapshot<V>> {
        self.read.comparison.as_ref()?.snapshot(result.as_ref().ok()?)
    }

    /// The check of a read whose origins have both settled, when it runs later: the authoritative
    /// origin's snapshot (started before its caller got it) and the other's, started now. `None`
    /// when the comparison compares values as they are, or an origin failed (then
    /// `compare_reads` is the check, which records nothing for a failed origin).
    pub(super) fn later_check(
        &self,
        auth: Origin,
        auth_snapshot: Option<Snapshot<V>>,
        other_result: &Result<V, V>,
    ) -> Option<LaterCheck<V>> {
        let auth_snapshot = auth_snapshot?;
        let other_snapshot = self.snapshot(other_result)?;
        Some(match auth {
            Origin::Old => LaterCheck { old: auth_snapshot, new: other_snapshot },
            Origin::New => LaterCheck { old: other_snapshot, new: auth_snapshot },
        })
    }

    /// The background part of a foreground read whose check runs later (the caller gets its
    /// result first; the check and the event follow, and `settled()` and `waitUntil` wait for
    /// them), at most `maxInFlight` of them at once (its default without `background()`). Past
    /// that, `None`: this read records no consistency value.
    pub(super) fn later_part(&self, state: &OpState<V>, later: LaterCheck<V>) -> Option<(LaterCheck<V>, Part<'_>)> {
        let Some(part) = self.background.try_start() else {
            drop(later);
            self.host.warn(&format!(
                "consistency check for migration flag '{}' not made: {} checks are already reading their values, so no consistency value is recorded",
                state.flag_key,
                self.background.in_flight()
            ));
            return None;
        };
        Some((later, part))
    }

    /// Waits for both snapshots (at most `originTimeout`, when set), then checks them as
    /// `check_consistency` checks two reads. A snapshot that could not be read, or a wait past
    /// the timeout, records no consistency value (logged at warn level).
    ///
    /// Boxed: the flows that await it (foreground, parallel and serial background reads) share
    /// one copy of its code instead of each inlining it.
    pub(super) fn check_later<'a>(&'a self, state: &'a OpState<V>, later: LaterCheck<V>) -> LocalBoxFuture<'a, ()> {
        self.check_snapshots(state, later).boxed_local()
    }

    async fn check_snapshots(&self, state: &OpState<V>, later: LaterCheck<V>) {
        let LaterCheck { old, new } = later;
        let both = future::try_join(old.map_err(|e| (Origin::Old, e)), new.map_err(|e| (Origin::New, e)));
        let read = match self.settings.origin_timeout_ms {
            None => Ok(both.await),
            Some(ms) => match future::select(pin!(both), self.host.sleep.sleep(ms)).await {
                Either::Left((read, _)) => Ok(read),
                Either::Right(((), _)) => Err(ms),
            },
        };
        let flag_key = &state.flag_key;
        match read {
            Ok(Ok((old, new))) => self.check_values(state, &old, &new),
            Ok(Err((origin, reason))) => self.host.warn(&format!(
                "consistency check for migration flag '{flag_key}' could not read the {} origin's value, so no consistency value is recorded: {}",
                origin.as_str(),
                reason.describe()
            )),
            Err(ms) => self.host.warn(&format!(
                "consistency check for migration flag '{flag_key}' could not read both values within originTimeout ({} ms), so no consistency value is recorded",
                crate::util::text::number(ms)
            )),
        }
    }

    /// Explains (unless the comparison already did: `explained`) and keeps a mismatch; the label
    /// of its first difference's path, for the metric.
    fn explain(
        &self,
        mismatches: &Mismatches<V>,
        state: &OpState<V>,
        ignore: Option<&crate::diff::Ignore>,
        (old, new): (&V, &V),
        explained: Option<crate::diff::Explanation<V>>,
    ) -> Option<String> {
        let context = state.context.borrow();
        let context = context.as_ref()?;
        let at = self.host.clock.epoch_ms();
        let found =
            Found { flag_key: &state.flag_key, stage: state.stage.get(), context, at, old, new, ignore, explained };
        let (label, told) = mismatches.record(found);
        if let Err(thrown) = told {
            self.host.error(&format!("onMismatch threw: {}", thrown.describe()));
        }
        // A mismatch the walk found nothing in (a comparison of the caller's that said `false`
        // for equal structures) is labelled `_OTHER` too.
        Some(label.unwrap_or_else(|| crate::diff::OTHER.to_owned()))
    }
}
