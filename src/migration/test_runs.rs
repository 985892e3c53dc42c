//! Tests' view of `Migrator::run`: a future of the caller's outcome, owned (the test values are
//! cheap to clone), resolving when the whole operation has ended.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use super::migrator::Migrator;
use super::operation::{OperationRequest, OperationResult, Outcome, WriteResult};
use super::stage::Operation;
use crate::host::HostValue;

/// What the caller was answered, and whether a background part went on after it.
pub type Replied<V> = (Result<Outcome<V>, V>, bool);

/// The caller's answer of an operation, filled in when the migrator hands it over.
pub type AnswerSlot<V> = Rc<RefCell<Option<Replied<V>>>>;

pub trait Runs<V> {
    /// Starts `operation`; the returned slot holds the caller's answer once it was handed over,
    /// and the future ends with the operation (its background part included).
    fn start(
        &self,
        operation: Operation,
        request: OperationRequest<V>,
    ) -> (AnswerSlot<V>, impl Future<Output = ()> + 'static);
    fn run_to_end(
        &self,
        operation: Operation,
        request: OperationRequest<V>,
    ) -> impl Future<Output = Result<Outcome<V>, V>> + 'static;
    fn read(&self, request: OperationRequest<V>) -> impl Future<Output = Result<OperationResult<V>, V>> + 'static;
    fn write(&self, request: OperationRequest<V>) -> impl Future<Output = Result<WriteResult<V>, V>> + 'static;
}

impl<V: HostValue + 'static> Runs<V> for Migrator<V> {
    fn start(
        &self,
        operation: Operation,
        request: OperationRequest<V>,
    ) -> (AnswerSlot<V>, impl Future<Output = ()> + 'static) {
        let slot: AnswerSlot<V> = Rc::default();
        let into = slot.clone();
        let run = Migrator::run(self, operation, request, move |answered, background| {
            let previous = into.borrow_mut().replace((answered.cloned().map_err(V::clone), background));
            assert!(previous.is_none(), "answered twice");
            Ok(())
        });
        (slot, run)
    }
    fn run_to_end(
        &self,
        operation: Operation,
        request: OperationRequest<V>,
    ) -> impl Future<Output = Result<Outcome<V>, V>> + 'static {
        let (slot, run) = self.start(operation, request);
        async move {
            run.await;
            let answer = slot.borrow_mut().take();
            answer.expect("the operation answered its caller").0
        }
    }
    fn read(&self, request: OperationRequest<V>) -> impl Future<Output = Result<OperationResult<V>, V>> + 'static {
        let run = self.run_to_end(Operation::Read, request);
        async move { run.await.map(|outcome| outcome.authoritative) }
    }
    fn write(&self, request: OperationRequest<V>) -> impl Future<Output = Result<WriteResult<V>, V>> + 'static {
        self.run_to_end(Operation::Write, request)
    }
}
