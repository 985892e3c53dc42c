//! Deterministic stand-ins for the host, for native tests: a manual clock whose sleeps fire
//! only when the test advances time, a seeded random source, a recording logger and a
//! single-threaded executor.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;

use futures::channel::oneshot;
use futures::executor::LocalPool;
use futures::future::LocalBoxFuture;
use futures::task::LocalSpawnExt;
use futures::FutureExt;

use crate::host::{BackgroundInterval, Clock, Host, Level, Logger, Random, Sleep, Spawn};

/// A repeating timer of the fake clock; `live` is cleared when its handle is dropped.
struct FakeInterval {
    every_ms: f64,
    next_at: f64,
    tick: Rc<RefCell<Box<dyn FnMut()>>>,
    live: Rc<Cell<bool>>,
}

/// Manual time. `advance` moves it forward and fires every sleep and interval tick that is due.
#[derive(Default)]
pub struct FakeClock {
    now: Cell<f64>,
    epoch_offset: Cell<f64>,
    timers: RefCell<Vec<(f64, oneshot::Sender<()>)>>,
    intervals: RefCell<Vec<FakeInterval>>,
}

impl FakeClock {
    pub fn new(epoch_start_ms: f64) -> Rc<Self> {
        let clock = FakeClock::default();
        clock.epoch_offset.set(epoch_start_ms);
        Rc::new(clock)
    }
    pub fn now(&self) -> f64 {
        self.now.get()
    }
    /// Moves time forward and wakes every sleep whose deadline has passed, then calls each
    /// interval's tick once per period that ended (without settling tasks in between).
    pub fn advance(&self, ms: f64) {
        self.now.set(self.now.get() + ms);
        let now = self.now.get();
        let due: Vec<_> = {
            let mut timers = self.timers.borrow_mut();
            let (due, keep): (Vec<_>, Vec<_>) = timers.drain(..).partition(|(at, _)| *at <= now);
            *timers = keep;
            due
        };
        for (_, tx) in due {
            let _ = tx.send(());
        }
        let ticks: Vec<_> = {
            let mut intervals = self.intervals.borrow_mut();
            intervals.retain(|i| i.live.get());
            let mut ticks = Vec::new();
            for interval in intervals.iter_mut() {
                while interval.next_at <= now {
                    ticks.push((interval.tick.clone(), interval.live.clone()));
                    interval.next_at += interval.every_ms;
                }
            }
            ticks
        };
        for (tick, live) in ticks {
            if live.get() {
                (tick.borrow_mut())();
            }
        }
    }
    /// Sleeps not yet fired or dropped, plus live intervals.
    pub fn pending_timers(&self) -> usize {
        let sleeps = self.timers.borrow().iter().filter(|(_, tx)| !tx.is_canceled()).count();
        sleeps + self.live_intervals()
    }
    pub fn live_intervals(&self) -> usize {
        self.intervals.borrow().iter().filter(|i| i.live.get()).count()
    }
}

impl Clock for FakeClock {
    fn monotonic_ms(&self) -> f64 {
        self.now.get()
    }
    fn epoch_ms(&self) -> f64 {
        self.epoch_offset.get() + self.now.get()
    }
}

impl Sleep for FakeClock {
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()> {
        let (tx, rx) = oneshot::channel();
        let at = self.now.get() + ms.max(0.0);
        if ms <= 0.0 {
            let _ = tx.send(());
        } else {
            self.timers.borrow_mut().push((at, tx));
        }
        rx.map(|_| ()).boxed_local()
    }
    fn every_in_background(&self, ms: f64, tick: Box<dyn FnMut()>) -> BackgroundInterval {
        let live = Rc::new(Cell::new(true));
        let every_ms = ms.max(1.0);
        let interval = FakeInterval {
            every_ms,
            next_at: self.now.get() + every_ms,
            tick: Rc::new(RefCell::new(tick)),
            live: live.clone(),
        };
        self.intervals.borrow_mut().push(interval);
        BackgroundInterval::new(move || live.set(false))
    }
}

/// A random source that always returns the same value (0.0 samples everything).
pub struct FixedRandom(pub Cell<f64>);

impl Random for FixedRandom {
    fn next_f64(&self) -> f64 {
        self.0.get()
    }
}

/// Keeps every log line for assertions.
#[derive(Default)]
pub struct RecordingLogger {
    pub lines: RefCell<Vec<(Level, String)>>,
}

impl RecordingLogger {
    pub fn messages(&self, level: Level) -> Vec<String> {
        self.lines.borrow().iter().filter(|(l, _)| *l == level).map(|(_, m)| m.clone()).collect()
    }
}

impl Logger for RecordingLogger {
    fn log(&self, level: Level, message: &str) {
        self.lines.borrow_mut().push((level, message.to_string()));
    }
}

/// Spawns onto a shared `LocalPool`.
pub struct PoolSpawner(pub futures::executor::LocalSpawner);

impl Spawn for PoolSpawner {
    fn spawn(&self, task: LocalBoxFuture<'static, ()>) {
        let _ = self.0.spawn_local(task);
    }
}

/// A complete fake host and the executor that drives it.
pub struct TestHost {
    pub pool: RefCell<LocalPool>,
    pub clock: Rc<FakeClock>,
    pub logger: Rc<RecordingLogger>,
    pub host: Host,
}

impl TestHost {
    pub fn new(seed: u64) -> Self {
        let pool = LocalPool::new();
        let clock = FakeClock::new(1_795_989_121_000.0);
        let logger = Rc::new(RecordingLogger::default());
        let host = Host {
            clock: clock.clone(),
            sleep: clock.clone(),
            // Reproducible sampling and coin flips: the crate's generator with a fixed seed.
            random: Rc::new(crate::util::random::Xorshift64Star::with_seed(seed)),
            logger: logger.clone(),
            spawn: Rc::new(PoolSpawner(pool.spawner())),
            metrics: None,
        };
        TestHost { pool: RefCell::new(pool), clock, logger, host }
    }
    pub fn with_random(mut self, random: Rc<dyn Random>) -> Self {
        self.host.random = random;
        self
    }
    /// Spawns `fut` and returns a handle whose value can be taken once it finished.
    pub fn start<T: 'static>(&self, fut: impl Future<Output = T> + 'static) -> Rc<RefCell<Option<T>>> {
        let slot = Rc::new(RefCell::new(None));
        let out = slot.clone();
        self.host.spawn.spawn(
            async move {
                let v = fut.await;
                *out.borrow_mut() = Some(v);
            }
            .boxed_local(),
        );
        slot
    }
    /// Runs every task until none can make progress without time passing.
    pub fn settle(&self) {
        self.pool.borrow_mut().run_until_stalled();
    }
    /// Advances the fake clock, then settles.
    pub fn advance(&self, ms: f64) {
        self.settle();
        self.clock.advance(ms);
        self.settle();
    }
    /// Runs `fut` to completion, advancing time in `step_ms` steps while it waits on timers.
    pub fn run<T: 'static>(&self, fut: impl Future<Output = T> + 'static) -> T {
        let slot = self.start(fut);
        for _ in 0..1_000_000 {
            self.settle();
            if let Some(v) = slot.borrow_mut().take() {
                return v;
            }
            self.clock.advance(1.0);
        }
        panic!("future never finished")
    }
}

/// The host value used by native tests: either plain data or an opaque text.
#[derive(Clone, Debug, PartialEq)]
pub enum TestValue {
    Json(serde_json::Value),
    Text(String),
}

impl crate::host::HostValue for TestValue {
    fn describe(&self) -> String {
        match self {
            TestValue::Json(v) => v.to_string(),
            TestValue::Text(s) => s.clone(),
        }
    }
    fn context_facts(&self) -> crate::migration::context::ContextFacts {
        match self {
            TestValue::Json(v) => crate::migration::context::ContextFacts::of_json(v),
            TestValue::Text(_) => crate::migration::context::ContextFacts::NotAnObject,
        }
    }
    /// A JSON object's string `name`.
    fn error_name(&self) -> Option<String> {
        match self {
            TestValue::Json(v) => v.get("name").and_then(|n| n.as_str()).map(str::to_owned),
            TestValue::Text(_) => None,
        }
    }
}

/// A test value's serde form: its plain data, or `null` for an opaque text (as a host value
/// that is not plain data reads).
impl serde::Serialize for TestValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            TestValue::Json(v) => v.serialize(serializer),
            TestValue::Text(_) => serializer.serialize_unit(),
        }
    }
}

/// The serde form of `value` as `serde_json` data, to compare with `json!` (the core's numbers
/// are written as JavaScript has them: see `util::number`).
pub fn wire<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).unwrap()
}

/// A metric sink that keeps every measurement as (instrument name, value, attributes as
/// `name=value` pairs joined by commas).
#[derive(Default)]
pub struct RecordingSink {
    pub records: RefCell<Vec<(&'static str, f64, String)>>,
}

impl RecordingSink {
    /// The sum of `instrument`'s values whose attributes are exactly `attributes`.
    pub fn sum(&self, instrument: &str, attributes: &str) -> f64 {
        self.records.borrow().iter().filter(|(n, _, a)| *n == instrument && a == attributes).map(|(_, v, _)| v).sum()
    }
    /// The sum of all of `instrument`'s values.
    pub fn total(&self, instrument: &str) -> f64 {
        self.records.borrow().iter().filter(|(n, _, _)| *n == instrument).map(|(_, v, _)| v).sum()
    }
    pub fn count(&self, instrument: &str) -> usize {
        self.records.borrow().iter().filter(|(n, _, _)| *n == instrument).count()
    }
}

impl crate::metrics::MetricSink for RecordingSink {
    fn record(&self, instrument: crate::metrics::Instrument, value: f64, attributes: &crate::metrics::Attributes<'_>) {
        let pairs: Vec<String> = attributes.pairs().map(|(k, v)| format!("{k}={v}")).collect();
        self.records.borrow_mut().push((instrument.spec().name, value, pairs.join(",")));
    }
}
