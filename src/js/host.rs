//! The host traits over JavaScript: the clock, timers (through the facade's bridge),
//! Math.random-seeded randomness, a JavaScript logger, and the microtask queue.

use std::cell::Cell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use wasm_bindgen::prelude::*;

use super::value::{got, method, type_error};
use crate::host::{Clock, Host, Level, Logger, Random, Sleep, Spawn};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(message: &str);
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

struct JsClock;

impl Clock for JsClock {
    fn monotonic_ms(&self) -> f64 {
        super::bridge::now().unwrap_or_else(js_sys::Date::now)
    }
    fn epoch_ms(&self) -> f64 {
        js_sys::Date::now()
    }
}

struct JsSleep;

impl Sleep for JsSleep {
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()> {
        super::promise::sleep(ms, false)
    }
    fn sleep_in_background(&self, ms: f64) -> LocalBoxFuture<'static, ()> {
        super::promise::sleep(ms, true)
    }
}

/// xorshift64*: sampling and random execution order need speed, not secrecy.
struct JsRandom(Cell<u64>);

impl JsRandom {
    /// Seeded from two `Math.random()` draws: sampling needs an unpredictable-enough start,
    /// not secrecy, and `crypto` would cost a module load at first use in Node.
    fn seeded() -> Self {
        let high = (js_sys::Math::random() * 4_294_967_296.0) as u64;
        let low = (js_sys::Math::random() * 4_294_967_296.0) as u64;
        JsRandom(Cell::new((high << 32 | low) | 1))
    }
}

impl Random for JsRandom {
    fn next_f64(&self) -> f64 {
        let mut x = self.0.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0.set(x);
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A user's logger object: `debug`, `info`, `warn` and `error` methods, each optional.
struct JsLogger {
    target: JsValue,
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
        if let Some(f) = method(&self.target, name) {
            // A logger that throws must not break the operation that is logging.
            let _ = f.call1(&self.target, &JsValue::from_str(message));
        }
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

/// Background tasks (the status poller) run on `crate::task`: polled at once, then wherever
/// they are woken — in the async context of whoever spawned them.
struct TaskSpawn;

impl Spawn for TaskSpawn {
    fn spawn(&self, task: LocalBoxFuture<'static, ()>) {
        crate::task::spawn(task);
    }
}

/// One instance of each stateless (or process-wide) host part, shared by every host.
struct HostParts {
    clock: Rc<JsClock>,
    sleep: Rc<JsSleep>,
    random: Rc<JsRandom>,
    spawn: Rc<TaskSpawn>,
    console: Rc<ConsoleLogger>,
}

thread_local! {
    static PARTS: HostParts = HostParts {
        clock: Rc::new(JsClock),
        sleep: Rc::new(JsSleep),
        random: Rc::new(JsRandom::seeded()),
        spawn: Rc::new(TaskSpawn),
        console: Rc::new(ConsoleLogger),
    };
}

/// A host whose logger is `logger` (an object with logging methods), or the console when
/// `logger` is undefined or null. Anything else is a TypeError.
pub fn js_host(logger: &JsValue) -> Result<Host, JsValue> {
    super::bridge::required()?;
    let logger: Rc<dyn Logger> = if logger.is_undefined() || logger.is_null() {
        PARTS.with(|p| p.console.clone())
    } else if logger.is_object() {
        Rc::new(JsLogger { target: logger.clone() })
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
    }))
}
