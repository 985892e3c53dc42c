//! `dynamoDbBigSegmentStore` for JavaScript: a host object with `getItem(input)` (DynamoDB's own
//! GetItem shapes; `awsDynamoDbHost` in js/dynamodb.js adapts the AWS SDK) as the core's
//! `DynamoDbHost`, and the store's options.

use futures::future::LocalBoxFuture;
use js_sys::{Function, Object};
use wasm_bindgen::prelude::*;

use super::host_data::call_host;
use super::options::check_names;
use super::store_options::prefix_option;
use super::value::{get, got, method, set, type_error};
use crate::options::OptionsObject;
use crate::segments::dynamodb::{DynamoDbHost, DynamoDbStore, GetItemRequest, PARTITION_KEY, SORT_KEY};
use crate::segments::host_data::{HostData, Select};

const NAME: &str = "dynamoDbBigSegmentStore";

/// `{ getItem(input) }`: `input` and the answer in DynamoDB's GetItem shapes.
pub struct JsDynamoDbHost {
    target: JsValue,
    get_item: Function,
}

fn string_attribute(text: &str) -> JsValue {
    let o = Object::new();
    set(&o, "S", &JsValue::from_str(text));
    o.into()
}

/// `{ TableName, Key: { namespace: { S }, key: { S } }, ConsistentRead: true }`.
fn input_of(request: &GetItemRequest) -> JsValue {
    let key = Object::new();
    set(&key, PARTITION_KEY, &string_attribute(&request.namespace));
    set(&key, SORT_KEY, &string_attribute(&request.key));
    let input = Object::new();
    set(&input, "TableName", &JsValue::from_str(&request.table_name));
    set(&input, "Key", &key.into());
    set(&input, "ConsistentRead", &JsValue::TRUE);
    input.into()
}

impl DynamoDbHost for JsDynamoDbHost {
    type Error = JsValue;

    fn get_item(&self, request: GetItemRequest, reads: Select) -> LocalBoxFuture<'static, Result<HostData, JsValue>> {
        call_host(&self.get_item, &self.target, &input_of(&request), reads)
    }
}

/// The store over `host`; `options` is `{ tableName, prefix? }`.
pub fn store(host: &JsValue, options: &JsValue) -> Result<DynamoDbStore<JsDynamoDbHost>, JsValue> {
    let get_item = method(host, "getItem").ok_or_else(|| {
        type_error(&format!(
            "{NAME}: host must be an object with a getItem method (e.g. awsDynamoDbHost(client, GetItemCommand)), {}",
            got(host)
        ))
    })?;
    if !options.is_object() {
        return Err(type_error(&format!("{NAME}: options must be an object with a tableName, {}", got(options))));
    }
    check_names(OptionsObject::DynamoDbBigSegmentStore, options)?;
    let table = get(options, "tableName");
    let table = table
        .as_string()
        .ok_or_else(|| type_error(&format!("{NAME}: options.tableName must be a string, {}", got(&table))))?;
    let prefix = prefix_option(options, NAME)?;
    let host = JsDynamoDbHost { target: host.clone(), get_item };
    Ok(DynamoDbStore::new(host, &table, prefix.as_deref())?)
}
