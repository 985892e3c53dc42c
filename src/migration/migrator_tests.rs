//! Native tests of the executors: every stage × read/write row, each execution order, timeouts,
//! aborts, sampling, tracker delegation and statistics, on a fake clock.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::FutureExt;
use serde_json::{json, Value};

use super::test_runs::Runs;
use super::*;
use crate::host::{Host, HostValue, Level};
use crate::testing::{FixedRandom, TestHost, TestValue};

pub(super) type V = TestValue;

pub(super) fn text(s: &str) -> V {
    TestValue::Text(s.into())
}

/// Log of everything the fakes saw, in order.
#[derive(Default)]
pub(super) struct Journal {
    lines: RefCell<Vec<String>>,
}

impl Journal {
    pub(super) fn push(&self, s: String) {
        self.lines.borrow_mut().push(s);
    }
    pub(super) fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.lines.borrow_mut())
    }
}

pub(super) struct FakeOrigin {
    name: &'static str,
    delay_ms: f64,
    fail: bool,
    host: Host,
    pub(super) journal: Rc<Journal>,
    payloads: RefCell<Vec<Option<V>>>,
}

struct FakeControl {
    name: &'static str,
    journal: Rc<Journal>,
}

impl CallControl<V> for FakeControl {
    fn time_out(&self, after_ms: f64) -> V {
        self.journal.push(format!("{} timed out after {after_ms}", self.name));
        text("TimeoutError")
    }
    fn abort(&self, reason: &V) {
        self.journal.push(format!("{} aborted: {}", self.name, reason.describe()));
    }
}

impl OriginFn<V> for FakeOrigin {
    fn call(&self, payload: Option<&V>, _cancellable: bool) -> OriginCall<V> {
        self.payloads.borrow_mut().push(payload.cloned());
        let start = self.host.clock.monotonic_ms();
        self.journal.push(format!("{} start@{start}", self.name));
        let sleep = self.host.sleep.sleep(self.delay_ms);
        let (name, fail, journal, clock) = (self.name, self.fail, self.journal.clone(), self.host.clock.clone());
        let outcome = async move {
            sleep.await;
            journal.push(format!("{name} end@{}", clock.monotonic_ms()));
            if fail {
                Err(text(&format!("{name} failed")))
            } else {
                Ok(text(name))
            }
        }
        .map(|r| (r, None))
        .boxed_local();
        OriginCall { outcome, control: Box::new(FakeControl { name: self.name, journal: self.journal.clone() }) }
    }
}

pub(super) struct FakeComparison {
    pub(super) calls: Cell<u32>,
    answer: Result<bool, V>,
}

impl Comparison<V> for FakeComparison {
    fn compare(&self, old: &V, new: &V) -> Result<bool, V> {
        self.calls.set(self.calls.get() + 1);
        assert!(old.describe().contains("old") && new.describe().contains("new"), "compare(old, new) order");
        self.answer.clone()
    }
}

type Serve = Box<dyn Fn() -> Result<ServedEvaluation<V>, V>>;

pub(super) struct FakeClient {
    served: RefCell<Serve>,
    pub(super) events: RefCell<Vec<Value>>,
    defaults_seen: RefCell<Vec<Stage>>,
    tracks: bool,
    ratio_rule: crate::migration::event::CheckRatioOnWire,
}

impl FakeClient {
    pub(super) fn serving(stage: Stage) -> Rc<Self> {
        Self::with(move || Ok(ServedEvaluation::stage(Some(stage))))
    }
    /// What the flag serves from now on.
    pub(super) fn serve(&self, f: impl Fn() -> Result<ServedEvaluation<V>, V> + 'static) {
        *self.served.borrow_mut() = Box::new(f);
    }
    pub(super) fn with(f: impl Fn() -> Result<ServedEvaluation<V>, V> + 'static) -> Rc<Self> {
        Rc::new(FakeClient {
            served: RefCell::new(Box::new(f)),
            events: RefCell::default(),
            defaults_seen: RefCell::default(),
            tracks: true,
            ratio_rule: Default::default(),
        })
    }
}

impl MigrationClient<V> for FakeClient {
    fn migration_variation(
        &self,
        _flag_key: &Rc<str>,
        _context: &V,
        default: Stage,
    ) -> crate::migration::client::Asked<V> {
        self.defaults_seen.borrow_mut().push(default);
        let answer = (self.served.borrow())();
        crate::migration::client::Asked::Later(async move { answer }.boxed_local())
    }
    fn tracks_events(&self) -> bool {
        self.tracks
    }
    fn track_migration_op(&self, event: &super::event::MigrationOpEvent<V>) -> Result<(), V> {
        self.events.borrow_mut().push(crate::testing::wire(event));
        Ok(())
    }
    fn check_ratio_on_wire(&self) -> crate::migration::event::CheckRatioOnWire {
        self.ratio_rule
    }
}

pub(super) struct Fixture {
    pub(super) t: TestHost,
    pub(super) journal: Rc<Journal>,
    pub(super) builder: MigratorBuilder<V>,
    pub(super) read_old: Rc<FakeOrigin>,
    read_new: Rc<FakeOrigin>,
    pub(super) comparison: Rc<FakeComparison>,
}

impl Fixture {
    /// Read origins: old 10 ms, new 20 ms; write origins: old 5 ms, new 7 ms.
    pub(super) fn new(fail_old: bool, fail_new: bool) -> Self {
        Self::custom(TestHost::new(42), fail_old, fail_new, Ok(true))
    }
    pub(super) fn custom(t: TestHost, fail_old: bool, fail_new: bool, answer: Result<bool, V>) -> Self {
        let journal = Rc::new(Journal::default());
        let origin = |name, delay_ms, fail| {
            Rc::new(FakeOrigin {
                name,
                delay_ms,
                fail,
                host: t.host.clone(),
                journal: journal.clone(),
                payloads: RefCell::default(),
            })
        };
        let read_old = origin("old", 10.0, fail_old);
        let read_new = origin("new", 20.0, fail_new);
        let comparison = Rc::new(FakeComparison { calls: Cell::new(0), answer });
        let mut builder = MigratorBuilder::new();
        builder.read(ReadOrigins {
            old: read_old.clone(),
            new: read_new.clone(),
            comparison: Some(comparison.clone()),
        });
        builder.write(WriteOrigins { old: origin("old-w", 5.0, fail_old), new: origin("new-w", 7.0, fail_new) });
        Fixture { t, journal, builder, read_old, read_new, comparison }
    }
    /// The same read origins with another comparison.
    pub(super) fn compare_with(&mut self, comparison: Rc<dyn Comparison<V>>) {
        let (old, new) = (self.read_old.clone(), self.read_new.clone());
        self.builder.read(ReadOrigins { old, new, comparison: Some(comparison) });
    }
    pub(super) fn migrator(&self, client: Rc<FakeClient>) -> Migrator<V> {
        self.builder.build(client, self.t.host.clone()).unwrap()
    }
}

pub(super) fn request(default: Stage) -> OperationRequest<V> {
    OperationRequest {
        flag_key: "mig".into(),
        context: TestValue::Json(json!({"kind": "user", "key": "u1"})),
        default_stage: DefaultStage::Valid(default),
        payload: Some(text("payload")),
        abort: None,
    }
}

pub(super) fn strip_latency(mut event: Value) -> Value {
    event["creationDate"] = json!(0);
    if let Some(ms) = event["measurements"].as_array_mut() {
        for m in ms {
            if m["key"] == "latency_ms" {
                for (_, v) in m["values"].as_object_mut().unwrap() {
                    assert!(v.as_f64().unwrap() > 0.0);
                    *v = json!(1);
                }
            }
        }
    }
    event
}

#[test]
fn read_table_every_stage() {
    // (stage, returned origin, expected invoked, consistency measured)
    let rows = [
        (Stage::Off, "old", json!({"old": true}), false),
        (Stage::DualWrite, "old", json!({"old": true}), false),
        (Stage::Shadow, "old", json!({"old": true, "new": true}), true),
        (Stage::Live, "new", json!({"old": true, "new": true}), true),
        (Stage::RampDown, "new", json!({"new": true}), false),
        (Stage::Complete, "new", json!({"new": true}), false),
    ];
    for (stage, returned, invoked, checked) in rows {
        let f = Fixture::new(false, false);
        let client = FakeClient::serving(stage);
        let m = f.migrator(client.clone());
        let r = f.t.run(m.read(request(Stage::Off))).unwrap();
        assert_eq!(r.result, Ok(text(returned)), "{stage:?}");
        assert_eq!(r.origin.as_str(), returned);
        let events = client.events.borrow();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0]["measurements"][0], json!({"key": "invoked", "values": invoked}), "{stage:?}");
        assert_eq!(events[0]["measurements"][1]["key"] == "consistent", checked, "{stage:?}");
        assert_eq!(f.comparison.calls.get(), u32::from(checked));
        assert_eq!(events[0]["operation"], "read");
        assert_eq!(events[0]["evaluation"]["value"], stage.as_str());
    }
}

#[test]
fn write_table_every_stage() {
    let rows = [
        (Stage::Off, "old-w", None),
        (Stage::DualWrite, "old-w", Some("new-w")),
        (Stage::Shadow, "old-w", Some("new-w")),
        (Stage::Live, "new-w", Some("old-w")),
        (Stage::RampDown, "new-w", Some("old-w")),
        (Stage::Complete, "new-w", None),
    ];
    for (stage, auth, non_auth) in rows {
        let f = Fixture::new(false, false);
        let client = FakeClient::serving(stage);
        let w = f.t.run(f.migrator(client.clone()).write(request(Stage::Off))).unwrap();
        assert_eq!(w.authoritative.result, Ok(text(auth)), "{stage:?}");
        assert_eq!(w.non_authoritative.map(|r| r.result), non_auth.map(|n| Ok(text(n))), "{stage:?}");
        let starts: Vec<_> = f.journal.take().into_iter().filter(|l| l.contains("start")).collect();
        assert_eq!(starts.len(), 1 + usize::from(non_auth.is_some()), "writes are sequential: {starts:?}");
        assert!(starts[0].starts_with(auth));
        assert_eq!(client.events.borrow()[0]["operation"], "write");
    }
}

#[test]
fn failed_authoritative_write_skips_the_other() {
    for (stage, fail_old, fail_new) in [(Stage::DualWrite, true, false), (Stage::Live, false, true)] {
        let f = Fixture::new(fail_old, fail_new);
        let client = FakeClient::serving(stage);
        let w = f.t.run(f.migrator(client.clone()).write(request(Stage::Off))).unwrap();
        assert!(w.authoritative.result.is_err());
        assert_eq!(w.non_authoritative, None);
        let event = strip_latency(client.events.borrow()[0].clone());
        let auth = if fail_old { "old" } else { "new" };
        assert_eq!(
            event["measurements"],
            json!([{"key":"invoked","values":{auth:true}},{"key":"latency_ms","values":{auth:1}},
                   {"key":"error","values":{auth:true}}])
        );
    }
}

#[test]
fn failed_non_authoritative_write_is_reported_not_thrown() {
    let f = Fixture::new(false, true);
    let client = FakeClient::serving(Stage::Shadow);
    let w = f.t.run(f.migrator(client).write(request(Stage::Off))).unwrap();
    assert_eq!(w.authoritative.result, Ok(text("old-w")));
    assert_eq!(w.non_authoritative.unwrap().result, Err(text("new-w failed")));
}

#[test]
fn payload_reaches_every_origin_unchanged() {
    let f = Fixture::new(false, false);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(*f.read_old.payloads.borrow(), vec![Some(text("payload"))]);
}

fn read_timeline(order: &str, seed: u64) -> (f64, Vec<String>) {
    read_timeline_at(order, seed, Stage::Shadow)
}

/// `order` "oldfirst" stands for `read_old_first()` (no public string).
fn read_timeline_at(order: &str, seed: u64, stage: Stage) -> (f64, Vec<String>) {
    let mut f = Fixture::custom(TestHost::new(seed), false, false, Ok(true));
    if order == "oldfirst" {
        f.builder.read_old_first();
    } else {
        f.builder.read_execution_order(order).unwrap();
    }
    let m = f.migrator(FakeClient::serving(stage));
    let start = f.t.clock.now();
    f.t.run(m.read(request(Stage::Off))).unwrap();
    (f.t.clock.now() - start, f.journal.take())
}

#[test]
fn parallel_starts_both_before_either_finishes() {
    let (elapsed, lines) = read_timeline("parallel", 1);
    assert_eq!(&lines[..2], &["old start@0".to_string(), "new start@0".to_string()]);
    assert!((20.0..=21.0).contains(&elapsed), "wall time is the slower origin: {elapsed}");
}

#[test]
fn serial_runs_authoritative_first_to_completion() {
    let (elapsed, lines) = read_timeline("serial", 1);
    assert_eq!(lines, ["old start@0", "old end@10", "new start@10", "new end@30"]);
    assert!(elapsed >= 30.0);
}

#[test]
fn serial_at_live_runs_new_first() {
    let (_, lines) = read_timeline_at("serial", 1, Stage::Live);
    assert_eq!(lines, ["new start@0", "new end@20", "old start@20", "old end@30"]);
}

#[test]
fn old_first_runs_old_to_completion_then_new_at_every_shadowed_stage() {
    for stage in [Stage::Shadow, Stage::Live] {
        for seed in 1..=20 {
            let (elapsed, lines) = read_timeline_at("oldfirst", seed, stage);
            assert_eq!(lines, ["old start@0", "old end@10", "new start@10", "new end@30"], "{stage:?}");
            assert!(elapsed >= 30.0);
        }
    }
}

#[test]
fn old_first_keeps_the_stage_authoritative_origin_and_checks_consistency() {
    let mut f = Fixture::custom(TestHost::new(1), false, false, Ok(true));
    f.builder.read_old_first();
    let client = FakeClient::serving(Stage::Live);
    let m = f.migrator(client.clone());
    let r = f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!((r.origin, r.result), (Origin::New, Ok(text("new"))));
    assert_eq!(m.stats().read.consistency.checked, 1);
    let (_, lines) = read_timeline_at("oldfirst", 1, Stage::Off);
    assert_eq!(lines, ["old start@0", "old end@10"], "a single-origin stage runs only its origin");
}

#[test]
fn random_order_flips_a_fair_coin_per_read() {
    let mut old_first = 0;
    for seed in 1..=200 {
        let (elapsed, lines) = read_timeline("random", seed);
        assert!(elapsed >= 30.0, "random is serial");
        old_first += usize::from(lines[0].starts_with("old"));
    }
    assert!((60..=140).contains(&old_first), "old first {old_first} of 200");
}

#[test]
fn consistency_needs_both_successes_and_is_sampled() {
    let f = Fixture::new(false, true);
    let client = FakeClient::serving(Stage::Live);
    let r = f.t.run(f.migrator(client.clone()).read(request(Stage::Off))).unwrap();
    assert_eq!(r.result, Err(text("new failed")), "live returns new even when it fails");
    assert_eq!(f.comparison.calls.get(), 0);

    // checkRatio 4 with a random source that always draws 0.9: never sampled; 0.0: always.
    for (draw, expect_calls) in [(0.9, 0), (0.0, 1)] {
        let t = TestHost::new(1).with_random(Rc::new(FixedRandom(Cell::new(draw))));
        let f = Fixture::custom(t, false, false, Ok(false));
        let client = FakeClient::with(|| {
            let mut s = ServedEvaluation::stage(Some(Stage::Shadow));
            s.check_ratio = Some(4.0);
            Ok(s)
        });
        f.t.run(f.migrator(client.clone()).read(request(Stage::Off))).unwrap();
        assert_eq!(f.comparison.calls.get(), expect_calls);
        let consistent = client.events.borrow()[0]["measurements"][1].clone();
        if expect_calls == 1 {
            assert_eq!(consistent, json!({"key": "consistent", "value": false, "samplingRatio": 4}));
        } else {
            assert_eq!(consistent["key"], "latency_ms");
        }
    }
}

#[test]
fn throwing_comparison_records_nothing_and_read_succeeds() {
    let f = Fixture::custom(TestHost::new(3), false, false, Err(text("cmp exploded")));
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let r = f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(r.result, Ok(text("old")));
    assert_eq!(client.events.borrow()[0]["measurements"][1]["key"], "latency_ms");
    assert!(f.t.logger.messages(Level::Error).iter().any(|l| l.contains("cmp exploded")));
    assert_eq!(m.stats().read.consistency.checked, 0);
}

#[test]
fn tracking_switches_suppress_measurements_but_not_stats() {
    let mut f = Fixture::new(true, false);
    f.builder.track_latency(false);
    f.builder.track_errors(false);
    let client = FakeClient::serving(Stage::Off);
    let m = f.migrator(client.clone());
    f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(client.events.borrow()[0]["measurements"], json!([{"key":"invoked","values":{"old":true}}]));
    let s = m.stats();
    assert_eq!((s.read.old.invoked, s.read.old.errors), (1, 1));
    assert!(s.read.old.latency_ms.is_some());
}

#[test]
fn origin_timeout_fails_the_slow_origin_and_cancels_it() {
    let mut f = Fixture::new(false, false);
    f.builder.origin_timeout(15.0).unwrap();
    let client = FakeClient::serving(Stage::Live);
    let m = f.migrator(client.clone());
    let r = f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(r.result, Err(text("TimeoutError")));
    assert!(f.journal.take().contains(&"new timed out after 15".to_string()));
    let s = m.stats();
    assert_eq!((s.read.new.invoked, s.read.new.errors, s.read.new.timeouts), (1, 1, 1));
    assert_eq!(s.read.old.timeouts, 0);
    let event = &client.events.borrow()[0];
    assert_eq!(event["measurements"][2], json!({"key": "error", "values": {"new": true}}));
}

#[test]
fn builder_validates() {
    let mut b: MigratorBuilder<V> = MigratorBuilder::new();
    assert!(matches!(b.read_execution_order("sideways"), Err(Error::Type(m)) if m.contains("readExecutionOrder")));
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(b.origin_timeout(bad), Err(Error::Range(m)) if m.contains("originTimeout")));
    }
    let t = TestHost::new(1);
    let client = FakeClient::serving(Stage::Off);
    assert_eq!(b.build(client.clone(), t.host.clone()).err(), Some(MigratorConfigError::ReadNotProvided.into()));
    let f = Fixture::new(false, false);
    let mut b = MigratorBuilder::new();
    b.write(WriteOrigins { old: f.read_old.clone(), new: f.read_old.clone() });
    assert_eq!(
        b.build(client.clone(), t.host.clone()).err().map(|e| e.to_string()),
        Some("read configuration not provided".into())
    );
    let mut b = MigratorBuilder::new();
    b.read(ReadOrigins { old: f.read_old.clone(), new: f.read_old.clone(), comparison: None });
    assert_eq!(
        b.build(client, t.host.clone()).err().map(|e| e.to_string()),
        Some("write configuration not provided".into())
    );
}

#[test]
fn invalid_default_stage_logs_and_becomes_off() {
    let f = Fixture::new(false, false);
    let client = FakeClient::with(|| Ok(ServedEvaluation::stage(None)));
    let m = f.migrator(client.clone());
    let mut req = request(Stage::Off);
    req.default_stage = DefaultStage::Invalid("potato".into());
    let r = f.t.run(m.read(req)).unwrap();
    assert_eq!(r.origin, Origin::Old);
    assert_eq!(*client.defaults_seen.borrow(), vec![Stage::Off]);
    let errors = f.t.logger.messages(Level::Error);
    assert!(errors.contains(&"default stage potato is not a valid stage; using 'off' instead".to_string()));
    let ev = &client.events.borrow()[0]["evaluation"];
    assert_eq!(
        *ev,
        json!({"key":"mig","value":"off","default":"off","reason":{"kind":"ERROR","errorKind":"WRONG_TYPE"}})
    );
}

#[test]
fn wrong_type_served_value_uses_default_and_keeps_version() {
    let f = Fixture::new(false, false);
    let client = FakeClient::with(|| {
        let mut s = ServedEvaluation::stage(None);
        s.variation = Some(2);
        s.version = Some(11);
        s.reason = Some(TestValue::Json(json!({"kind": "FALLTHROUGH"})));
        Ok(s)
    });
    let r = f.t.run(f.migrator(client.clone()).read(request(Stage::Complete))).unwrap();
    assert_eq!(r.origin, Origin::New);
    assert_eq!(
        client.events.borrow()[0]["evaluation"],
        json!({"key":"mig","value":"complete","default":"complete","version":11,"reason":{"kind":"ERROR","errorKind":"WRONG_TYPE"}})
    );
}

#[test]
fn failing_client_falls_back_with_exception_reason() {
    let f = Fixture::new(false, false);
    let client = FakeClient::with(|| Err(text("flag service down")));
    let r = f.t.run(f.migrator(client.clone()).read(request(Stage::RampDown))).unwrap();
    assert_eq!(r.origin, Origin::New);
    assert_eq!(client.events.borrow()[0]["evaluation"]["reason"], json!({"kind":"ERROR","errorKind":"EXCEPTION"}));
}

#[test]
fn served_evaluation_details_reach_the_event_and_sampling_applies() {
    for (sampling, expect_events) in [(1.0, 1), (0.0, 0), (2.5, 0)] {
        let f = Fixture::new(false, true);
        let client = FakeClient::with(move || {
            let mut s = ServedEvaluation::stage(Some(Stage::Shadow));
            s.variation = Some(1);
            s.version = Some(7);
            s.reason = Some(TestValue::Json(json!({"kind": "FALLTHROUGH"})));
            s.sampling_ratio = Some(sampling);
            s.check_ratio = Some(5.0);
            Ok(s)
        });
        f.t.run(f.migrator(client.clone()).read(request(Stage::Live))).unwrap();
        assert_eq!(client.events.borrow().len(), expect_events, "samplingRatio {sampling}");
        if expect_events == 1 {
            assert_eq!(
                strip_latency(client.events.borrow()[0].clone()),
                json!({"kind":"migration_op","creationDate":0,"operation":"read","context":{"kind":"user","key":"u1"},
                    "evaluation":{"key":"mig","value":"shadow","default":"live","variation":1,"version":7,"reason":{"kind":"FALLTHROUGH"}},
                    "measurements":[{"key":"invoked","values":{"old":true,"new":true}},
                    {"key":"latency_ms","values":{"old":1,"new":1}},{"key":"error","values":{"new":true}}]})
            );
        }
    }
}

#[test]
fn sampling_ratio_n_sends_about_one_in_n() {
    let f = Fixture::new(false, false);
    let client = FakeClient::with(|| {
        let mut s = ServedEvaluation::stage(Some(Stage::Off));
        s.sampling_ratio = Some(4.0);
        Ok(s)
    });
    let m = f.migrator(client.clone());
    for _ in 0..400 {
        f.t.run(m.read(request(Stage::Off))).unwrap();
    }
    let n = client.events.borrow().len();
    assert!((60..=140).contains(&n), "{n} of 400 at 1-in-4");
    assert_eq!(client.events.borrow()[0]["samplingRatio"], json!(4));
}

#[test]
fn invalid_context_logs_build_error_and_sends_nothing() {
    let f = Fixture::new(false, false);
    let client = FakeClient::serving(Stage::Off);
    let mut req = request(Stage::Off);
    req.context = TestValue::Json(json!({"kind": "user", "key": ""}));
    f.t.run(f.migrator(client.clone()).read(req)).unwrap();
    assert!(client.events.borrow().is_empty());
    assert!(f.t.logger.messages(Level::Error).contains(
        &"error generating migration op event provided context was invalid; no event will be emitted".into()
    ));
}

pub(super) fn abortable(f: &Fixture, at_ms: f64) -> AbortFuture<V> {
    let sleep = f.t.host.sleep.sleep(at_ms);
    async move {
        sleep.await;
        text("caller gave up")
    }
    .boxed_local()
}

#[test]
fn abort_during_read_rejects_cancels_and_sends_nothing() {
    let f = Fixture::new(false, false);
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let mut req = request(Stage::Off);
    req.abort = Some(abortable(&f, 15.0));
    assert_eq!(f.t.run(m.read(req)), Err(text("caller gave up")));
    let lines = f.journal.take();
    assert!(lines.contains(&"new aborted: caller gave up".to_string()), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("old aborted")), "old had finished: {lines:?}");
    assert!(client.events.borrow().is_empty());
    assert_eq!(m.stats().read.count, 0);
}

#[test]
fn abort_during_second_write_keeps_first_and_sends_its_event() {
    let f = Fixture::new(false, false);
    let client = FakeClient::serving(Stage::DualWrite);
    let m = f.migrator(client.clone());
    let mut req = request(Stage::Off);
    req.abort = Some(abortable(&f, 8.0)); // old-w ends at 5, new-w would end at 12
    assert_eq!(f.t.run(m.write(req)), Err(text("caller gave up")));
    let lines = f.journal.take();
    assert_eq!(lines, ["old-w start@0", "old-w end@5", "new-w start@5", "new-w aborted: caller gave up"]);
    assert!(f.t.logger.messages(Level::Warn).contains(&"Migration write was cancelled before completion".into()));
    let event = strip_latency(client.events.borrow()[0].clone());
    assert_eq!(
        event["measurements"],
        json!([{"key":"invoked","values":{"old":true}},{"key":"latency_ms","values":{"old":1}}])
    );
}

#[test]
fn abort_before_any_write_completes_sends_no_event() {
    let f = Fixture::new(false, false);
    let client = FakeClient::serving(Stage::DualWrite);
    let mut req = request(Stage::Off);
    req.abort = Some(abortable(&f, 2.0));
    assert!(f.t.run(f.migrator(client.clone()).write(req)).is_err());
    assert!(client.events.borrow().is_empty());
    assert!(f.t.logger.messages(Level::Error).iter().any(|l| l.contains("no origins were invoked")));
    assert_eq!(f.journal.take(), ["old-w start@0", "old-w aborted: caller gave up"]);
}

#[test]
fn already_aborted_signal_rejects_without_running_origins() {
    let f = Fixture::new(false, false);
    let client = FakeClient::serving(Stage::Off);
    let mut req = request(Stage::Off);
    req.abort = Some(async { text("early") }.boxed_local());
    assert_eq!(f.t.run(f.migrator(client).read(req)), Err(text("early")));
    assert!(f.journal.take().is_empty());
}

pub(super) struct FakeExternal {
    pub(super) journal: Rc<Journal>,
    pub(super) sample: bool,
    pub(super) event: Option<V>,
    pub(super) throw_on_latency: bool,
    /// The events it sent to its client.
    pub(super) sent: Rc<RefCell<Vec<V>>>,
}

impl ExternalTracker<V> for FakeExternal {
    fn consistency(&self, mut check: Box<dyn FnMut() -> Result<bool, V>>) -> Result<(), V> {
        if self.sample {
            let r = check()?;
            self.journal.push(format!("consistency {r}"));
        }
        Ok(())
    }
    fn settle(&self, measurements: &[Measurement]) -> Settled<V> {
        let mut thrown = Vec::new();
        for m in measurements {
            match *m {
                Measurement::Op(op) => self.journal.push(format!("op {}", op.as_str())),
                Measurement::Call { origin, latency_ms, failed } => {
                    self.journal.push(format!("invoked {}", origin.as_str()));
                    if latency_ms.is_some() {
                        match self.throw_on_latency {
                            true => thrown.push(("latency", text("latency broke"))),
                            false => self.journal.push(format!("latency {}", origin.as_str())),
                        }
                    }
                    if failed {
                        self.journal.push(format!("error {}", origin.as_str()));
                    }
                }
            }
        }
        self.journal.push("createEvent".into());
        if let Some(event) = &self.event {
            self.sent.borrow_mut().push(event.clone());
        }
        Settled { made_event: self.event.is_some(), thrown }
    }
    fn handle(&self) -> V {
        text("tracker")
    }
}

#[test]
fn external_tracker_receives_every_measurement_and_its_event_is_sent() {
    let f = Fixture::new(false, false);
    let tracker_journal = Rc::new(Journal::default());
    let tj = tracker_journal.clone();
    let sent = Rc::new(RefCell::new(Vec::new()));
    let to_client = sent.clone();
    let client = FakeClient::with(move || {
        let mut s = ServedEvaluation::stage(Some(Stage::Live));
        s.sampling_ratio = Some(0.0); // the external tracker samples, not cutover
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
    // The check runs when the values are there; the measurements are replayed together at the end.
    assert_eq!(
        tracker_journal.take(),
        ["consistency true", "op read", "invoked old", "latency old", "invoked new", "latency new", "createEvent"]
    );
    assert_eq!(*sent.borrow(), vec![text("ld event")]);
    assert!(client.events.borrow().is_empty());
    assert_eq!(m.stats().read.consistency.checked, 1);
}

#[test]
fn external_tracker_that_throws_is_logged_and_the_operation_goes_on() {
    let f = Fixture::new(false, false);
    let client = FakeClient::with(move || {
        let mut s = ServedEvaluation::stage(Some(Stage::Off));
        s.tracker = Some(OfferedTracker::Usable(Box::new(FakeExternal {
            journal: Rc::new(Journal::default()),
            sample: false,
            event: None,
            throw_on_latency: true,
            sent: Rc::default(),
        })));
        Ok(s)
    });
    let r = f.t.run(f.migrator(client.clone()).read(request(Stage::Off))).unwrap();
    assert_eq!(r.result, Ok(text("old")));
    assert!(f.t.logger.messages(Level::Error).iter().any(|l| l.contains("latency broke")));
    assert!(client.events.borrow().is_empty(), "createEvent gave nothing, and cutover sent none of its own");
}

#[test]
fn unusable_tracker_falls_back_to_own() {
    let f = Fixture::new(false, false);
    let client = FakeClient::with(|| {
        let mut s = ServedEvaluation::stage(Some(Stage::Off));
        s.tracker = Some(OfferedTracker::Unusable { missing: "createEvent".into() });
        Ok(s)
    });
    f.t.run(f.migrator(client.clone()).read(request(Stage::Off))).unwrap();
    assert_eq!(client.events.borrow().len(), 1);
    assert!(f.t.logger.messages(Level::Error).iter().any(|l| l.contains("createEvent")));
}

#[test]
fn stats_count_completed_operations_by_stage() {
    let f = Fixture::new(false, false);
    let stage = Rc::new(Cell::new(Stage::Shadow));
    let s2 = stage.clone();
    let client = FakeClient::with(move || Ok(ServedEvaluation::stage(Some(s2.get()))));
    let m = f.migrator(client);
    for _ in 0..3 {
        f.t.run(m.read(request(Stage::Off))).unwrap();
    }
    stage.set(Stage::Complete);
    f.t.run(m.read(request(Stage::Off))).unwrap();
    f.t.run(m.write(request(Stage::Off))).unwrap();
    let s = serde_json::to_value(m.stats()).unwrap();
    assert_eq!(s["read"]["count"], 4);
    assert_eq!(s["read"]["byStage"], json!({"shadow": 3, "complete": 1}));
    assert_eq!(s["read"]["old"]["invoked"], 3);
    assert_eq!(s["read"]["new"]["invoked"], 4);
    assert_eq!(s["read"]["consistency"], json!({"checked": 3, "consistent": 3, "paths": {}}));
    assert_eq!(s["write"]["byStage"], json!({"complete": 1}));
    assert_eq!(s["write"]["old"]["latencyMs"], Value::Null);
    let p50 = s["read"]["old"]["latencyMs"]["p50"].as_f64().unwrap();
    assert!((p50 - 10.0).abs() <= 0.2, "{p50}");
    m.reset_stats();
    assert_eq!(m.stats().read.count, 0);
}

#[test]
fn each_build_is_an_independent_migrator() {
    let f = Fixture::new(false, false);
    let a = f.migrator(FakeClient::serving(Stage::Off));
    let b = f.migrator(FakeClient::serving(Stage::Off));
    f.t.run(a.read(request(Stage::Off))).unwrap();
    assert_eq!((a.stats().read.count, b.stats().read.count), (1, 0));
}

#[test]
fn client_without_event_sink_builds_nothing() {
    let f = Fixture::new(false, false);
    let client = Rc::new(FakeClient {
        served: RefCell::new(Box::new(|| Ok(ServedEvaluation::stage(Some(Stage::Off))))),
        events: RefCell::default(),
        defaults_seen: RefCell::default(),
        tracks: false,
        ratio_rule: Default::default(),
    });
    let mut req = request(Stage::Off);
    req.context = TestValue::Json(json!({})); // would fail build(), but nothing is built
    let migrator = f.migrator(client.clone());
    f.t.run(migrator.read(req)).unwrap();
    let mut again = request(Stage::Off);
    again.context = TestValue::Json(json!({}));
    f.t.run(migrator.read(again)).unwrap();
    assert!(client.events.borrow().is_empty());
    // The invalid context is reported all the same: once per migrator, as a warning (issue 33).
    let lines = f.t.logger.lines.borrow().clone();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0].0, Level::Warn);
    assert!(lines[0].1.starts_with("migrator: the context has no key"), "{}", lines[0].1);
}

/// An origin whose host starts a parallel pair itself (`call_both`), as the JavaScript bridge
/// does: both calls timed from one start, reported together.
struct PairOrigin {
    inner: Rc<FakeOrigin>,
    pairs: Rc<Cell<u32>>,
}

impl OriginFn<V> for PairOrigin {
    fn call(&self, payload: Option<&V>, cancellable: bool) -> OriginCall<V> {
        self.inner.call(payload, cancellable)
    }
    fn call_both(
        &self,
        other: &dyn OriginFn<V>,
        payload: Option<&V>,
    ) -> Option<futures::future::LocalBoxFuture<'static, [Timed<V>; 2]>> {
        self.pairs.set(self.pairs.get() + 1);
        let clock = self.inner.host.clock.clone();
        let start = clock.monotonic_ms();
        let timed = move |call: OriginCall<V>| {
            let clock = clock.clone();
            call.outcome.map(move |(result, _)| (result, Some(clock.monotonic_ms() - start)))
        };
        let (first, second) = (timed(self.inner.call(payload, false)), timed(other.call(payload, false)));
        Some(
            async move {
                let (a, b) = futures::future::join(first, second).await;
                [a, b]
            }
            .boxed_local(),
        )
    }
}

fn pair_fixture(timeout: Option<f64>) -> (Fixture, Rc<Cell<u32>>) {
    let mut f = Fixture::new(false, false);
    let pairs = Rc::new(Cell::new(0));
    let origin = |name, delay_ms| {
        Rc::new(PairOrigin {
            inner: Rc::new(FakeOrigin {
                name,
                delay_ms,
                fail: false,
                host: f.t.host.clone(),
                journal: f.journal.clone(),
                payloads: RefCell::default(),
            }),
            pairs: pairs.clone(),
        })
    };
    let comparison = f.comparison.clone();
    f.builder.read(ReadOrigins { old: origin("old", 10.0), new: origin("new", 20.0), comparison: Some(comparison) });
    if let Some(ms) = timeout {
        f.builder.origin_timeout(ms).unwrap();
    }
    (f, pairs)
}

#[test]
fn a_host_pair_call_runs_a_parallel_read_with_the_same_bookkeeping() {
    let (f, pairs) = pair_fixture(None);
    let client = FakeClient::serving(Stage::Shadow);
    let m = f.migrator(client.clone());
    let r = f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(r.result, Ok(text("old")));
    assert_eq!(pairs.get(), 1);
    assert_eq!(&f.journal.take()[..2], &["old start@0".to_string(), "new start@0".to_string()]);
    assert_eq!(f.comparison.calls.get(), 1);
    let stats = serde_json::to_value(m.stats()).unwrap();
    assert_eq!(stats["read"]["old"]["invoked"], 1);
    assert_eq!(stats["read"]["new"]["invoked"], 1);
    assert_eq!(stats["read"]["consistency"]["checked"], 1);
    let event = &client.events.borrow()[0];
    assert_eq!(event["measurements"][0], json!({"key": "invoked", "values": {"old": true, "new": true}}));
    let latency = &event["measurements"][2]["values"];
    assert!((10.0..=11.0).contains(&latency["old"].as_f64().unwrap()), "{latency}");
    assert!((20.0..=21.0).contains(&latency["new"].as_f64().unwrap()), "{latency}");
}

#[test]
fn a_cancellable_parallel_read_calls_origins_one_by_one() {
    let (f, pairs) = pair_fixture(Some(1000.0));
    let m = f.migrator(FakeClient::serving(Stage::Live));
    let r = f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(r.result, Ok(text("new")));
    assert_eq!(pairs.get(), 0, "with a timeout each call needs its own control");
}

#[test]
fn a_client_that_asks_gets_every_check_ratio_written_even_one() {
    use crate::migration::event::CheckRatioOnWire;
    for (rule, expected) in [
        (CheckRatioOnWire::OmittedWhenOne, json!({"key": "consistent", "value": true})),
        (CheckRatioOnWire::Always, json!({"key": "consistent", "value": true, "samplingRatio": 1})),
    ] {
        let f = Fixture::new(false, false);
        let mut client = FakeClient::with(|| Ok(ServedEvaluation::stage(Some(Stage::Shadow))));
        Rc::get_mut(&mut client).unwrap().ratio_rule = rule;
        f.t.run(f.migrator(client.clone()).read(request(Stage::Off))).unwrap();
        assert_eq!(client.events.borrow()[0]["measurements"][1], expected, "{rule:?}");
    }
}

// Metrics: what a host's sink receives agrees with stats(), with only the allowed attributes.

fn metered(f: &mut Fixture) -> Rc<crate::testing::RecordingSink> {
    let sink = Rc::new(crate::testing::RecordingSink::default());
    f.t.host.metrics = Some(sink.clone());
    sink
}

const READ_SHADOW: &str = "feature_flag.key=mig,cutover.migration.stage=shadow,cutover.migration.operation=read";

#[test]
fn metrics_of_shadow_reads_agree_with_stats() {
    let mut f = Fixture::custom(TestHost::new(42), false, false, Ok(false));
    let sink = metered(&mut f);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    for _ in 0..3 {
        f.t.run(m.read(request(Stage::Off))).unwrap();
    }
    let s = m.stats();
    assert_eq!(sink.sum("cutover.migration.operations", READ_SHADOW), s.read.count as f64);
    assert_eq!(sink.total("cutover.migration.operations"), 3.0);
    let old = format!("{READ_SHADOW},cutover.migration.origin=old");
    let new = format!("{READ_SHADOW},cutover.migration.origin=new");
    let durations: Vec<f64> = sink
        .records
        .borrow()
        .iter()
        .filter(|(n, _, a)| *n == "cutover.migration.origin.duration" && *a == old)
        .map(|(_, v, _)| *v)
        .collect();
    assert_eq!(durations, vec![0.01; 3], "seconds: the old read takes 10 ms");
    assert_eq!(sink.count("cutover.migration.origin.duration"), (s.read.old.invoked + s.read.new.invoked) as usize);
    assert_eq!(sink.sum("cutover.migration.origin.duration", &new), 0.02 * 3.0);
    assert_eq!(sink.sum("cutover.migration.consistency.checks", READ_SHADOW), s.read.consistency.checked as f64);
    let mismatches = s.read.consistency.checked - s.read.consistency.consistent;
    assert_eq!(sink.sum("cutover.migration.consistency.mismatches", READ_SHADOW), mismatches as f64);
    assert_eq!((s.read.consistency.checked, mismatches), (3, 3));
    assert_eq!(sink.total("cutover.migration.origin.errors"), 0.0);
}

#[test]
fn metrics_of_failures_and_timeouts_carry_error_type() {
    let mut f = Fixture::new(true, false);
    f.builder.origin_timeout(15.0).unwrap();
    let sink = metered(&mut f);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    let s = m.stats();
    let old = format!("{READ_SHADOW},cutover.migration.origin=old,error.type=_OTHER");
    let new = format!("{READ_SHADOW},cutover.migration.origin=new,error.type=timeout");
    assert_eq!(sink.sum("cutover.migration.origin.errors", &old), s.read.old.errors as f64);
    assert_eq!(sink.sum("cutover.migration.origin.errors", &new), 1.0);
    assert_eq!(sink.total("cutover.migration.origin.errors"), (s.read.old.errors + s.read.new.errors) as f64);
    let timeouts = format!("{READ_SHADOW},cutover.migration.origin=new");
    assert_eq!(sink.sum("cutover.migration.origin.timeouts", &timeouts), s.read.new.timeouts as f64);
    assert_eq!(sink.total("cutover.migration.origin.timeouts"), 1.0);
}

#[test]
fn metrics_of_writes_name_stage_operation_and_origin() {
    let mut f = Fixture::new(false, false);
    let sink = metered(&mut f);
    let m = f.migrator(FakeClient::serving(Stage::DualWrite));
    f.t.run(m.write(request(Stage::Off))).unwrap();
    let attrs = "feature_flag.key=mig,cutover.migration.stage=dualwrite,cutover.migration.operation=write";
    assert_eq!(sink.sum("cutover.migration.operations", attrs), 1.0);
    assert_eq!(sink.sum("cutover.migration.origin.duration", &format!("{attrs},cutover.migration.origin=old")), 0.005);
    assert_eq!(sink.sum("cutover.migration.origin.duration", &format!("{attrs},cutover.migration.origin=new")), 0.007);
    assert_eq!(sink.count("cutover.migration.consistency.checks"), 0);
}

#[test]
fn metrics_of_an_aborted_operation_count_no_operation() {
    let mut f = Fixture::new(false, false);
    let sink = metered(&mut f);
    let m = f.migrator(FakeClient::serving(Stage::Live));
    let (tx, rx) = futures::channel::oneshot::channel::<V>();
    let mut req = request(Stage::Off);
    req.abort = Some(async move { rx.await.unwrap_or_else(|_| text("dropped")) }.boxed_local());
    let out = f.t.start(m.read(req));
    f.t.advance(5.0);
    tx.send(text("stop")).unwrap();
    f.t.settle();
    assert!(matches!(out.borrow_mut().take(), Some(Err(_))));
    assert_eq!(m.stats().read.count, 0);
    assert_eq!(sink.records.borrow().len(), 0);
}

#[test]
fn no_sink_records_nothing_and_changes_nothing() {
    let f = Fixture::new(false, false);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    assert!(f.t.host.metrics.is_none());
    assert_eq!(m.stats().read.count, 1);
}
