//! `OpTracker` for JavaScript (arguments checked for their JavaScript type here, the rest by
//! the core), and the exported `migrationVariation`, which hands one out.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Object};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::client::{served_from, JsClient};
use super::event::event_object;
use super::flag_key::flag_key_text;
use super::host::{js_host, LoggerKeeper};
use super::intern::intern;
use super::promise::complete;
use super::stage::{default_stage as parse_default_stage, stage_arg};
use super::value::{got, set};
use crate::error::Error;
use crate::host::Host;
use crate::migration::client::migration_variation as evaluate;
use crate::migration::{OpTracker, Operation, Origin, Tracking};

#[wasm_bindgen]
pub struct WasmOpTracker {
    inner: RefCell<OpTracker<JsValue>>,
    host: Host,
}

impl WasmOpTracker {
    /// A tracker over a core one (what `migrationVariation` hands out).
    pub fn wrap(inner: OpTracker<JsValue>, host: Host) -> Self {
        WasmOpTracker { inner: RefCell::new(inner), host }
    }
}

fn origin_arg(value: &JsValue, method: &str) -> Result<Origin, Error> {
    value
        .as_string()
        .and_then(|s| Origin::parse(&s))
        .ok_or_else(|| Error::Type(format!("{method}: origin must be 'old' or 'new', {}", got(value))))
}

#[wasm_bindgen]
impl WasmOpTracker {
    #[wasm_bindgen(constructor)]
    pub fn new(
        flag_key: JsValue,
        context: JsValue,
        evaluation: JsValue,
        default_stage: JsValue,
    ) -> Result<WasmOpTracker, JsValue> {
        let flag_key = flag_key_text(&flag_key)?;
        if !evaluation.is_object() {
            return Err(Error::Type(format!("OpTracker: evaluation must be an object, {}", got(&evaluation))).into());
        }
        let default = stage_arg(&default_stage, "defaultStage")?;
        let value = stage_arg(&super::value::get(&evaluation, "value"), "evaluation.value")?;
        let evaluation = served_from(&evaluation).evaluation(value, default);
        Ok(WasmOpTracker {
            inner: RefCell::new(OpTracker::new(flag_key, context, evaluation)),
            host: js_host(&JsValue::UNDEFINED, LoggerKeeper::Host)?,
        })
    }

    pub fn operation(&self, op: JsValue) -> Result<(), JsValue> {
        let op = op
            .as_string()
            .and_then(|s| Operation::parse(&s))
            .ok_or_else(|| Error::Type(format!("operation: op must be 'read' or 'write', {}", got(&op))))?;
        self.inner.borrow_mut().operation(op);
        Ok(())
    }

    pub fn invoked(&self, origin: JsValue) -> Result<(), JsValue> {
        let origin = origin_arg(&origin, "invoked")?;
        self.inner.borrow_mut().invoked(origin);
        Ok(())
    }

    pub fn error(&self, origin: JsValue) -> Result<(), JsValue> {
        let origin = origin_arg(&origin, "error")?;
        self.inner.borrow_mut().error(origin);
        Ok(())
    }

    pub fn latency(&self, origin: JsValue, ms: JsValue) -> Result<(), JsValue> {
        let origin = origin_arg(&origin, "latency")?;
        let ms = ms.as_f64().ok_or_else(|| Error::Type(format!("latency: ms must be a number, {}", got(&ms))))?;
        Ok(self.inner.borrow_mut().latency(origin, ms)?)
    }

    /// Runs `check` when the checkRatio sampler picks it. The tracker is not borrowed while
    /// `check` runs, so it may call back into this tracker.
    pub fn consistent(&self, check: JsValue) -> Result<(), JsValue> {
        let check = check
            .dyn_into::<Function>()
            .map_err(|v| Error::Type(format!("consistent: check must be a function, {}", got(&v))))?;
        if !self.inner.borrow().samples_check(&self.host) {
            return Ok(());
        }
        let answer = check.call0(&JsValue::UNDEFINED).map(|v| v.is_truthy());
        self.inner.borrow_mut().record_check(&self.host, answer);
        Ok(())
    }

    pub fn build(&self) -> Result<JsValue, JsValue> {
        let event = self.inner.borrow().build(self.host.clock.epoch_ms());
        Ok(event_object(&event.map_err(Error::from)?))
    }
}

/// `migrationVariation(client, flagKey, context, defaultStage)` → `{stage, tracker}`, where the
/// tracker is a `WasmOpTracker` or the flag system's own tracker object.
/// Reports to `resolve`/`reject` (the facade's promise executor).
#[wasm_bindgen(js_name = migrationVariation)]
pub fn migration_variation(
    client: JsValue,
    flag_key: JsValue,
    context: JsValue,
    default_stage: JsValue,
    resolve: Function,
    reject: Function,
) {
    let setup = (|| {
        let client: Rc<JsClient> = Rc::new(JsClient::from_js(&client, "migrationVariation")?);
        let flag_key = flag_key_text(&flag_key)?;
        Ok::<_, JsValue>((client, flag_key, js_host(&JsValue::UNDEFINED, LoggerKeeper::Host)?))
    })();
    let default = parse_default_stage(&default_stage);
    complete(
        async move {
            let (client, flag_key, host) = setup?;
            let evaluated = evaluate(client, &host, &flag_key, context, &default).await;
            let (stage, tracking) = (evaluated.stage, evaluated.tracking);
            let tracker: JsValue = match tracking {
                Tracking::Own(inner) => WasmOpTracker::wrap(inner, host).into(),
                Tracking::External(t) => t.tracker().handle(),
            };
            let out = Object::new();
            set(&out, "stage", intern(stage.as_str()));
            set(&out, "tracker", &tracker);
            Ok(out.into())
        },
        resolve,
        reject,
    );
}
