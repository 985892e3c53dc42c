//! Native tests of background mode (API §1 "Shadowing in production") on the fake clock: what
//! the caller waits for, what runs after, shedding, `settled()`, aborts, timeouts, and that the
//! event is the one foreground mode sends.
//!
//! The fixture's read origins take old 10 ms, new 20 ms; its writes old 5 ms, new 7 ms.

use std::cell::Cell;
use std::rc::Rc;

use futures::FutureExt;
use serde_json::{json, Value};

use super::migrator_tests::{abortable, request, strip_latency, text, FakeClient, Fixture, V};
use super::test_runs::{AnswerSlot, Replied, Runs};
use super::*;
use crate::host::Level;

fn background(max_in_flight: Option<f64>) -> Fixture {
    let mut f = Fixture::new(false, false);
    f.builder.background(max_in_flight).unwrap();
    f
}

/// Starts `operation`; returns the caller's answer slot and whether the whole operation ended.
fn start(
    f: &Fixture,
    m: &Migrator<V>,
    operation: Operation,
    req: OperationRequest<V>,
) -> (AnswerSlot<V>, Rc<Cell<bool>>) {
    let (slot, run) = m.start(operation, req);
    let ended = Rc::new(Cell::new(false));
    let mark = ended.clone();
    let _ = f.t.start(async move {
        run.await;
        mark.set(true);
    });
    (slot, ended)
}

fn answer(slot: &AnswerSlot<V>) -> Option<Replied<V>> {
    slot.borrow().clone()
}

fn authoritative(slot: &AnswerSlot<V>) -> Result<V, V> {
    answer(slot).expect("answered").0.expect("not aborted").authoritative.result
}

/// The event the same operation sends without background mode (latencies aside).
fn foreground_event(stage: Stage, operation: Operation) -> Value {
    let f = Fixture::new(false, false);
    let client = FakeClient::serving(stage);
    let m = f.migrator(client.clone());
    f.t.run(m.run_to_end(operation, request(Stage::Off))).unwrap();
    let event = strip_latency(client.events.borrow()[0].clone());
    event
}

#[test]
fn a_parallel_shadow_read_answers_when_the_authoritative_origin_settles() {
    let f = background(None);
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let (slot, ended) = start(&f, &m, Operation::Read, request(Stage::Off));
    f.t.settle();
    assert_eq!(f.journal.take(), ["old start@0", "new start@0"], "both start together");
    f.t.advance(10.0);
    assert_eq!(authoritative(&slot), Ok(text("old")));
    assert!(answer(&slot).unwrap().1, "a background part goes on");
    assert!(client.events.borrow().is_empty(), "the event waits for the whole operation");
    assert_eq!(m.stats().read.count, 0);
    assert_eq!(m.stats().read.old.invoked, 0, "the origins are recorded with the whole operation");
    assert_eq!(m.in_flight(), 1);
    f.t.advance(10.0);
    assert!(ended.get());
    assert_eq!(m.in_flight(), 0);
    assert_eq!(m.stats().read.count, 1);
    assert_eq!(m.stats().read.consistency.checked, 1);
    assert_eq!(f.comparison.calls.get(), 1);
    let event = strip_latency(client.events.borrow()[0].clone());
    assert_eq!(event, foreground_event(Stage::Shadow, Operation::Read), "the same event as foreground mode");
}

#[test]
fn latencies_are_measured_to_each_origins_own_settle() {
    let f = background(None);
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let _ = start(&f, &m, Operation::Read, request(Stage::Off));
    for _ in 0..25 {
        f.t.advance(1.0);
    }
    let event = client.events.borrow()[0].clone();
    let latency = event["measurements"].as_array().unwrap().iter().find(|m| m["key"] == "latency_ms").unwrap().clone();
    assert_eq!(latency["values"], json!({"old": 10, "new": 20}));
}

#[test]
fn at_live_the_caller_waits_for_new_only() {
    let f = background(None);
    let m = f.migrator(FakeClient::serving(Stage::Live));
    let (slot, ended) = start(&f, &m, Operation::Read, request(Stage::Off));
    f.t.advance(10.0);
    assert!(answer(&slot).is_none(), "old settled first; the caller waits for new, the authoritative one");
    f.t.advance(10.0);
    assert_eq!(authoritative(&slot), Ok(text("new")));
    assert!(ended.get(), "the other origin had already settled: nothing left in the background");
    assert_eq!(m.stats().read.consistency.checked, 1);
}

#[test]
fn serial_and_random_reads_start_the_other_origin_after_answering() {
    for order in ["serial", "random"] {
        let mut f = background(None);
        f.builder.read_execution_order(order).unwrap();
        let client = FakeClient::serving(Stage::Shadow);
        let m = f.migrator(client.clone());
        let (slot, ended) = start(&f, &m, Operation::Read, request(Stage::Off));
        f.t.advance(10.0);
        assert_eq!(authoritative(&slot), Ok(text("old")), "{order}");
        assert_eq!(f.journal.take(), ["old start@0", "old end@10", "new start@10"], "{order}");
        f.t.advance(20.0);
        assert!(ended.get(), "{order}");
        assert_eq!(client.events.borrow().len(), 1);
        assert_eq!(m.stats().read.consistency.checked, 1);
    }
}

#[test]
fn unshadowed_reads_have_no_background_part() {
    for stage in [Stage::Off, Stage::DualWrite, Stage::RampDown, Stage::Complete] {
        let f = background(Some(1.0));
        let m = f.migrator(FakeClient::serving(stage));
        let (slot, ended) = start(&f, &m, Operation::Read, request(Stage::Off));
        f.t.advance(20.0);
        assert!(!answer(&slot).unwrap().1, "{stage:?}");
        assert!(ended.get());
        assert_eq!(m.stats().read.shed, 0, "{stage:?}: nothing to shed");
    }
}

#[test]
fn writes_answer_after_the_authoritative_write_and_finish_the_other_in_the_background() {
    let f = background(None);
    let client = FakeClient::serving(Stage::DualWrite);
    let m = f.migrator(client.clone());
    let (slot, ended) = start(&f, &m, Operation::Write, request(Stage::Off));
    f.t.advance(5.0);
    let (outcome, more) = answer(&slot).unwrap();
    let outcome = outcome.unwrap();
    assert_eq!(outcome.authoritative.result, Ok(text("old-w")));
    assert_eq!(outcome.non_authoritative, None, "the caller gets no nonAuthoritative");
    assert!(more);
    assert_eq!(f.journal.take(), ["old-w start@0", "old-w end@5", "new-w start@5"]);
    assert!(client.events.borrow().is_empty());
    f.t.advance(7.0);
    assert!(ended.get());
    let event = strip_latency(client.events.borrow()[0].clone());
    assert_eq!(event, foreground_event(Stage::DualWrite, Operation::Write));
    assert_eq!(m.stats().write.new.invoked, 1);
}

#[test]
fn a_failed_authoritative_write_has_no_background_part() {
    let mut f = Fixture::new(true, false);
    f.builder.background(None).unwrap();
    let m = f.migrator(FakeClient::serving(Stage::DualWrite));
    let (slot, ended) = start(&f, &m, Operation::Write, request(Stage::Off));
    f.t.advance(5.0);
    assert!(!answer(&slot).unwrap().1);
    assert!(ended.get());
    assert_eq!(m.stats().write.new.invoked, 0);
}

#[test]
fn past_max_in_flight_an_operation_runs_its_authoritative_origin_only() {
    let f = background(Some(2.0));
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let runs: Vec<_> = (0..5).map(|_| start(&f, &m, Operation::Read, request(Stage::Off))).collect();
    f.t.settle();
    let starts = f.journal.take();
    assert_eq!(starts.iter().filter(|l| l.starts_with("new start")).count(), 2, "{starts:?}");
    assert_eq!(m.in_flight(), 2);
    f.t.advance(10.0);
    assert!(runs.iter().all(|(slot, _)| authoritative(slot) == Ok(text("old"))), "every caller is answered");
    assert_eq!(runs.iter().filter(|(slot, _)| answer(slot).unwrap().1).count(), 2);
    assert_eq!(m.stats().read.shed, 3);
    assert_eq!(m.stats().read.count, 3, "the shed ones have ended");
    let shed = strip_latency(client.events.borrow()[0].clone());
    assert_eq!(
        shed["measurements"],
        json!([{"key": "invoked", "values": {"old": true}}, {"key": "latency_ms", "values": {"old": 1}}]),
        "a shed operation's event records only what ran"
    );
    f.t.advance(10.0);
    assert!(runs.iter().all(|(_, ended)| ended.get()));
    assert_eq!(m.stats().read.count, 5);
    assert_eq!(m.stats().read.consistency.checked, 2);
    assert_eq!(m.in_flight(), 0);
    // The places are free again.
    let (slot, _) = start(&f, &m, Operation::Read, request(Stage::Off));
    f.t.advance(10.0);
    assert!(answer(&slot).unwrap().1);
}

#[test]
fn writes_are_shed_too_and_counted_apart_from_reads() {
    let f = background(Some(1.0));
    let m = f.migrator(FakeClient::serving(Stage::Live));
    let first = start(&f, &m, Operation::Write, request(Stage::Off));
    let second = start(&f, &m, Operation::Write, request(Stage::Off));
    f.t.advance(7.0);
    assert_eq!((answer(&first.0).unwrap().1, answer(&second.0).unwrap().1), (true, false));
    f.t.advance(5.0);
    let s = m.stats();
    assert_eq!((s.write.shed, s.read.shed), (1, 0));
    assert_eq!((s.write.new.invoked, s.write.old.invoked), (2, 1));
}

#[test]
fn serial_reads_are_shed_when_the_authoritative_origin_settles() {
    let mut f = background(Some(1.0));
    f.builder.read_execution_order("serial").unwrap();
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    let a = start(&f, &m, Operation::Read, request(Stage::Off));
    let b = start(&f, &m, Operation::Read, request(Stage::Off));
    f.t.advance(10.0);
    assert_eq!(m.stats().read.shed, 1);
    assert_eq!((answer(&a.0).unwrap().1, answer(&b.0).unwrap().1), (true, false));
}

#[test]
fn settled_waits_for_the_background_parts_started_before_it() {
    let f = background(None);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    assert!(m.settled().now_or_never().is_some(), "none running: at once");
    let _ = start(&f, &m, Operation::Read, request(Stage::Off));
    f.t.advance(10.0);
    let settled = f.t.start(m.settled());
    f.t.advance(5.0);
    let _ = start(&f, &m, Operation::Read, request(Stage::Off));
    f.t.advance(4.0);
    assert!(settled.borrow().is_none());
    f.t.advance(1.0);
    assert!(settled.borrow().is_some(), "at 20 ms; the read started at 15 ms does not count");
    assert_eq!(m.in_flight(), 1);
}

#[test]
fn settled_resolves_at_once_without_background_mode() {
    let f = Fixture::new(false, false);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    let (_slot, _) = start(&f, &m, Operation::Read, request(Stage::Off));
    assert!(m.settled().now_or_never().is_some());
}

#[test]
fn the_callers_signal_aborts_only_until_the_operation_is_answered() {
    let f = background(None);
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let mut req = request(Stage::Off);
    req.abort = Some(abortable(&f, 15.0));
    let (slot, ended) = start(&f, &m, Operation::Read, req);
    for _ in 0..25 {
        f.t.advance(1.0);
    }
    assert_eq!(authoritative(&slot), Ok(text("old")));
    assert!(ended.get());
    assert!(!f.journal.take().iter().any(|l| l.contains("aborted")), "the abort at 15 ms came after the answer");
    assert_eq!(client.events.borrow().len(), 1);
}

#[test]
fn an_abort_before_the_answer_cancels_both_origins_and_sends_nothing() {
    let f = background(None);
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let mut req = request(Stage::Off);
    req.abort = Some(abortable(&f, 5.0));
    let (slot, ended) = start(&f, &m, Operation::Read, req);
    f.t.advance(5.0);
    assert_eq!(answer(&slot).unwrap().0, Err(text("caller gave up")));
    assert!(ended.get());
    let lines = f.journal.take();
    assert!(
        lines.contains(&"old aborted: caller gave up".into()) && lines.contains(&"new aborted: caller gave up".into())
    );
    assert!(client.events.borrow().is_empty());
    assert_eq!(m.in_flight(), 0, "the aborted operation's part ended with it");
}

#[test]
fn origin_timeout_bounds_the_background_origin() {
    let mut f = background(None);
    f.builder.origin_timeout(15.0).unwrap();
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let (slot, ended) = start(&f, &m, Operation::Read, request(Stage::Off));
    for _ in 0..16 {
        f.t.advance(1.0);
    }
    assert_eq!(authoritative(&slot), Ok(text("old")));
    assert!(ended.get(), "the new origin timed out at 15 ms");
    assert_eq!(m.stats().read.new.timeouts, 1);
    let event = &client.events.borrow()[0];
    assert_eq!(event["measurements"][2], json!({"key": "error", "values": {"new": true}}));
}

#[test]
fn a_failed_background_origin_is_a_recorded_error() {
    let mut f = Fixture::new(false, true);
    f.builder.background(None).unwrap();
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let (slot, _) = start(&f, &m, Operation::Read, request(Stage::Off));
    f.t.advance(20.0);
    assert_eq!(authoritative(&slot), Ok(text("old")));
    assert_eq!(m.stats().read.new.errors, 1);
    assert_eq!(m.stats().read.consistency.checked, 0, "no check without two successes");
    assert_eq!(client.events.borrow()[0]["measurements"][2], json!({"key": "error", "values": {"new": true}}));
}

#[test]
fn a_hand_over_that_fails_is_logged_and_the_operation_goes_on() {
    let f = background(None);
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let answered = Rc::new(Cell::new(false));
    let seen = answered.clone();
    let run = m.run(Operation::Read, request(Stage::Off), move |outcome, background| {
        assert!(outcome.is_ok() && background);
        seen.set(true);
        Err(text("waitUntil is broken"))
    });
    let _ = f.t.start(run);
    f.t.advance(20.0);
    assert!(answered.get());
    assert_eq!(f.t.logger.messages(Level::Error), ["waitUntil threw: waitUntil is broken"]);
    assert_eq!(client.events.borrow().len(), 1);
}

#[test]
fn max_in_flight_must_be_a_positive_integer() {
    let mut b: MigratorBuilder<V> = MigratorBuilder::new();
    for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY, 5e9] {
        let e = b.background(Some(bad)).unwrap_err();
        assert!(matches!(e, Error::Range(_)), "{bad}");
        assert!(e.to_string().starts_with("background: maxInFlight must be a positive integer, got "), "{e}");
    }
    b.background(Some(1.0)).unwrap();
    b.background(None).unwrap();
}
