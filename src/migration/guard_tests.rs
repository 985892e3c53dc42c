//! The guard inside the migrator, on a fake clock: what runs while it is tripped or probing at
//! each stage, reads and writes, foreground and background, in flight together; what the event
//! and the statistics record; aborts and timeouts; a listener that calls back.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::FutureExt;
use serde_json::json;

use super::guard::{GuardChange, GuardListener, GuardSettings, GuardState};
use super::migrator_tests::{request, text, FakeClient, Journal, V};
use super::test_runs::Runs;
use super::*;
use crate::host::Level;
use crate::testing::TestHost;

/// An origin that fails while its switch is on: `delay_ms` late, journaled.
struct Switch {
    name: &'static str,
    delay_ms: Cell<f64>,
    failing: Rc<Cell<bool>>,
    t: crate::host::Host,
    journal: Rc<Journal>,
}

struct NoControl;
impl CallControl<V> for NoControl {
    fn time_out(&self, _after_ms: f64) -> V {
        text("TimeoutError")
    }
    fn abort(&self, _reason: &V) {}
}

impl OriginFn<V> for Switch {
    fn call(&self, _payload: Option<&V>, _cancellable: bool) -> OriginCall<V> {
        self.journal.push(self.name.to_string());
        let sleep = self.t.sleep.sleep(self.delay_ms.get());
        let (name, failing) = (self.name, self.failing.clone());
        let outcome = async move {
            sleep.await;
            if failing.get() {
                Err(text(&format!("{name} failed")))
            } else {
                Ok(text(name))
            }
        }
        .map(|r| (r, None))
        .boxed_local();
        OriginCall { outcome, control: Box::new(NoControl) }
    }
}

struct Changes(RefCell<Vec<GuardChange>>, RefCell<Option<Migrator<V>>>);
impl GuardListener for Changes {
    fn on_change(&self, change: &GuardChange) -> Result<(), String> {
        self.0.borrow_mut().push(change.clone());
        // Re-entrant: the migrator is readable, and runs an operation, from inside the report.
        let migrator = self.1.borrow().clone();
        if let Some(m) = migrator {
            assert_eq!(m.guard(&change.flag_key).state, change.transition.to);
            assert!(m.stats().guard.is_some());
            drop(m.run(Operation::Read, request(Stage::Off), |_, _| Ok(())));
        }
        Ok(())
    }
}

struct Setup {
    t: TestHost,
    journal: Rc<Journal>,
    new_failing: Rc<Cell<bool>>,
    new_read: Rc<Switch>,
    builder: MigratorBuilder<V>,
    changes: Rc<Changes>,
}

fn setup(settings: GuardSettings) -> Setup {
    let t = TestHost::new(3);
    let journal = Rc::new(Journal::default());
    let new_failing = Rc::new(Cell::new(false));
    let switch = |name, delay_ms: f64, failing: &Rc<Cell<bool>>| {
        Rc::new(Switch {
            name,
            delay_ms: Cell::new(delay_ms),
            failing: failing.clone(),
            t: t.host.clone(),
            journal: journal.clone(),
        })
    };
    let healthy = Rc::new(Cell::new(false));
    let new_read = switch("new", 20.0, &new_failing);
    let mut builder = MigratorBuilder::new();
    builder.read(ReadOrigins { old: switch("old", 10.0, &healthy), new: new_read.clone(), comparison: None });
    builder.write(WriteOrigins { old: switch("old-w", 5.0, &healthy), new: switch("new-w", 7.0, &new_failing) });
    let changes = Rc::new(Changes(RefCell::default(), RefCell::default()));
    builder.guard(settings, Some(changes.clone()));
    Setup { t, journal, new_failing, new_read, builder, changes }
}

impl Setup {
    fn migrator(&self, stage: Stage) -> (Migrator<V>, Rc<FakeClient>) {
        let client = FakeClient::serving(stage);
        let m = self.builder.build(client.clone(), self.t.host.clone()).unwrap();
        (m, client)
    }
    /// Trips the guard of flag `mig` with failing live reads.
    fn trip(&self, m: &Migrator<V>) {
        self.new_failing.set(true);
        for _ in 0..10 {
            self.t.run(m.read(request(Stage::Off))).unwrap();
        }
        assert_eq!(m.guard("mig").state, GuardState::Tripped);
        self.journal.take();
    }
}

fn small() -> GuardSettings {
    GuardSettings { min_calls: 10, ..GuardSettings::default() }
}

#[test]
fn in_live_failing_reads_trip_it_and_callers_get_the_old_origin_after() {
    let s = setup(GuardSettings::default());
    let (m, client) = s.migrator(Stage::Live);
    s.new_failing.set(true);
    let results: Vec<_> = (0..30).map(|_| s.t.run(m.read(request(Stage::Off))).unwrap()).collect();
    let failed = results.iter().filter(|r| r.result.is_err()).count();
    assert_eq!(failed, 10, "the tenth failure in a row trips it; later reads are the old origin's");
    assert!(results[10..].iter().all(|r| r.origin == Origin::Old && r.result == Ok(text("old"))));
    let events = client.events.borrow();
    assert_eq!(events[9]["measurements"][0], json!({"key": "invoked", "values": {"old": true, "new": true}}));
    assert_eq!(
        events[10]["measurements"][0],
        json!({"key": "invoked", "values": {"old": true}}),
        "the event records what ran"
    );
    assert_eq!(events[10]["evaluation"]["value"], "live", "its evaluation is still the flag's");
    let stats = m.stats();
    let guard = stats.guard.unwrap();
    assert_eq!((guard.trips, guard.fallbacks), (1, [20, 0]));
    assert_eq!((stats.read.new.invoked, stats.read.by_stage.0[Stage::Live.index()]), (10, 30));
    let changes = s.changes.0.borrow();
    assert_eq!(changes.len(), 1);
    assert_eq!((&*changes[0].flag_key, changes[0].transition.to), ("mig", GuardState::Tripped));
    assert_eq!(
        s.t.logger.messages(Level::Warn),
        ["migration guard of flag \"mig\": closed -> tripped: 10 consecutive errors"]
    );
}

#[test]
fn while_tripped_each_stage_runs_the_old_origin_first() {
    // (stage, read journal, write journal) while tripped.
    let rows = [
        (Stage::Off, vec!["old"], vec!["old-w"]),
        (Stage::DualWrite, vec!["old"], vec!["old-w", "new-w"]),
        (Stage::Shadow, vec!["old"], vec!["old-w", "new-w"]),
        (Stage::Live, vec!["old"], vec!["old-w", "new-w"]),
        (Stage::RampDown, vec!["old"], vec!["old-w", "new-w"]),
        (Stage::Complete, vec!["new"], vec!["new-w"]),
    ];
    for (stage, reads, writes) in rows {
        let s = setup(GuardSettings::default());
        let client = FakeClient::with(|| Ok(ServedEvaluation::stage(Some(Stage::Live))));
        let m = s.builder.build(client.clone(), s.t.host.clone()).unwrap();
        s.trip(&m);
        client.serve(move || Ok(ServedEvaluation::stage(Some(stage))));
        let r = s.t.run(m.read(request(Stage::Off))).unwrap();
        assert_eq!(s.journal.take(), reads, "{stage:?} read");
        assert_eq!(r.origin.as_str(), reads[0].trim_end_matches("-w"), "{stage:?}");
        s.new_failing.set(false);
        let w = s.t.run(m.write(request(Stage::Off))).unwrap();
        assert_eq!(s.journal.take(), writes, "{stage:?} write");
        assert_eq!(w.authoritative.origin.as_str(), writes[0].trim_end_matches("-w"));
        s.new_failing.set(true);
    }
}

#[test]
fn a_failing_write_path_trips_it_too_and_writes_then_go_to_the_old_origin_first() {
    let s = setup(small());
    let (m, _) = s.migrator(Stage::Live);
    s.new_failing.set(true);
    for _ in 0..10 {
        let w = s.t.run(m.write(request(Stage::Off))).unwrap();
        assert_eq!(w.authoritative.origin, Origin::New);
    }
    assert_eq!(m.guard("mig").state, GuardState::Tripped);
    s.journal.take();
    let w = s.t.run(m.write(request(Stage::Off))).unwrap();
    assert_eq!((w.authoritative.origin, w.authoritative.result.clone()), (Origin::Old, Ok(text("old-w"))));
    assert_eq!(
        w.non_authoritative.map(|r| r.origin),
        Some(Origin::New),
        "the new origin is still written, after the old"
    );
    assert_eq!(m.stats().guard.unwrap().fallbacks, [0, 1]);
}

#[test]
fn it_probes_after_the_cooldown_and_closes_when_the_new_origin_healed() {
    let s = setup(small());
    let (m, client) = s.migrator(Stage::Live);
    s.trip(&m);
    s.new_failing.set(false);
    s.t.advance(30_000.0);
    let mut reads_to_close = 0;
    while m.guard("mig").state != GuardState::Closed {
        reads_to_close += 1;
        let r = s.t.run(m.read(request(Stage::Off))).unwrap();
        assert_eq!(r.origin, Origin::Old, "probing: the old origin answers");
        assert!(reads_to_close <= 200, "never closed");
    }
    assert_eq!(reads_to_close, 91, "minCalls × probeRatio reads: the first probes, then 1 in 10");
    let states: Vec<_> = s.changes.0.borrow().iter().map(|c| c.transition.to).collect();
    assert_eq!(states, [GuardState::Tripped, GuardState::Probing, GuardState::Closed]);
    let probe =
        client.events.borrow().iter().rev().find(|e| e["measurements"][0]["values"]["new"] == true).cloned().unwrap();
    assert_eq!(probe["evaluation"]["value"], "live");
    assert_eq!(s.t.run(m.read(request(Stage::Off))).unwrap().origin, Origin::New, "closed: live again");
    let guard = m.stats().guard.unwrap();
    assert_eq!((guard.trips, guard.recoveries), (1, 1));
}

#[test]
fn reads_in_flight_together_reach_callers_at_most_max_consecutive_plus_in_flight_errors() {
    let s = setup(GuardSettings::default());
    let (m, _) = s.migrator(Stage::Live);
    // 2,000 healthy reads fill the window first: a busy window does not slow the trip.
    for _ in 0..200 {
        let batch: Vec<_> = (0..10).map(|_| s.t.start(m.read(request(Stage::Off)))).collect();
        s.t.advance(25.0);
        assert!(batch.iter().all(|r| r.borrow().as_ref().is_some_and(|r| r.is_ok())));
    }
    s.new_failing.set(true);
    let mut errors = 0;
    for _ in 0..50 {
        let batch: Vec<_> = (0..10).map(|_| s.t.start(m.read(request(Stage::Off)))).collect();
        s.t.advance(25.0);
        errors += batch
            .iter()
            .filter(|r| r.borrow().as_ref().is_some_and(|r| r.as_ref().is_ok_and(|r| r.result.is_err())))
            .count();
    }
    assert!((10..=20).contains(&errors), "{errors} errors reached callers (at most 10 + 10 in flight)");
    assert_eq!(m.guard("mig").state, GuardState::Tripped);
}

#[test]
fn in_background_mode_an_outcome_counts_when_its_part_ends() {
    let mut s = setup(small());
    s.builder.background(None).unwrap();
    let (m, _) = s.migrator(Stage::Live);
    s.new_failing.set(true);
    s.new_read.delay_ms.set(1.0);
    for i in 0..10 {
        let (slot, run) = m.start(Operation::Read, request(Stage::Off));
        let done = s.t.start(run);
        s.t.advance(2.0);
        assert!(slot
            .borrow()
            .as_ref()
            .is_some_and(|(r, background)| r.as_ref().is_ok_and(|o| o.authoritative.result.is_err()) && *background));
        assert_eq!(m.guard("mig").state, GuardState::Closed, "read {i}: its part (the old origin) is still running");
        s.t.advance(20.0);
        assert!(done.borrow().is_some());
    }
    assert_eq!(m.guard("mig").state, GuardState::Tripped);
}

#[test]
fn aborted_operations_are_not_counted_and_timeouts_are() {
    let s = setup(GuardSettings { max_consecutive_errors: 3, ..small() });
    let (m, _) = s.migrator(Stage::Live);
    s.new_failing.set(true);
    for _ in 0..5 {
        let mut req = request(Stage::Off);
        req.abort = Some(abortable_after(&s.t, 15.0));
        assert!(s.t.run(m.read(req)).is_err(), "aborted");
    }
    assert_eq!(m.guard("mig").state, GuardState::Closed, "aborts are not the new origin's failures");
    let mut s = setup(GuardSettings { max_consecutive_errors: 3, ..small() });
    s.builder.origin_timeout(5.0).unwrap();
    let (m, _) = s.migrator(Stage::Live);
    for _ in 0..3 {
        let r = s.t.run(m.read(request(Stage::Off))).unwrap();
        assert_eq!(r.result, Err(text("TimeoutError")));
    }
    assert_eq!(m.guard("mig").state, GuardState::Tripped, "timeouts are failures");
    assert_eq!(&*m.guard("mig").reason.unwrap(), "3 consecutive errors");
}

fn abortable_after(t: &TestHost, at_ms: f64) -> AbortFuture<V> {
    let sleep = t.host.sleep.sleep(at_ms);
    async move {
        sleep.await;
        text("caller gave up")
    }
    .boxed_local()
}

#[test]
fn a_listener_may_call_back_into_the_migrator() {
    let s = setup(small());
    let (m, _) = s.migrator(Stage::Live);
    *s.changes.1.borrow_mut() = Some(m.clone());
    s.trip(&m);
    assert_eq!(s.changes.0.borrow().len(), 1);
}

#[test]
fn without_guard_nothing_changes_and_stats_say_null() {
    let f = super::migrator_tests::Fixture::new(false, true);
    let client = FakeClient::serving(Stage::Live);
    let m = f.migrator(client);
    for _ in 0..30 {
        assert!(f.t.run(m.read(request(Stage::Off))).unwrap().result.is_err());
    }
    assert_eq!(m.stats().guard, None);
    assert_eq!(m.guard("mig").state, GuardState::Closed);
    assert!(m.guard_gauges().is_empty());
}

#[test]
fn serial_reads_trip_fall_back_and_probe_in_order() {
    let mut s = setup(small());
    s.builder.read_execution_order("serial").unwrap();
    let (m, _) = s.migrator(Stage::Live);
    s.new_failing.set(true);
    for _ in 0..10 {
        s.t.run(m.read(request(Stage::Off))).unwrap();
    }
    assert_eq!(s.journal.take()[..2], ["new", "old"], "live, serial: the authoritative (new) origin first");
    assert_eq!(m.guard("mig").state, GuardState::Tripped);
    s.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(s.journal.take(), ["old"]);
    s.new_failing.set(false);
    s.t.advance(30_000.0);
    let probe = s.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(
        (probe.origin, s.journal.take()),
        (Origin::Old, vec!["old".to_string(), "new".to_string()]),
        "a probe: old first, as in shadow"
    );
    s.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(s.journal.take(), ["old"], "the next read is not a probe (1 in 10)");
}

#[test]
fn in_shadow_a_tripped_guard_stops_calling_the_new_origin() {
    let s = setup(small());
    let (m, client) = s.migrator(Stage::Shadow);
    s.new_failing.set(true);
    for _ in 0..10 {
        assert_eq!(
            s.t.run(m.read(request(Stage::Off))).unwrap().result,
            Ok(text("old")),
            "shadow: callers never saw the failures"
        );
    }
    assert_eq!(m.guard("mig").state, GuardState::Tripped, "the shadow's failures trip it too");
    s.journal.take();
    s.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(s.journal.take(), ["old"]);
    let last = client.events.borrow().last().cloned().unwrap();
    assert_eq!(last["measurements"][0], json!({"key": "invoked", "values": {"old": true}}));
    assert_eq!(last["evaluation"]["value"], "shadow");
}

#[test]
fn in_complete_and_off_the_guard_neither_counts_nor_acts() {
    let s = setup(small());
    let (m, client) = s.migrator(Stage::Complete);
    s.new_failing.set(true);
    for _ in 0..20 {
        assert!(s.t.run(m.read(request(Stage::Off))).unwrap().result.is_err(), "complete: the new origin alone serves");
    }
    assert_eq!(m.guard("mig").state, GuardState::Closed, "a trip would change nothing: none is reported");
    assert!(s.changes.0.borrow().is_empty());
    assert!(m.stats().guard.unwrap().flags.is_empty(), "the key was never routed");
    client.serve(|| Ok(ServedEvaluation::stage(Some(Stage::Off))));
    for _ in 0..5 {
        s.t.run(m.write(request(Stage::Off))).unwrap();
    }
    assert!(m.stats().guard.unwrap().flags.is_empty());
}
