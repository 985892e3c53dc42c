//! What one operation takes and what it comes to.

use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::client::DefaultStage;
use super::stage::Origin;

/// One origin's result.
#[derive(Clone, Debug, PartialEq)]
pub struct OperationResult<V> {
    pub origin: Origin,
    pub result: Result<V, V>,
}

/// What an operation came to: the authoritative origin's result, and the other origin's when
/// the caller gets it (a write's second write, when it ran; a read never hands it out).
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome<V> {
    pub authoritative: OperationResult<V>,
    pub non_authoritative: Option<OperationResult<V>>,
}

/// A write's results: the second write is absent when it did not run.
pub type WriteResult<V> = Outcome<V>;

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

/// What a migrator hands the caller's outcome to, once (`Migrator::run`): the outcome or the
/// abort reason, and whether a background part goes on. An `Err` is what the host's `waitUntil`
/// threw (logged, nothing more).
pub trait Reply<V>: FnOnce(Result<&Outcome<V>, &V>, bool) -> Result<(), V> {}

impl<V, F: FnOnce(Result<&Outcome<V>, &V>, bool) -> Result<(), V>> Reply<V> for F {}
