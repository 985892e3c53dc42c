//! Unknown option names (the core's `options.rs`): an options object's own enumerable string
//! keys listed and handed to the core, whose refusal becomes a `TypeError`.

use wasm_bindgen::prelude::*;

use super::codes::OptionsOf;
use super::value::object_keys;
use crate::error::Error;
use crate::options::OptionsObject;

/// Refuses a key of `options` that `object` does not know. Only objects (and functions) have
/// keys to check; one whose keys cannot be listed (a proxy that refuses) is not checked.
pub fn check_names(object: OptionsObject, options: &JsValue) -> Result<(), JsValue> {
    if !options.is_object() && !options.is_function() {
        return Ok(());
    }
    let Ok(keys) = object_keys(options) else {
        return Ok(());
    };
    for key in keys.iter() {
        if let Some(key) = key.as_string() {
            object.check_key(&key).map_err(Error::from)?;
        }
    }
    Ok(())
}

fn object_of(code: OptionsOf) -> OptionsObject {
    match code {
        OptionsOf::BigSegmentStoreManager => OptionsObject::BigSegmentStoreManager,
        OptionsOf::MigratorBuilder => OptionsObject::MigratorBuilder,
        OptionsOf::MigratorRead => OptionsObject::MigratorRead,
        OptionsOf::MigratorWrite => OptionsObject::MigratorWrite,
        OptionsOf::LdMigrationRead => OptionsObject::LdMigrationRead,
        OptionsOf::LdMigrationWrite => OptionsObject::LdMigrationWrite,
        OptionsOf::CreateMigration => OptionsObject::CreateMigration,
        OptionsOf::LaunchDarklyBigSegmentStore => OptionsObject::LaunchDarklyBigSegmentStore,
        OptionsOf::OpenFeatureClient => OptionsObject::OpenFeatureClient,
        OptionsOf::MigratorBackground => OptionsObject::MigratorBackground,
        OptionsOf::MigratorMismatches => OptionsObject::MigratorMismatches,
        OptionsOf::MigratorGuard => OptionsObject::MigratorGuard,
        OptionsOf::SameStructure => OptionsObject::SameStructure,
        OptionsOf::SameResponse => OptionsObject::SameResponse,
        OptionsOf::BeaconSink => OptionsObject::BeaconSink,
        OptionsOf::MigrationEventRelay => OptionsObject::MigrationEventRelay,
        OptionsOf::LaunchDarklyBrowserClient => OptionsObject::LaunchDarklyBrowserClient,
        OptionsOf::MigrationConsole => OptionsObject::MigrationConsole,
        OptionsOf::RedisFleet => OptionsObject::RedisFleet,
    }
}

/// `checkOptionNames(OptionsOf.…, options)`: throws the core's `TypeError` for the first key of
/// `options` its object does not know. The facade calls it where it first reads the object.
#[wasm_bindgen(js_name = checkOptionNames)]
pub fn check_option_names(of: u32, options: &JsValue) -> Result<(), JsValue> {
    match OptionsOf::from_code(of) {
        Some(code) => check_names(object_of(code), options),
        None => Err(Error::Type("checkOptionNames: not an OptionsOf code".into()).into()),
    }
}
