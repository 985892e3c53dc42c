//! The consistency check of a shadowed read (SPEC A2): the comparison (or the tracker's own
//! check), its statistics and metrics, and with `mismatches()` the explanation of a mismatch.

use super::migrator::{OpState, Shared};
use super::mismatches::{Found, Mismatches};
use super::stage::Origin;
use crate::host::HostValue;
use crate::metrics::Instrument;

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
        let (Some(comparison), Ok(old), Ok(new)) = (&self.read.comparison, old, new) else {
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
