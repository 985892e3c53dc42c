//! Native tests of checks that run later (`Comparison::snapshot`, as `sameResponse` makes them)
//! on the fake clock: each value is snapshotted when its origin settles and before the caller
//! gets it, the check runs once both snapshots are read and after the caller's answer, the one
//! event waits for it, and a snapshot that cannot be read records no consistency value. In
//! foreground mode and in background mode.
//!
//! The fixture's read origins take old 10 ms, new 20 ms; snapshots take `read_ms` more.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::FutureExt;
use serde_json::json;

use super::migrator_tests::{request, text, FakeClient, FakeExternal, Fixture, Journal, V};
use super::test_runs::{AnswerSlot, Runs};
use super::*;
use crate::diff::{Explanation, Ignore};
use crate::host::{Host, HostValue, Level};
use crate::testing::TestValue;

/// Reads each value in `read_ms` into `{"read": value}`; the value named `fails` cannot be read.
struct Reading {
    host: Host,
    journal: Rc<Journal>,
    read_ms: f64,
    fails: Option<&'static str>,
    answer: bool,
    compared: RefCell<Vec<(V, V)>>,
}

/// Notes in the journal a snapshot dropped before it was read.
struct Unread {
    journal: Rc<Journal>,
    name: String,
    read: Cell<bool>,
}

impl Drop for Unread {
    fn drop(&mut self) {
        if !self.read.get() {
            self.journal.push(format!("snapshot {} dropped", self.name));
        }
    }
}

impl Comparison<V> for Reading {
    fn compare(&self, old: &V, new: &V) -> Result<bool, V> {
        self.compared.borrow_mut().push((old.clone(), new.clone()));
        Ok(self.answer)
    }
    fn snapshot(&self, value: &V) -> Option<Snapshot<V>> {
        let name = value.describe();
        self.journal.push(format!("snapshot {name}@{}", self.host.clock.monotonic_ms()));
        let sleep = self.host.sleep.sleep(self.read_ms);
        let unread = Unread { journal: self.journal.clone(), name: name.clone(), read: Cell::new(false) };
        let fails = self.fails == Some(name.as_str());
        Some(
            async move {
                sleep.await;
                unread.read.set(true);
                if fails {
                    Err(text(&format!("{name}'s body broke")))
                } else {
                    Ok(TestValue::Json(json!({ "read": name })))
                }
            }
            .boxed_local(),
        )
    }
}

fn read_json(name: &str) -> V {
    TestValue::Json(json!({ "read": name }))
}

/// A fixture whose comparison reads values in `read_ms`.
fn fixture(background: bool, read_ms: f64, fails: Option<&'static str>, answer: bool) -> (Fixture, Rc<Reading>) {
    let mut f = Fixture::new(false, false);
    let reading = Rc::new(Reading {
        host: f.t.host.clone(),
        journal: f.journal.clone(),
        read_ms,
        fails,
        answer,
        compared: RefCell::default(),
    });
    f.compare_with(reading.clone());
    if background {
        f.builder.background(None).unwrap();
    }
    (f, reading)
}

/// Starts a read whose answer closure notes in the journal that the caller got it.
fn start_read(f: &Fixture, m: &Migrator<V>) -> (AnswerSlot<V>, Rc<Cell<bool>>) {
    let slot: AnswerSlot<V> = Rc::default();
    let (into, journal, clock) = (slot.clone(), f.journal.clone(), f.t.clock.clone());
    let run = m.run(Operation::Read, request(Stage::Off), move |answered, background| {
        journal.push(format!("answered@{}", clock.now()));
        *into.borrow_mut() = Some((answered.cloned().map_err(V::clone), background));
        Ok(())
    });
    let ended = Rc::new(Cell::new(false));
    let mark = ended.clone();
    let _ = f.t.start(async move {
        run.await;
        mark.set(true);
    });
    (slot, ended)
}

fn snapshots_and_answers(journal: &Journal) -> Vec<String> {
    journal.take().into_iter().filter(|l| l.starts_with("snapshot") || l.starts_with("answered")).collect()
}

fn consistent(client: &FakeClient) -> Option<serde_json::Value> {
    let events = client.events.borrow();
    let event = events.first().expect("an event");
    event["measurements"].as_array().unwrap().iter().find(|m| m["key"] == "consistent").map(|m| m["value"].clone())
}

#[test]
fn a_foreground_read_answers_then_checks_the_snapshots_and_then_sends_its_event() {
    let (f, reading) = fixture(false, 5.0, None, false);
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let (slot, ended) = start_read(&f, &m);
    f.t.advance(20.0);
    let (outcome, more) = slot.borrow().clone().expect("answered when both origins settled");
    assert_eq!(outcome.unwrap().authoritative.result, Ok(text("old")), "the caller gets the value itself");
    assert!(more, "the check goes on as a background part");
    assert_eq!(snapshots_and_answers(&f.journal), ["snapshot old@20", "snapshot new@20", "answered@20"]);
    assert!(reading.compared.borrow().is_empty(), "nothing compared before the bodies are read");
    assert!(client.events.borrow().is_empty(), "the event waits for the check");
    assert_eq!(m.stats().read.count, 0);
    assert_eq!(m.in_flight(), 1, "settled() waits for it");
    f.t.advance(5.0);
    assert!(ended.get());
    assert_eq!(*reading.compared.borrow(), [(read_json("old"), read_json("new"))], "(old, new) snapshots");
    assert_eq!(consistent(&client), Some(json!(false)), "the event carries the check");
    let stats = m.stats().read;
    assert_eq!((stats.count, stats.consistency.checked, stats.consistency.consistent), (1, 1, 0));
    assert_eq!(m.in_flight(), 0);
}

#[test]
fn at_live_old_and_new_keep_their_places() {
    let (f, reading) = fixture(false, 1.0, None, true);
    let client = FakeClient::serving(Stage::Live);
    let m = f.migrator(client.clone());
    f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(*reading.compared.borrow(), [(read_json("old"), read_json("new"))]);
    assert_eq!(consistent(&client), Some(json!(true)));
}

#[test]
fn a_background_read_snapshots_the_authoritative_value_before_the_caller_gets_it() {
    let (f, reading) = fixture(true, 5.0, None, true);
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let (slot, ended) = start_read(&f, &m);
    f.t.advance(10.0);
    assert!(slot.borrow().is_some());
    assert_eq!(snapshots_and_answers(&f.journal), ["snapshot old@10", "answered@10"]);
    f.t.advance(10.0);
    assert_eq!(snapshots_and_answers(&f.journal), ["snapshot new@20"]);
    assert!(client.events.borrow().is_empty() && !ended.get(), "the new body is being read");
    f.t.advance(5.0);
    assert!(ended.get());
    assert_eq!(reading.compared.borrow().len(), 1);
    assert_eq!(consistent(&client), Some(json!(true)));
    assert_eq!(m.stats().read.consistency.consistent, 1);
}

#[test]
fn a_serial_background_read_snapshots_the_authoritative_value_before_answering() {
    for stage in [Stage::Shadow, Stage::Live] {
        let (mut f, reading) = fixture(true, 5.0, None, true);
        f.builder.read_execution_order("serial").unwrap();
        let client = FakeClient::serving(stage);
        let m = f.migrator(client.clone());
        let (_, ended) = start_read(&f, &m);
        for _ in 0..50 {
            f.t.advance(1.0);
        }
        let lines = snapshots_and_answers(&f.journal);
        let auth = if stage == Stage::Shadow { "old" } else { "new" };
        assert!(lines[0].starts_with(&format!("snapshot {auth}@")), "{stage:?}: {lines:?}");
        assert!(lines[1].starts_with("answered@"), "{stage:?}: {lines:?}");
        assert!(ended.get());
        assert_eq!(*reading.compared.borrow(), [(read_json("old"), read_json("new"))], "{stage:?}");
        assert_eq!(consistent(&client), Some(json!(true)));
    }
}

#[test]
fn a_snapshot_that_cannot_be_read_records_no_consistency_value() {
    for background in [false, true] {
        let (f, reading) = fixture(background, 5.0, Some("new"), true);
        let client = FakeClient::serving(Stage::Shadow);
        let m = f.migrator(client.clone());
        f.t.run(m.read(request(Stage::Off))).unwrap();
        f.t.run(m.settled());
        assert!(reading.compared.borrow().is_empty());
        assert_eq!(consistent(&client), None, "background {background}: no consistent measurement");
        let stats = m.stats().read;
        assert_eq!((stats.count, stats.consistency.checked), (1, 0));
        let warned = f.t.logger.messages(Level::Warn);
        assert!(
            warned
                .iter()
                .any(|l| l.contains("could not read the new origin's value") && l.contains("new's body broke")),
            "{warned:?}"
        );
    }
}

#[test]
fn a_failed_origin_drops_the_other_snapshot_and_checks_nothing() {
    let mut f = Fixture::new(false, true);
    let reading = Rc::new(Reading {
        host: f.t.host.clone(),
        journal: f.journal.clone(),
        read_ms: 50.0,
        fails: None,
        answer: true,
        compared: RefCell::default(),
    });
    f.compare_with(reading.clone());
    f.builder.background(None).unwrap();
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let (slot, ended) = start_read(&f, &m);
    f.t.advance(10.0);
    f.t.advance(10.0);
    assert!(slot.borrow().is_some() && ended.get(), "ended when new failed, without waiting for old's body");
    assert_eq!(snapshots_and_answers(&f.journal), ["snapshot old@10", "answered@10", "snapshot old dropped"]);
    assert!(reading.compared.borrow().is_empty());
    assert_eq!(consistent(&client), None);
    assert!(f.t.logger.messages(Level::Warn).is_empty(), "nothing to warn about: an origin failed");
}

#[test]
fn unshadowed_reads_snapshot_nothing() {
    for stage in [Stage::Off, Stage::DualWrite, Stage::RampDown, Stage::Complete] {
        for background in [false, true] {
            let (f, _) = fixture(background, 5.0, None, true);
            let m = f.migrator(FakeClient::serving(stage));
            let (slot, ended) = start_read(&f, &m);
            f.t.advance(20.0);
            assert!(!slot.borrow().clone().unwrap().1, "{stage:?}: no background part");
            assert!(ended.get());
            let lines = snapshots_and_answers(&f.journal);
            assert!(lines.iter().all(|l| !l.starts_with("snapshot")), "{stage:?}: {lines:?}");
        }
    }
}

#[test]
fn origin_timeout_bounds_the_wait_for_the_snapshots() {
    for background in [false, true] {
        let (mut f, reading) = fixture(background, 1000.0, None, true);
        f.builder.origin_timeout(100.0).unwrap();
        let client = FakeClient::serving(Stage::Shadow);
        let m = f.migrator(client.clone());
        let (slot, ended) = start_read(&f, &m);
        f.t.advance(20.0);
        assert!(slot.borrow().is_some());
        f.t.advance(100.0);
        assert!(ended.get(), "background {background}: the check gave up after originTimeout");
        assert!(reading.compared.borrow().is_empty());
        assert_eq!(consistent(&client), None);
        let warned = f.t.logger.messages(Level::Warn);
        assert!(warned.iter().any(|l| l.contains("within originTimeout (100 ms)")), "{warned:?}");
        let lines = snapshots_and_answers(&f.journal);
        assert!(
            lines.contains(&"snapshot old dropped".to_owned()) && lines.contains(&"snapshot new dropped".to_owned())
        );
    }
}

#[test]
fn in_foreground_mode_at_most_the_default_max_in_flight_checks_wait() {
    let (f, reading) = fixture(false, 1000.0, None, true);
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let max = background::DEFAULT_MAX_IN_FLIGHT as usize;
    let runs: Vec<_> = (0..max + 1).map(|_| start_read(&f, &m)).collect();
    f.t.advance(20.0);
    assert!(runs.iter().all(|(slot, _)| slot.borrow().is_some()), "every caller is answered");
    assert_eq!(m.in_flight(), max);
    assert_eq!(runs.iter().filter(|(_, ended)| ended.get()).count(), 1, "the last one checks nothing");
    assert!(f.t.logger.messages(Level::Warn).iter().any(|l| l.contains("100 checks are already reading")));
    f.t.advance(1000.0);
    assert!(runs.iter().all(|(_, ended)| ended.get()));
    assert_eq!(reading.compared.borrow().len(), max);
    assert_eq!(m.stats().read.consistency.checked, max as u64);
    assert_eq!(m.stats().read.count, max as u64 + 1);
}

#[test]
fn settled_waits_for_a_foreground_check() {
    let (f, _) = fixture(false, 30.0, None, true);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    let _ = start_read(&f, &m);
    f.t.advance(20.0);
    let settled = f.t.start(m.settled());
    f.t.advance(29.0);
    assert!(settled.borrow().is_none());
    f.t.advance(1.0);
    assert!(settled.borrow().is_some());
}

#[test]
fn an_external_tracker_samples_the_check_of_the_snapshots() {
    let (f, reading) = fixture(false, 5.0, None, false);
    let journal = Rc::new(Journal::default());
    let tj = journal.clone();
    let sent = Rc::new(std::cell::RefCell::new(Vec::new()));
    let to_client = sent.clone();
    let client = FakeClient::with(move || {
        let mut s = ServedEvaluation::stage(Some(Stage::Shadow));
        s.tracker = Some(OfferedTracker::Usable(Box::new(FakeExternal {
            journal: tj.clone(),
            sample: true,
            event: Some(text("ld event")),
            throw_on_latency: false,
            sent: to_client.clone(),
        })));
        Ok(s)
    });
    let m = f.migrator(client.clone());
    f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(
        journal.take(),
        ["consistency false", "op read", "invoked old", "latency old", "invoked new", "latency new", "createEvent"]
    );
    assert_eq!(*reading.compared.borrow(), [(read_json("old"), read_json("new"))]);
    assert_eq!(*sent.borrow(), vec![text("ld event")]);
}

/// Explains a pair as one difference at the root, keeping the values it was given.
struct Root;

impl Explainer<V> for Root {
    fn explain(&self, old: &V, new: &V, _ignore: Option<&Ignore>, _max: usize) -> Explanation<V> {
        let difference = crate::diff::Difference {
            path: "/read".into(),
            normalised: "/read".into(),
            kind: crate::diff::DifferenceKind::Changed,
            old: Some(old.clone()),
            new: Some(new.clone()),
            unreadable: None,
        };
        Explanation { truncated: false, differences: vec![difference], bound: None }
    }
}

#[test]
fn a_mismatch_of_snapshots_is_explained_with_the_snapshots() {
    let (mut f, _) = fixture(true, 5.0, None, false);
    f.builder.mismatches(MismatchSettings::new(None, None).unwrap(), Rc::new(Root), None);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    f.t.run(m.settled());
    let kept = m.mismatches();
    assert_eq!(kept.len(), 1);
    assert_eq!((kept[0].old.clone(), kept[0].new.clone()), (read_json("old"), read_json("new")));
    assert_eq!(m.stats().read.consistency.paths.count("/read"), 1);
}
