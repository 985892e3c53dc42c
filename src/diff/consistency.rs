//! The consistency comparison a migration runs on an old and a new value: the contract
//! `sameStructure`, `sameResponse` and a caller's own function fulfil. Declared here, below the
//! migration core that calls it, so that the comparisons it has need nothing above them.

use futures::future::LocalBoxFuture;

/// What a comparison that reads values first compares instead of an origin's value, once read
/// (`sameResponse`: the `{ status, headers, body }` of a Response); `Err(reason)` when it could
/// not be read (a body over `maxBodyBytes`, a body that failed): no consistency value then.
pub type Snapshot<V> = LocalBoxFuture<'static, Result<V, V>>;

/// The consistency comparison, always called as `(old, new)`.
pub trait Comparison<V> {
    fn compare(&self, old: &V, new: &V) -> Result<bool, V>;
    /// With `mismatches()`: compares, and may explain a mismatch in the same pass (up to
    /// `max_differences`); an explanation of `None` leaves it to the migrator's explainer. A
    /// `sameStructure` comparison walks one flattening of the pair for both.
    fn compare_explained(&self, old: &V, new: &V, _max_differences: usize) -> ExplainedCheck<V> {
        self.compare(old, new).map(|same| (same, None))
    }
    /// For a comparison of values that must be read first (`sameResponse`: a Response's body
    /// arrives later, and can be read only once): starts reading `value`, an origin's successful
    /// result, when the origin has settled and before the caller gets it. With `Some`, the check
    /// runs on what the two snapshots resolve to, after the caller got its result, and the
    /// operation's event waits for it. `None` (every other comparison): the values are compared
    /// as they are, once both origins have settled.
    fn snapshot(&self, _value: &V) -> Option<Snapshot<V>> {
        None
    }
    /// The host's own comparison function, for trackers that can call it themselves.
    fn handle(&self) -> Option<&V> {
        None
    }
    /// A `sameStructure` comparison's `ignore` patterns: the mismatches it finds are explained
    /// with them. `None` for any other comparison.
    fn ignore(&self) -> Option<&super::Ignore> {
        None
    }
}

/// What [`Comparison::compare_explained`] answers: whether the values are the same, with the
/// mismatch's explanation when the comparison made one; or what the comparison threw.
pub type ExplainedCheck<V> = Result<(bool, Option<super::Explanation<V>>), V>;
