//! The host traits over JavaScript: the clock, timers (sleeps through the facade's bridge, the
//! background interval through gloo-timers), the crate's random generator, a JavaScript logger,
//! and task spawning.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use wasm_bindgen::prelude::*;

use super::value::{got, method, type_error};
use crate::host::{BackgroundInterval, Clock, Host, Level, Logger, Sleep, Spawn};
use crate::util::random::Xorshift64Star;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(message: &str);
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
    #[wasm_bindgen(js_name = clearInterval)]
    fn clear_interval(handle: &JsValue);
}

struct JsClock;

impl Clock for JsClock {
    fn monotonic_ms(&self) -> f64 {
        super::bridge::now()
    }
    fn epoch_ms(&self) -> f64 {
        js_sys::Date::now()
    }
}

struct JsSleep;

impl Sleep for JsSleep {
    /// Through the facade's bridge timer (one call with a slot id), not gloo-timers'
    /// `TimeoutFuture` (a JS closure made and dropped per timer): measured (issue 12) on a store
    /// miss, which races the store call against a query-timeout timer, gloo cost 7.3–8.8 µs per
    /// miss against 7.0–7.9 µs (+5–12 %, Node 20, three paired runs) and +459 B of gzipped wasm.
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()> {
        super::promise::sleep(ms, false)
    }

    /// A gloo-timers `Interval`, forgotten for its handle: the handle is `unref()`'d where it
    /// has that method (Node; not browsers or workerd), so the interval never keeps an idle
    /// process alive, and dropping the returned guard calls `clearInterval` on it.
    ///
    /// `forget()` leaks gloo's closure; it holds only a `Weak` of the slot with `tick`, which the
    /// guard owns, so what stays behind after the guard is dropped is that closure and a dead
    /// weak pointer (a few dozen bytes per started manager), not `tick` or what it refers to.
    fn every_in_background(&self, ms: f64, tick: Box<dyn FnMut()>) -> BackgroundInterval {
        let tick = Rc::new(RefCell::new(tick));
        let slot = Rc::downgrade(&tick);
        // setInterval takes a 32-bit delay: a longer one would fire at once.
        let millis = if ms.is_finite() { ms.ceil().max(1.0).min(f64::from(i32::MAX)) as u32 } else { i32::MAX as u32 };
        let handle = gloo_timers::callback::Interval::new(millis, move || {
            if let Some(tick) = slot.upgrade() {
                // A tick that re-enters itself (not possible today) is skipped, not a panic.
                if let Ok(mut tick) = tick.try_borrow_mut() {
                    tick();
                }
            }
        })
        .forget();
        unref(&handle);
        BackgroundInterval::new(move || {
            clear_interval(&handle);
            drop(tick);
        })
    }
}

/// Calls `handle.unref()` when the timer handle has it (Node's `Timeout` objects).
fn unref(handle: &JsValue) {
    if let Some(f) = method(handle, "unref") {
        let _ = f.call0(handle);
    }
}

/// A user's logger object: `debug`, `info`, `warn` and `error` methods, each optional, looked up
/// when it logs.
struct JsLogger {
    /// The weak reference `bridge::weakly` made (js/bridge/held.js).
    target: JsValue,
    /// The logger itself, for a host whose owner's facade does not keep it ([`LoggerKeeper::Host`]).
    _kept: Option<JsValue>,
}

/// Who keeps a host's JavaScript logger alive: a strong reference from the wasm is a GC root, so
/// a logger that refers to its migrator would keep both forever (js/bridge/held.js).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum LoggerKeeper {
    /// The facade keeps it (a migrator's `held` list): the host holds it weakly.
    Facade,
    /// The host itself (the Big Segments manager's, whose facade keeps no list).
    Host,
}

/// The default: `console`, warnings and errors only.
struct ConsoleLogger;

impl Logger for JsLogger {
    fn log(&self, level: Level, message: &str) {
        let name = match level {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        };
        super::bridge::log_to(&self.target, name, message);
    }
}

impl Logger for ConsoleLogger {
    fn log(&self, level: Level, message: &str) {
        match level {
            Level::Debug | Level::Info => {}
            Level::Warn => console_warn(&format!("[cutover] {message}")),
            Level::Error => console_error(&format!("[cutover] {message}")),
        }
    }
}

/// Background tasks (the status poller) run on `crate::util::task`: polled at once, then wherever
/// they are woken — in the async context of whoever spawned them.
struct TaskSpawn;

impl Spawn for TaskSpawn {
    fn spawn(&self, task: LocalBoxFuture<'static, ()>) {
        crate::util::task::spawn(task);
    }
}

/// One instance of each stateless (or process-wide) host part, shared by every host.
struct HostParts {
    clock: Rc<JsClock>,
    sleep: Rc<JsSleep>,
    random: Rc<Xorshift64Star>,
    spawn: Rc<TaskSpawn>,
    console: Rc<ConsoleLogger>,
}

// Why a thread_local: the parts are the same for every migrator and manager of this wasm instance
// (one clock, one generator seeded once from Math.random, one console), shared as `Rc`s, which a
// `static` cannot hold; without it each builder would allocate five and seed its own generator.
thread_local! {
    static PARTS: HostParts = HostParts {
        clock: Rc::new(JsClock),
        sleep: Rc::new(JsSleep),
        random: Rc::new(Xorshift64Star::from_entropy()),
        spawn: Rc::new(TaskSpawn),
        console: Rc::new(ConsoleLogger),
    };
}

/// A host whose logger is `logger` (an object with logging methods), kept as `keeper` says, or
/// the console when `logger` is undefined or null. Anything else is a TypeError.
pub fn js_host(logger: &JsValue, keeper: LoggerKeeper) -> Result<Host, JsValue> {
    let logger: Rc<dyn Logger> = if logger.is_undefined() || logger.is_null() {
        PARTS.with(|p| p.console.clone())
    } else if logger.is_object() {
        let kept = (keeper == LoggerKeeper::Host).then(|| logger.clone());
        Rc::new(JsLogger { target: super::bridge::weakly(logger), _kept: kept })
    } else {
        return Err(type_error(&format!(
            "logger must be an object with debug/info/warn/error methods, {}",
            got(logger)
        )));
    };
    Ok(PARTS.with(|p| Host {
        clock: p.clock.clone(),
        sleep: p.sleep.clone(),
        random: p.random.clone(),
        logger,
        spawn: p.spawn.clone(),
        metrics: None,
    }))
}
