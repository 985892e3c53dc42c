//! The guard on its own, on a fake clock: every transition, the routes at every stage, the
//! bounds, the window, the table of flag keys.

use std::cell::RefCell;
use std::rc::Rc;

use super::breaker::FlagGuard;
use super::table::GuardTable;
use super::*;
use crate::migration::stage::{Origin, ReadPlan, WritePlan};
use crate::testing::{RecordingSink, TestHost};

fn settings() -> GuardSettings {
    GuardSettings::default()
}

fn call(failed: bool) -> Note {
    Note { new_failed: Some(failed), ..Note::default() }
}

/// Feeds `notes` to a guard in state closed, one every `every_ms`; the transitions seen.
fn feed(
    g: &mut FlagGuard,
    s: &GuardSettings,
    t: &TestHost,
    notes: impl IntoIterator<Item = Note>,
    every_ms: f64,
) -> Vec<Transition> {
    let mut seen = Vec::new();
    for note in notes {
        t.clock.advance(every_ms);
        seen.extend(g.record(s, &note, &*t.host.clock));
    }
    seen
}

#[test]
fn consecutive_errors_trip_it_at_any_count() {
    let (t, s) = (TestHost::new(1), settings());
    let mut g = FlagGuard::new(&s, &*t.host.clock);
    let seen = feed(&mut g, &s, &t, (0..10).map(|_| call(true)), 1.0);
    assert_eq!(seen.len(), 1, "one change, at the tenth failure");
    let change = &seen[0];
    assert_eq!(
        (change.from, change.to, &*change.reason),
        (GuardState::Closed, GuardState::Tripped, "10 consecutive errors")
    );
    assert_eq!((change.window.new_calls, change.window.new_errors), (10, 10));
    assert_eq!(change.at, t.clock.now() + 1_795_989_121_000.0);
    assert_eq!(g.view().state, GuardState::Tripped);
    assert_eq!(g.view().since, change.at);
}

#[test]
fn a_success_between_failures_starts_the_run_again() {
    let (t, s) = (TestHost::new(1), settings());
    let mut g = FlagGuard::new(&s, &*t.host.clock);
    let notes = (0..50).flat_map(|_| [call(true); 9].into_iter().chain([call(false)]));
    assert_eq!(feed(&mut g, &s, &t, notes, 1.0).len(), 1, "the rate (90 %) trips it once minCalls are in");
    let mut g = FlagGuard::new(&s, &*t.host.clock);
    let notes = (0..9).map(|_| call(true)).chain([call(false)]).chain((0..9).map(|_| call(true)));
    assert!(feed(&mut g, &s, &t, notes, 1.0).is_empty(), "18 failures, never 10 in a row, fewer than minCalls");
}

#[test]
fn the_rate_is_judged_from_min_calls_on_and_names_its_figures() {
    let (t, s) = (TestHost::new(1), settings());
    let mut g = FlagGuard::new(&s, &*t.host.clock);
    // 1 failure in 3 (never 10 in a row): judged at the 100th call.
    let notes: Vec<Note> = (0..164).map(|i| call(i % 3 == 0)).collect();
    let seen = feed(&mut g, &s, &t, notes.iter().copied().take(99), 1.0);
    assert!(seen.is_empty(), "99 calls: no rate decision");
    let seen = feed(&mut g, &s, &t, notes.iter().copied().skip(99).take(1), 1.0);
    assert_eq!(seen.len(), 1);
    assert_eq!(&*seen[0].reason, "error rate 0.34 > 0.1 over 100 calls");
    assert_eq!((seen[0].window.new_calls, seen[0].window.new_errors), (100, 34));
}

#[test]
fn a_busy_window_is_tripped_by_a_run_of_errors_not_by_its_rate() {
    let (t, s) = (TestHost::new(1), settings());
    let mut g = FlagGuard::new(&s, &*t.host.clock);
    assert!(feed(&mut g, &s, &t, (0..100_000).map(|_| call(false)), 0.5).is_empty());
    let seen = feed(&mut g, &s, &t, (0..10).map(|_| call(true)), 0.5);
    assert_eq!(seen.len(), 1, "the tenth failure in a row trips it, 10 of some 100,000 calls");
    assert_eq!(&*seen[0].reason, "10 consecutive errors");
}

#[test]
fn a_steady_two_percent_error_rate_never_trips_it() {
    let t = TestHost::new(7);
    let s = settings();
    let mut g = FlagGuard::new(&s, &*t.host.clock);
    let notes = (0..100_000).map(|_| call(t.host.random.next_f64() < 0.02));
    assert!(feed(&mut g, &s, &t, notes, 0.1).is_empty());
}

#[test]
fn failures_leave_the_window_as_it_slides() {
    let t = TestHost::new(1);
    let s = GuardSettings { window_ms: 1_000.0, min_calls: 10, max_consecutive_errors: 1000, ..settings() };
    let mut g = FlagGuard::new(&s, &*t.host.clock);
    // Eight: the ninth outcome reads the clock (the window reads it at every eighth).
    assert!(feed(&mut g, &s, &t, (0..8).map(|_| call(true)), 1.0).is_empty(), "8 calls < minCalls");
    t.clock.advance(2_000.0);
    let seen = feed(&mut g, &s, &t, (0..100).map(|i| call(i % 10 == 9)), 1.0);
    assert!(seen.is_empty(), "the old failures left: 10 % is not over 0.1 {seen:?}");
}

#[test]
fn while_tripped_the_old_origin_is_authoritative_in_every_stage_that_writes_it() {
    let (t, s) = (TestHost::new(1), settings());
    let mut g = FlagGuard::new(&s, &*t.host.clock);
    feed(&mut g, &s, &t, (0..10).map(|_| call(true)), 1.0);
    let (route, turned) = g.route(&s, Operation::Read, &*t.host.clock);
    assert_eq!((route, turned), (Route::OldFirst, None));
    let old_only = ReadPlan { authoritative: Origin::Old, shadowed: false };
    let old_first = WritePlan { authoritative: Origin::Old, non_authoritative: Some(Origin::New) };
    for stage in [Stage::DualWrite, Stage::Shadow, Stage::Live, Stage::RampDown] {
        assert_eq!(route.read_plan(stage), old_only, "{stage:?}");
        assert_eq!(route.write_plan(stage), old_first, "{stage:?}");
    }
    for stage in [Stage::Off, Stage::Complete] {
        assert_eq!((route.read_plan(stage), route.write_plan(stage)), (stage.read_plan(), stage.write_plan()));
    }
    let changed: Vec<_> =
        Stage::ALL.iter().map(|s| (route.changes(*s, Operation::Read), route.changes(*s, Operation::Write))).collect();
    let expected = [(false, false), (false, false), (true, false), (true, true), (true, true), (false, false)];
    assert_eq!(changed, expected, "fallbacks: what differs from the stage's plan");
    assert_eq!(Route::AsStaged.read_plan(Stage::Live), Stage::Live.read_plan());
}

#[test]
fn outcomes_that_end_while_tripped_are_not_counted() {
    let (t, s) = (TestHost::new(1), settings());
    let mut g = FlagGuard::new(&s, &*t.host.clock);
    feed(&mut g, &s, &t, (0..10).map(|_| call(true)), 1.0);
    assert!(feed(&mut g, &s, &t, (0..500).map(|_| call(true)), 1.0).is_empty());
    assert_eq!(g.view().state, GuardState::Tripped);
}

fn tripped(s: &GuardSettings, t: &TestHost) -> FlagGuard {
    let mut g = FlagGuard::new(s, &*t.host.clock);
    feed(&mut g, s, t, (0..s.max_consecutive_errors).map(|_| call(true)), 1.0);
    assert_eq!(g.state(), GuardState::Tripped);
    g
}

#[test]
fn after_the_cooldown_it_probes_one_read_in_probe_ratio() {
    let (t, s) = (TestHost::new(1), settings());
    let mut g = tripped(&s, &t);
    t.clock.advance(29_999.0);
    assert_eq!(g.route(&s, Operation::Read, &*t.host.clock), (Route::OldFirst, None));
    t.clock.advance(1.0);
    let (route, turned) = g.route(&s, Operation::Read, &*t.host.clock);
    let turned = turned.expect("probing begins at the first operation after cooldownMs");
    assert_eq!((turned.from, turned.to), (GuardState::Tripped, GuardState::Probing));
    assert_eq!(&*turned.reason, "cooldown of 30000 ms ended: 1 read in 10 calls the new origin");
    assert_eq!(route, Route::Probe, "the first read probes");
    let routes: Vec<Route> = (0..19).map(|_| g.route(&s, Operation::Read, &*t.host.clock).0).collect();
    assert_eq!(routes.iter().filter(|r| **r == Route::Probe).count(), 1, "then 1 in 10");
    assert_eq!(routes[9], Route::Probe);
    assert_eq!(
        g.route(&s, Operation::Write, &*t.host.clock).0,
        Route::OldFirst,
        "writes keep reaching the new origin, after the old"
    );
    assert_eq!(Route::Probe.read_plan(Stage::Live), ReadPlan { authoritative: Origin::Old, shadowed: true });
}

#[test]
fn probing_closes_once_min_calls_are_within_every_bound() {
    let (t, s) = (TestHost::new(1), settings());
    let mut g = tripped(&s, &t);
    t.clock.advance(30_000.0);
    g.route(&s, Operation::Read, &*t.host.clock);
    let seen = feed(&mut g, &s, &t, (0..99).map(|i| call(i % 20 == 0)), 1.0);
    assert!(seen.is_empty(), "99 probe calls");
    let seen = feed(&mut g, &s, &t, [call(false)], 1.0);
    assert_eq!(seen.len(), 1);
    assert_eq!((seen[0].from, seen[0].to), (GuardState::Probing, GuardState::Closed));
    assert_eq!(&*seen[0].reason, "within every bound over 100 calls since probing began");
    assert_eq!(g.route(&s, Operation::Read, &*t.host.clock).0, Route::AsStaged);
}

#[test]
fn probing_trips_again_on_a_bound_exceeded_with_a_new_cooldown() {
    let (t, s) = (TestHost::new(1), settings());
    let mut g = tripped(&s, &t);
    t.clock.advance(30_000.0);
    g.route(&s, Operation::Read, &*t.host.clock);
    let seen = feed(&mut g, &s, &t, (0..100).map(|i| call(i % 4 == 0)), 1.0);
    assert_eq!(seen.len(), 1);
    assert_eq!(
        (seen[0].from, seen[0].to, &*seen[0].reason),
        (GuardState::Probing, GuardState::Tripped, "error rate 0.25 > 0.1 over 100 calls")
    );
    t.clock.advance(29_000.0);
    assert_eq!(g.route(&s, Operation::Read, &*t.host.clock), (Route::OldFirst, None), "a new cooldown");
    let mut g = tripped(&s, &t);
    t.clock.advance(30_000.0);
    g.route(&s, Operation::Read, &*t.host.clock);
    let seen = feed(&mut g, &s, &t, (0..10).map(|_| call(true)), 1.0);
    assert_eq!(seen.len(), 1, "a run of errors trips a probing guard at any count");
}

#[test]
fn the_latency_bound_compares_p99s_of_operations_where_both_ran() {
    let t = TestHost::new(1);
    let s = GuardSettings { max_latency_ratio: Some(2.0), min_calls: 100, ..settings() };
    let mut g = FlagGuard::new(&s, &*t.host.clock);
    let pair =
        |old: f64, new: f64| Note { new_failed: Some(false), old_ms: Some(old), new_ms: Some(new), consistent: None };
    assert!(feed(&mut g, &s, &t, (0..200).map(|_| pair(10.0, 15.0)), 1.0).is_empty(), "1.5 × is within 2 ×");
    let seen = feed(&mut g, &s, &t, (0..20).map(|_| pair(10.0, 50.0)), 1.0);
    assert_eq!(seen.len(), 1, "the p99 moved once 1 % of the pairs were slow");
    assert!(seen[0].reason.starts_with("latency ratio "), "{}", seen[0].reason);
    assert!(seen[0].reason.contains(" > 2 over "), "{}", seen[0].reason);
    let (old, new) = (seen[0].window.old_p99.unwrap(), seen[0].window.new_p99.unwrap());
    assert!((old / 10.0 - 1.0).abs() < 0.1 && (new / 50.0 - 1.0).abs() < 0.1, "{old} {new}");
}

#[test]
fn the_inconsistency_bound_counts_checked_reads() {
    let t = TestHost::new(1);
    let s = GuardSettings { max_inconsistency: Some(0.05), ..settings() };
    let mut g = FlagGuard::new(&s, &*t.host.clock);
    let read = |consistent: bool| Note { new_failed: Some(false), consistent: Some(consistent), ..Note::default() };
    assert!(feed(&mut g, &s, &t, (0..200).map(|i| read(i % 25 != 0)), 1.0).is_empty(), "4 % inconsistent");
    let seen = feed(&mut g, &s, &t, (0..20).map(|_| read(false)), 1.0);
    assert_eq!(seen.len(), 1);
    assert!(seen[0].reason.starts_with("inconsistency 0.054 > 0.05 over "), "{}", seen[0].reason);
    assert_eq!(seen[0].window.checked, seen[0].window.new_calls);
}

#[test]
fn the_table_keeps_one_hundred_keys_and_drops_the_least_recently_used() {
    let (t, s) = (TestHost::new(1), settings());
    let mut table = GuardTable::default();
    let make = || FlagGuard::new(&s, &*t.host.clock);
    let keys: Vec<Rc<str>> = (0..150).map(|i| format!("flag-{i}").into()).collect();
    let first = table.entry(&keys[0], make);
    for key in &keys[1..MAX_FLAG_KEYS] {
        table.entry(key, make);
    }
    table.entry(&keys[0], make); // used again: now the most recent
    table.entry(&keys[MAX_FLAG_KEYS], make);
    assert_eq!(table.len(), MAX_FLAG_KEYS);
    assert!(table.get("flag-0").is_some(), "used again, kept");
    assert!(table.get("flag-1").is_none(), "the least recently used was dropped");
    assert!(Rc::ptr_eq(&table.entry(&"flag-0".into(), make), &first), "found by text too");
    for key in &keys {
        table.entry(key, make);
    }
    assert_eq!(table.len(), MAX_FLAG_KEYS);
    assert!(table.get("flag-149").is_some() && table.get("flag-49").is_none());
}

/// A listener that records the changes and calls back into the guard.
struct Listening {
    guard: RefCell<Option<Rc<Guard>>>,
    changes: RefCell<Vec<(String, String)>>,
    throws: bool,
}

impl GuardListener for Listening {
    fn on_change(&self, change: &GuardChange) -> Result<(), String> {
        let inner = self.guard.borrow().clone();
        if let Some(guard) = inner {
            // Re-entrant: the guard's own state is readable from inside its report.
            let view = guard.flag(&change.flag_key).expect("the key changed: it is kept");
            assert_eq!(view.state, change.transition.to);
            let _ = guard.snapshot();
        }
        self.changes.borrow_mut().push((change.flag_key.to_string(), change.transition.to.as_str().into()));
        if self.throws {
            Err("listener broke".into())
        } else {
            Ok(())
        }
    }
}

#[test]
fn every_change_is_logged_counted_and_told_once() {
    let mut t = TestHost::new(1);
    let sink = Rc::new(RecordingSink::default());
    t.host.metrics = Some(sink.clone());
    let listening = Rc::new(Listening { guard: RefCell::default(), changes: RefCell::default(), throws: true });
    let guard = Rc::new(Guard::new(settings(), Some(listening.clone())));
    *listening.guard.borrow_mut() = Some(guard.clone());
    let key: Rc<str> = "checkout".into();
    for _ in 0..10 {
        let (_, op) = guard.route(&t.host, &key, Operation::Read, Stage::Live);
        op.note_call(Origin::New, true, 1.0);
        guard.record(&t.host, &key, &op);
    }
    assert_eq!(*listening.changes.borrow(), [("checkout".to_string(), "tripped".to_string())]);
    let warnings = t.logger.messages(crate::host::Level::Warn);
    assert_eq!(warnings, ["migration guard of flag \"checkout\": closed -> tripped: 10 consecutive errors"]);
    assert_eq!(t.logger.messages(crate::host::Level::Error), ["guard: onChange threw: listener broke"]);
    let attributes = "feature_flag.key=checkout,cutover.guard.state=tripped";
    assert_eq!(sink.sum("cutover.migration.guard.changes", attributes), 1.0);
    let snapshot = guard.snapshot();
    assert_eq!((snapshot.trips, snapshot.recoveries, snapshot.fallbacks), (1, 0, [0, 0]));
    let (route, _) = guard.route(&t.host, &key, Operation::Read, Stage::Live);
    assert_eq!(route, Route::OldFirst);
    assert_eq!(guard.snapshot().fallbacks, [1, 0]);
    assert_eq!(guard.gauges(), vec![(key.clone(), 2.0)]);
    assert_eq!(guard.flag("other"), None, "a key never seen");
    guard.reset_counts();
    assert_eq!(
        (guard.snapshot().trips, guard.flag("checkout").map(|v| v.state)),
        (0, Some(GuardState::Tripped)),
        "counts reset, states kept"
    );
}

#[test]
fn an_aborted_operation_is_never_recorded_and_a_timeout_is_a_failure() {
    // The migrator records an operation only when it completes (`finish`); a timed-out call is a
    // failed call. Here: a note of a timed-out call counts as a failure.
    let t = TestHost::new(1);
    let guard = Guard::new(GuardSettings { max_consecutive_errors: 1, ..settings() }, None);
    let key: Rc<str> = "k".into();
    let (_, aborted) = guard.route(&t.host, &key, Operation::Read, Stage::Live);
    aborted.note_call(Origin::New, true, 1.0);
    drop(aborted);
    assert_eq!(guard.flag("k").map(|v| v.state), Some(GuardState::Closed));
    let (_, timed_out) = guard.route(&t.host, &key, Operation::Read, Stage::Live);
    timed_out.note_call(Origin::New, true, 250.0);
    guard.record(&t.host, &key, &timed_out);
    assert_eq!(guard.flag("k").map(|v| v.state), Some(GuardState::Tripped));
}
