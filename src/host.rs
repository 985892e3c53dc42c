//! What the core needs from whoever runs it.
//!
//! The core never reads a clock, draws a random number, logs, sleeps or spawns a task on its
//! own: it asks a [`Host`]. The wasm bindings implement these traits over `performance.now()`,
//! `crypto.getRandomValues`, timers and a JavaScript logger; native tests implement them with a
//! fake clock and a seeded random source (see `testing`).

use std::rc::Rc;

use futures::future::LocalBoxFuture;

/// Log severity, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Debug,
    Info,
    Warn,
    Error,
}

/// Time sources. `monotonic_ms` measures durations (never goes back); `epoch_ms` stamps events.
pub trait Clock {
    fn monotonic_ms(&self) -> f64;
    fn epoch_ms(&self) -> f64;
}

/// Timers: one-shot sleeps (timeouts, delays) and a repeating background tick.
pub trait Sleep {
    /// A timer: the future resolves after `ms` milliseconds.
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()>;
    /// Calls `tick` every `ms` milliseconds until the returned handle is dropped. For background
    /// work (status polling): it must not keep an otherwise idle host process alive.
    fn every_in_background(&self, ms: f64, tick: Box<dyn FnMut()>) -> BackgroundInterval;
}

/// A repeating background timer started by [`Sleep::every_in_background`]; dropping it stops
/// the timer (the tick is not called again).
pub struct BackgroundInterval {
    stop: Option<Box<dyn FnOnce()>>,
}

impl BackgroundInterval {
    /// A handle that runs `stop` when dropped.
    pub fn new(stop: impl FnOnce() + 'static) -> Self {
        BackgroundInterval { stop: Some(Box::new(stop)) }
    }
}

impl Drop for BackgroundInterval {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop();
        }
    }
}

/// Uniform random numbers in `[0, 1)`.
pub trait Random {
    fn next_f64(&self) -> f64;
}

/// A sink for log lines.
pub trait Logger {
    fn log(&self, level: Level, message: &str);
}

/// Runs a detached task to completion on the host's event loop.
pub trait Spawn {
    fn spawn(&self, task: LocalBoxFuture<'static, ()>);
}

/// A value owned by the host (a JavaScript value in the bindings) that the core passes along
/// without looking inside, except to describe it in a log line or read a context's facts.
pub trait HostValue: Clone + 'static {
    /// A short human-readable form, for log lines.
    fn describe(&self) -> String;
    /// What context validation needs of this value read as a context: only its `kind` and
    /// `key` (and a multi-kind context's attribute names and nested keys), never a copy. The
    /// default is for values never read as contexts (errors): not an object.
    fn context_facts(&self) -> crate::vocabulary::context::ContextFacts {
        crate::vocabulary::context::ContextFacts::NotAnObject
    }
    /// This value's name read as an error (a JavaScript error's `name`), for a metric's
    /// `error.type`; read only when a metric sink is installed.
    fn error_name(&self) -> Option<String> {
        None
    }
}

/// Everything the core asks of its host, bundled.
#[derive(Clone)]
pub struct Host {
    pub clock: Rc<dyn Clock>,
    pub sleep: Rc<dyn Sleep>,
    pub random: Rc<dyn Random>,
    pub logger: Rc<dyn Logger>,
    pub spawn: Rc<dyn Spawn>,
    /// Where measurements go (`None`: nothing is recorded).
    pub metrics: Option<Rc<dyn crate::metrics::MetricSink>>,
}

impl Host {
    pub fn log(&self, level: Level, message: &str) {
        self.logger.log(level, message);
    }
    pub fn debug(&self, message: &str) {
        self.log(Level::Debug, message);
    }
    pub fn warn(&self, message: &str) {
        self.log(Level::Warn, message);
    }
    pub fn error(&self, message: &str) {
        self.log(Level::Error, message);
    }
    /// The 1-in-`ratio` sampler shared by consistency checks and event sampling: a ratio that
    /// is not a positive integer never samples, 1 always samples, N samples with chance 1/N.
    pub fn sample(&self, ratio: f64) -> bool {
        if !(ratio.is_finite() && ratio >= 1.0 && ratio.fract() == 0.0) {
            return false;
        }
        if ratio == 1.0 {
            return true;
        }
        (self.random.next_f64() * ratio).floor() == 0.0
    }
}
