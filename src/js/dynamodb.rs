//! `dynamoDbBigSegmentStore` for JavaScript: a host object with `getItem(input)` (DynamoDB's own
//! GetItem shapes; `awsDynamoDbHost` in js/dynamodb.js adapts the AWS SDK) as a core
//! `DynamoDbHost`, and the core DynamoDB store exposed as a JavaScript store object.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::{Function, Object, Promise};
use wasm_bindgen::prelude::*;

use super::promise::awaited as settle;
use super::value::{array_items, get, got, is_array, method, range_error, set, string_arg, type_error};
use crate::segments::dynamodb::{
    AttributeValue, DynamoDbHost, DynamoDbStore, DynamoDbStoreError, GetItemRequest, Item, PARTITION_KEY, SORT_KEY,
};

/// `{ getItem(input) }`: `input` and the answer in DynamoDB's GetItem shapes.
pub struct JsDynamoDbHost {
    target: JsValue,
    get_item: Function,
}

impl JsDynamoDbHost {
    fn from_js(host: &JsValue) -> Result<Self, JsValue> {
        let get_item = method(host, "getItem").ok_or_else(|| {
            type_error(&format!(
                "dynamoDbBigSegmentStore: host must be an object with a getItem method (e.g. awsDynamoDbHost(client, GetItemCommand)), {}",
                got(host)
            ))
        })?;
        Ok(JsDynamoDbHost { target: host.clone(), get_item })
    }
}

fn string_attribute(text: &str) -> JsValue {
    let o = Object::new();
    set(&o, "S", &JsValue::from_str(text));
    o.into()
}

/// `{ TableName, Key: { namespace: { S }, key: { S } }, ConsistentRead }`.
fn input_of(request: &GetItemRequest) -> JsValue {
    let key = Object::new();
    set(&key, PARTITION_KEY, &string_attribute(&request.namespace));
    set(&key, SORT_KEY, &string_attribute(&request.key));
    let input = Object::new();
    set(&input, "TableName", &JsValue::from_str(&request.table_name));
    set(&input, "Key", &key.into());
    set(&input, "ConsistentRead", &JsValue::from_bool(request.consistent_read));
    input.into()
}

/// The attribute types the schema does not use, named in error messages.
const OTHER_TYPES: [&str; 7] = ["B", "BOOL", "NULL", "NS", "BS", "L", "M"];

/// A JavaScript attribute value (`{ S }`, `{ N }`, `{ SS }`, …) as the core's.
fn attribute_of(value: &JsValue) -> AttributeValue {
    if !value.is_object() {
        return AttributeValue::Other(format!("not an attribute value ({})", got(value)));
    }
    if let Some(s) = get(value, "S").as_string() {
        return AttributeValue::S(s);
    }
    if let Some(n) = get(value, "N").as_string() {
        return AttributeValue::N(n);
    }
    let ss = get(value, "SS");
    if is_array(&ss) {
        let members: Option<Vec<String>> =
            array_items(&ss).and_then(|items| items.iter().map(|v| v.as_string()).collect());
        return match members {
            Some(members) => AttributeValue::Ss(members),
            None => AttributeValue::Other("a string set (SS) with a member that is not a string".into()),
        };
    }
    match OTHER_TYPES.iter().find(|tag| !get(value, tag).is_undefined()) {
        Some(tag) => AttributeValue::Other(format!("a {tag} attribute")),
        None => AttributeValue::Other("an attribute value of no known type".into()),
    }
}

/// The answer's `Item` (none when missing), reduced to the requested attributes.
fn item_of(answer: &JsValue, attributes: &'static [&'static str]) -> Result<Item, JsValue> {
    if !answer.is_object() {
        return Err(type_error(&format!("DynamoDB getItem did not answer an object, {}", got(answer))));
    }
    let item = get(answer, "Item");
    if item.is_undefined() || item.is_null() {
        return Ok(None);
    }
    if !item.is_object() {
        return Err(type_error(&format!("DynamoDB getItem answered an Item that is not an object, {}", got(&item))));
    }
    let read = attributes.iter().filter_map(|name| {
        let value = get(&item, name);
        (!value.is_undefined()).then(|| (*name, attribute_of(&value)))
    });
    Ok(Some(read.collect()))
}

impl DynamoDbHost for JsDynamoDbHost {
    type Error = JsValue;

    fn get_item(&self, request: GetItemRequest) -> LocalBoxFuture<'static, Result<Item, JsValue>> {
        let attributes = request.attributes;
        let called = match self.get_item.call1(&self.target, &input_of(&request)) {
            Ok(v) => settle(v),
            Err(e) => futures::future::ready(Err(e)).boxed_local(),
        };
        called.map(move |r| item_of(&r?, attributes)).boxed_local()
    }
}

fn store_error(e: DynamoDbStoreError<JsValue>) -> JsValue {
    match e {
        DynamoDbStoreError::Host(e) => e,
        DynamoDbStoreError::Schema(m) => js_sys::Error::new(&m).into(),
    }
}

pub type Store = Rc<DynamoDbStore<JsDynamoDbHost>>;

#[wasm_bindgen]
pub struct WasmDynamoDbStore {
    inner: Store,
}

thread_local! {
    /// A DynamoDB store offered to the next manager with the store object made for it.
    static OFFERED: std::cell::RefCell<Option<(Store, JsValue)>> = const { std::cell::RefCell::new(None) };
}

/// Offers the next `BigSegmentStoreManager` the DynamoDB store behind `facade` (the frozen
/// store object `dynamoDbBigSegmentStore` returned), as `offerRedisStore` does for Redis.
#[wasm_bindgen(js_name = offerDynamoDbStore)]
pub fn offer_dynamodb_store(store: &WasmDynamoDbStore, facade: JsValue) {
    OFFERED.with(|o| *o.borrow_mut() = Some((store.inner.clone(), facade)));
}

/// The offered DynamoDB store, if `store` is the object it was offered with (the offer is
/// taken either way).
pub fn take_offered(store: &JsValue) -> Option<Store> {
    let (dynamo, facade) = OFFERED.with(|o| o.borrow_mut().take())?;
    js_sys::Object::is(store, &facade).then_some(dynamo)
}

/// A membership query on the Rust store, as the entries it found.
pub fn membership_entries(
    store: &Store,
    context_hash: &str,
) -> LocalBoxFuture<'static, Result<Option<crate::segments::redis::MembershipEntries>, JsValue>> {
    store.membership(context_hash).map(|r| r.map_err(store_error)).boxed_local()
}

/// A metadata query on the Rust store.
pub fn metadata(store: &Store) -> LocalBoxFuture<'static, Result<Option<crate::segments::StoreMetadata>, JsValue>> {
    store.metadata().map(|r| r.map_err(store_error)).boxed_local()
}

/// DynamoDB's rule for table names: 3 to 255 of `a-z A-Z 0-9 _ - .`.
fn valid_table_name(name: &str) -> bool {
    (3..=255).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
}

fn options_of(options: &JsValue) -> Result<(String, Option<String>), JsValue> {
    if !options.is_object() {
        return Err(type_error(&format!(
            "dynamoDbBigSegmentStore: options must be an object with a tableName, {}",
            got(options)
        )));
    }
    let table = get(options, "tableName");
    let table = table.as_string().ok_or_else(|| {
        type_error(&format!("dynamoDbBigSegmentStore: options.tableName must be a string, {}", got(&table)))
    })?;
    if !valid_table_name(&table) {
        return Err(range_error(&format!(
            "dynamoDbBigSegmentStore: options.tableName must be 3 to 255 letters, digits, '_', '-' or '.', got {}",
            crate::util::text::quoted(&table)
        )));
    }
    let p = get(options, "prefix");
    let prefix = if p.is_undefined() || p.is_null() {
        None
    } else {
        Some(p.as_string().ok_or_else(|| {
            type_error(&format!("dynamoDbBigSegmentStore: options.prefix must be a string, {}", got(&p)))
        })?)
    };
    Ok((table, prefix))
}

#[wasm_bindgen]
impl WasmDynamoDbStore {
    #[wasm_bindgen(constructor)]
    pub fn new(host: JsValue, options: JsValue) -> Result<WasmDynamoDbStore, JsValue> {
        let host = JsDynamoDbHost::from_js(&host)?;
        let (table, prefix) = options_of(&options)?;
        Ok(WasmDynamoDbStore { inner: Rc::new(DynamoDbStore::new(host, &table, prefix.as_deref())) })
    }

    #[wasm_bindgen(js_name = getMetadata)]
    pub fn get_metadata(&self) -> Promise {
        super::store_answer::metadata_promise(metadata(&self.inner))
    }

    /// Reads the membership of `context_hash` and reports to `resolve`/`reject` (the facade's
    /// promise executor).
    #[wasm_bindgen(js_name = getMembership)]
    pub fn get_membership(&self, context_hash: JsValue, resolve: Function, reject: Function) {
        let query = string_arg(&context_hash, "contextHash").map(|hash| membership_entries(&self.inner, &hash));
        super::store_answer::complete_membership(query, resolve, reject);
    }
}
