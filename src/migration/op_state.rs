//! The state of one operation: what the flows of an operation (migrator.rs, calling.rs,
//! consistency.rs, background_flow.rs) and its abort path share while it runs.

use std::cell::RefCell;
use std::rc::Rc;

use super::delegation::Tracking;
use super::guard::GuardedOp;
use super::operation::{OperationResult, Outcome};
use super::stage::{Operation, Origin, Stage};
use crate::host::HostValue;
use crate::metrics::Attributes;

/// The state of one operation, shared with the abort path.
pub(super) struct OpState<V> {
    pub(super) operation: Operation,
    pub(super) flag_key: Rc<str>,
    /// The evaluated stage, once the flag was asked (for the metrics' attributes).
    pub(super) stage: std::cell::Cell<Stage>,
    pub(super) tracking: RefCell<Option<Tracking<V>>>,
    pub(super) takes_events: std::cell::Cell<bool>,
    pub(super) abort_reason: RefCell<Option<V>>,
    /// The caller's context, kept (a second reference) only with `mismatches()`.
    pub(super) context: RefCell<Option<V>>,
    /// With `guard()`: the operation's part in its flag key's guard, once routed.
    pub(super) guarded: std::cell::OnceCell<GuardedOp>,
}

impl<V: HostValue> OpState<V> {
    pub(super) fn new(operation: Operation, flag_key: Rc<str>) -> Rc<Self> {
        Rc::new(OpState {
            operation,
            flag_key,
            stage: std::cell::Cell::new(Stage::Off),
            tracking: RefCell::new(None),
            takes_events: std::cell::Cell::new(false),
            abort_reason: RefCell::new(None),
            context: RefCell::new(None),
            guarded: std::cell::OnceCell::new(),
        })
    }

    /// The attributes of this operation's measurements.
    pub(super) fn attributes(&self) -> Attributes<'_> {
        Attributes::operation(&self.flag_key, self.stage.get(), self.operation)
    }

    pub(super) fn with_tracking(&self, f: impl FnOnce(&mut Tracking<V>)) {
        if let Some(t) = self.tracking.borrow_mut().as_mut() {
            f(t);
        }
    }
}

/// The outcome of an operation the caller gets one result of.
pub(super) fn single<V>(origin: Origin, result: Result<V, V>) -> Outcome<V> {
    Outcome { authoritative: OperationResult { origin, result }, non_authoritative: None }
}
