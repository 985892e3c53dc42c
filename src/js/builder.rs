//! `MigratorBuilder` for JavaScript: arguments checked for their JavaScript type here, their
//! values by the core.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::bridge;
use super::client::JsClient;
use super::guard::JsGuardListener;
use super::host::{js_host, LoggerKeeper};
use super::migrator::WasmMigrator;
use super::mismatches::{JsExplainer, JsMismatchListener};
use super::origin::{must_be_function, JsComparison, JsOrigin};
use super::same_structure::WasmSameStructure;
use super::signal::{AbortController, AbortSignal};
use super::value::got;
use crate::error::Error;
use crate::host::Host;
use crate::migration::guard::GuardListener;
use crate::migration::{
    Comparison, MigratorBuilder, MismatchListener, MismatchSettings, OriginFn, ReadOrigins, WriteOrigins,
};

#[wasm_bindgen]
pub struct WasmMigratorBuilder {
    inner: RefCell<MigratorBuilder<JsValue>>,
    client: Rc<JsClient>,
    host: Host,
    idle_signal: AbortSignal,
}

fn boolean(value: &JsValue, name: &str) -> Result<bool, Error> {
    value.as_bool().ok_or_else(|| Error::Type(format!("{name} must be a boolean, {}", got(value))))
}

/// `value` checked to be a function, as the weak reference the wasm keeps (`bridge::weakly`): the
/// facade keeps the function itself (js/bridge/held.js says why).
fn weak_function(value: &JsValue, name: &str) -> Result<JsValue, Error> {
    must_be_function(value, name)?;
    Ok(bridge::weakly(value))
}

#[wasm_bindgen]
impl WasmMigratorBuilder {
    /// `check_ratio_always`: the client is the facade's LaunchDarkly adapter, whose events must
    /// carry every check ratio (see `CheckRatioOnWire`).
    #[wasm_bindgen(constructor)]
    pub fn new(client: JsValue, logger: JsValue, check_ratio_always: bool) -> Result<WasmMigratorBuilder, JsValue> {
        Ok(WasmMigratorBuilder {
            inner: RefCell::new(MigratorBuilder::new()),
            client: Rc::new(JsClient::from_js(&client, "MigratorBuilder")?.with_check_ratio_always(check_ratio_always)),
            host: js_host(&logger, LoggerKeeper::Facade)?,
            idle_signal: AbortController::new().signal(),
        })
    }

    #[wasm_bindgen(js_name = readExecutionOrder)]
    pub fn read_execution_order(&self, order: JsValue) -> Result<(), JsValue> {
        let text = order.as_string().ok_or_else(|| {
            Error::Type(format!("readExecutionOrder: order must be 'serial', 'random' or 'parallel', {}", got(&order)))
        })?;
        Ok(self.inner.borrow_mut().read_execution_order(&text)?)
    }

    /// Old first, then new, at every stage (for the facade's LaunchDarkly `createMigration`).
    #[wasm_bindgen(js_name = readOldFirst)]
    pub fn read_old_first(&self) {
        self.inner.borrow_mut().read_old_first();
    }

    #[wasm_bindgen(js_name = trackLatency)]
    pub fn track_latency(&self, enabled: JsValue) -> Result<(), JsValue> {
        let enabled = boolean(&enabled, "trackLatency: enabled")?;
        self.inner.borrow_mut().track_latency(enabled);
        Ok(())
    }

    #[wasm_bindgen(js_name = trackErrors)]
    pub fn track_errors(&self, enabled: JsValue) -> Result<(), JsValue> {
        let enabled = boolean(&enabled, "trackErrors: enabled")?;
        self.inner.borrow_mut().track_errors(enabled);
        Ok(())
    }

    #[wasm_bindgen(js_name = originTimeout)]
    pub fn origin_timeout(&self, ms: JsValue) -> Result<(), JsValue> {
        let ms = ms
            .as_f64()
            .ok_or_else(|| Error::Type(format!("originTimeout: ms must be a number of milliseconds, {}", got(&ms))))?;
        Ok(self.inner.borrow_mut().origin_timeout(ms)?)
    }

    /// Background mode; `max_in_flight` undefined for the default (the facade keeps `waitUntil`).
    pub fn background(&self, max_in_flight: JsValue) -> Result<(), JsValue> {
        let max = if max_in_flight.is_undefined() {
            None
        } else {
            Some(max_in_flight.as_f64().ok_or_else(|| {
                Error::Type(format!("background: maxInFlight must be a number, {}", got(&max_in_flight)))
            })?)
        };
        Ok(self.inner.borrow_mut().background(max)?)
    }

    /// `mismatches({ keep, maxDifferences, onMismatch })`, each undefined for its default (the
    /// facade checked the names and that `onMismatch` is a function).
    pub fn mismatches(&self, keep: JsValue, max_differences: JsValue, on_mismatch: JsValue) -> Result<(), JsValue> {
        let number = |value: &JsValue, name: &str| -> Result<Option<f64>, Error> {
            if value.is_undefined() {
                return Ok(None);
            }
            value
                .as_f64()
                .map(Some)
                .ok_or_else(|| Error::Type(format!("mismatches: {name} must be a number, {}", got(value))))
        };
        let settings = MismatchSettings::new(number(&keep, "keep")?, number(&max_differences, "maxDifferences")?)?;
        let listener: Option<Rc<dyn MismatchListener<JsValue>>> = if on_mismatch.is_undefined() {
            None
        } else {
            Some(Rc::new(JsMismatchListener(weak_function(&on_mismatch, "mismatches: onMismatch")?)))
        };
        self.inner.borrow_mut().mismatches(settings, Rc::new(JsExplainer), listener);
        Ok(())
    }

    /// `guard(options)` (the facade checked the names; `options` is an object).
    pub fn guard(&self, options: JsValue) -> Result<(), JsValue> {
        let (settings, on_change) = super::guard::guard_options(&options)?;
        let listener: Option<Rc<dyn GuardListener>> = match on_change {
            None => None,
            Some(f) => Some(Rc::new(JsGuardListener(weak_function(&f, "MigratorBuilder#guard: onChange")?))),
        };
        self.inner.borrow_mut().guard(settings, listener);
        Ok(())
    }

    /// Records into the instruments js/metrics.js created from a Meter (migration table order).
    pub fn meter(&mut self, instruments: JsValue) {
        self.host.metrics = Some(super::meter::JsMeterSink::sink(&instruments, self.host.logger.clone()));
    }

    fn origin(&self, value: &JsValue, name: &str) -> Result<Rc<dyn OriginFn<JsValue>>, Error> {
        Ok(Rc::new(JsOrigin::new(weak_function(value, name)?, self.idle_signal.clone())))
    }

    pub fn read(&self, old: JsValue, new: JsValue, comparison: JsValue) -> Result<(), JsValue> {
        let old = self.origin(&old, "read: oldFn")?;
        let new = self.origin(&new, "read: newFn")?;
        let comparison: Option<Rc<dyn Comparison<JsValue>>> = if comparison.is_undefined() {
            None
        } else {
            Some(Rc::new(JsComparison(weak_function(&comparison, "read: comparison")?)))
        };
        self.inner.borrow_mut().read(ReadOrigins { old, new, comparison });
        Ok(())
    }

    /// `read(old, new, comparison)` where `comparison` is a function `sameStructure` (or
    /// `sameResponse`) returned and `native` its core: the migrator then runs the walk itself,
    /// calling no JavaScript function per check (trackers that call comparisons themselves
    /// still get `comparison`); `sameResponse`'s reads each Response first.
    #[wasm_bindgen(js_name = readSameStructure)]
    pub fn read_same_structure(
        &self,
        old: JsValue,
        new: JsValue,
        comparison: JsValue,
        native: &WasmSameStructure,
    ) -> Result<(), JsValue> {
        let old = self.origin(&old, "read: oldFn")?;
        let new = self.origin(&new, "read: newFn")?;
        let comparison = native.comparison(weak_function(&comparison, "read: comparison")?);
        self.inner.borrow_mut().read(ReadOrigins { old, new, comparison: Some(comparison) });
        Ok(())
    }

    pub fn write(&self, old: JsValue, new: JsValue) -> Result<(), JsValue> {
        let old = self.origin(&old, "write: oldFn")?;
        let new = self.origin(&new, "write: newFn")?;
        self.inner.borrow_mut().write(WriteOrigins { old, new });
        Ok(())
    }

    /// Throws a plain Error carrying the exact config message; the facade rethrows it as
    /// `MigratorConfigError`.
    pub fn build(&self) -> Result<WasmMigrator, JsValue> {
        let migrator = self.inner.borrow().build(self.client.clone(), self.host.clone())?;
        Ok(WasmMigrator::new(migrator))
    }
}
