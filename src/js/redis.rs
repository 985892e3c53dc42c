//! `redisBigSegmentStore` for JavaScript: a Redis host (any client, or a bare command function)
//! as the core's `RedisHost`, and the store's options.

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::host_data::call_host;
use super::options::check_names;
use super::store_options::prefix_option;
use super::value::{got, method, type_error};
use crate::options::OptionsObject;
use crate::segments::host_data::Select;
use crate::segments::redis::{RedisHost, RedisStore, Reply};

const NAME: &str = "redisBigSegmentStore";

/// `{ command(args), pipeline?(commands) }`, or a bare command function.
pub struct JsRedisHost {
    target: JsValue,
    command: Function,
    pipeline: Option<Function>,
}

impl JsRedisHost {
    fn from_js(host: &JsValue) -> Result<Self, JsValue> {
        if let Some(f) = host.dyn_ref::<Function>() {
            return Ok(JsRedisHost { target: JsValue::UNDEFINED, command: f.clone(), pipeline: None });
        }
        let command = method(host, "command").ok_or_else(|| {
            type_error(&format!(
                "{NAME}: host must be a function (args) => Promise or an object with a command method, {}",
                got(host)
            ))
        })?;
        Ok(JsRedisHost { target: host.clone(), command, pipeline: method(host, "pipeline") })
    }
}

fn strings(args: &[String]) -> Array {
    args.iter().map(|a| JsValue::from_str(a)).collect()
}

impl RedisHost for JsRedisHost {
    type Error = JsValue;

    fn command(&self, args: Vec<String>) -> Reply<JsValue> {
        call_host(&self.command, &self.target, &strings(&args), Select::All)
    }

    fn pipeline(&self, commands: Vec<Vec<String>>) -> Option<Reply<JsValue>> {
        let commands: Array = commands.iter().map(|c| JsValue::from(strings(c))).collect();
        Some(call_host(self.pipeline.as_ref()?, &self.target, &commands, Select::All))
    }
}

/// The store over `host`; `options` is undefined, null or `{ prefix? }`.
pub fn store(host: &JsValue, options: &JsValue) -> Result<RedisStore<JsRedisHost>, JsValue> {
    let host = JsRedisHost::from_js(host)?;
    let prefix = if options.is_undefined() || options.is_null() {
        None
    } else if options.is_object() {
        check_names(OptionsObject::RedisBigSegmentStore, options)?;
        prefix_option(options, NAME)?
    } else {
        return Err(type_error(&format!("{NAME}: options must be an object, {}", got(options))));
    };
    Ok(RedisStore::new(host, prefix.as_deref()))
}
