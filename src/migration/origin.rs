//! The origins a migrator runs and the comparison it checks reads with: what the builder
//! collects and the migrator calls.

use std::rc::Rc;

use futures::future::LocalBoxFuture;

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

/// What an origin call came to: its result, and its latency when the host timed it.
pub type Timed<V> = (Result<V, V>, Option<f64>);

/// One implementation of a read or a write. `cancellable` tells the host whether the core may
/// cancel this call (a timeout is set or the caller passed a signal).
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
    /// Starts this origin and then `other` with the same payload, neither cancellable, each
    /// reporting as it settles (background mode's parallel read answers its caller when the
    /// authoritative one has settled): one host call to start both instead of two (`None`: the
    /// core calls them one by one). Both outcomes must be timed by the host.
    fn call_each(
        &self,
        _other: &dyn OriginFn<V>,
        _payload: Option<&V>,
    ) -> Option<[LocalBoxFuture<'static, Timed<V>>; 2]> {
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

pub use crate::diff::consistency::{Comparison, ExplainedCheck, Snapshot};

/// The two read origins and the optional comparison.
pub struct ReadOrigins<V> {
    pub old: Rc<dyn OriginFn<V>>,
    pub new: Rc<dyn OriginFn<V>>,
    pub comparison: Option<Rc<dyn Comparison<V>>>,
}

impl<V> Clone for ReadOrigins<V> {
    fn clone(&self) -> Self {
        ReadOrigins { old: self.old.clone(), new: self.new.clone(), comparison: self.comparison.clone() }
    }
}

/// The two write origins.
pub struct WriteOrigins<V> {
    pub old: Rc<dyn OriginFn<V>>,
    pub new: Rc<dyn OriginFn<V>>,
}

impl<V> Clone for WriteOrigins<V> {
    fn clone(&self) -> Self {
        WriteOrigins { old: self.old.clone(), new: self.new.clone() }
    }
}
