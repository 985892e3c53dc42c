//! A Big Segment store over DynamoDB as LaunchDarkly's Relay Proxy writes it, reached through a
//! [`DynamoDbHost`]: whatever can send a `GetItem` (a JavaScript client in the bindings, a fake
//! in tests). One `GetItem` per membership query, one per metadata read.
//!
//! Schema (LaunchDarkly's DynamoDB integrations), in a table with partition key `namespace` and
//! sort key `key` (both strings); `P:` is `prefix:` when a prefix is set, else nothing:
//! - metadata: the item `namespace = key = P:big_segments_metadata`, its number attribute
//!   `synchronizedOn` the epoch ms of the last sync (missing: never synchronized).
//! - per context: the item `namespace = P:big_segments_user`, `key = <context hash>`, with the
//!   string sets `included` and `excluded` of segment refs (either may be missing); include wins.

use std::fmt;

use futures::future::LocalBoxFuture;

use super::store::StoreMetadata;
use crate::host::HostValue;
use crate::segments::redis::{membership_of, MembershipEntries};

pub const PARTITION_KEY: &str = "namespace";
pub const SORT_KEY: &str = "key";
const METADATA: &str = "big_segments_metadata";
const USER_DATA: &str = "big_segments_user";
pub const ATTR_SYNCHRONIZED_ON: &str = "synchronizedOn";
pub const ATTR_INCLUDED: &str = "included";
pub const ATTR_EXCLUDED: &str = "excluded";

/// A DynamoDB attribute value, as much as the schema needs.
#[derive(Clone, Debug, PartialEq)]
pub enum AttributeValue {
    /// `{ S }`
    S(String),
    /// `{ N }`: DynamoDB sends numbers as decimal strings.
    N(String),
    /// `{ SS }`
    Ss(Vec<String>),
    /// Anything else (described for error messages, e.g. `a BOOL attribute`).
    Other(String),
}

impl AttributeValue {
    fn describe(&self) -> String {
        match self {
            AttributeValue::S(s) => format!("a string (S) {}", crate::util::text::quoted(s)),
            AttributeValue::N(n) => format!("a number (N) {n}"),
            AttributeValue::Ss(items) => format!("a string set (SS) of {}", items.len()),
            AttributeValue::Other(o) => o.clone(),
        }
    }
}

/// One `GetItem`: `{ TableName, Key: { namespace: { S }, key: { S } }, ConsistentRead }`, and
/// the attributes the store reads from the answer's `Item`.
#[derive(Clone, Debug, PartialEq)]
pub struct GetItemRequest {
    pub table_name: String,
    pub namespace: String,
    pub key: String,
    pub consistent_read: bool,
    pub attributes: &'static [&'static str],
}

/// What `GetItem` answered: `None` when there is no such item, else the requested attributes
/// the item has (`(name, value)`, in any order).
pub type Item = Option<Vec<(&'static str, AttributeValue)>>;

/// Sends `GetItem` to DynamoDB.
pub trait DynamoDbHost {
    type Error: HostValue;
    fn get_item(&self, request: GetItemRequest) -> LocalBoxFuture<'static, Result<Item, Self::Error>>;
}

/// A failed store query: the host's error, or an item that breaks the schema.
#[derive(Clone, Debug, PartialEq)]
pub enum DynamoDbStoreError<E> {
    Host(E),
    Schema(String),
}

impl<E: HostValue> fmt::Display for DynamoDbStoreError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DynamoDbStoreError::Host(e) => f.write_str(&e.describe()),
            DynamoDbStoreError::Schema(m) => f.write_str(m),
        }
    }
}

pub struct DynamoDbStore<H> {
    host: H,
    table_name: String,
    metadata_key: String,
    user_namespace: String,
}

fn attribute(item: &[(&'static str, AttributeValue)], name: &str) -> Option<AttributeValue> {
    item.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone())
}

/// `synchronizedOn` of the metadata item: missing → never synchronized; else an integer number.
pub fn parse_synchronized_on(item: &[(&'static str, AttributeValue)]) -> Result<Option<f64>, String> {
    match attribute(item, ATTR_SYNCHRONIZED_ON) {
        None => Ok(None),
        Some(AttributeValue::N(n)) => n
            .trim()
            .parse::<i64>()
            .map(|ms| Some(ms as f64))
            .map_err(|_| format!("DynamoDB: synchronizedOn of the metadata item is not an integer: {n}")),
        Some(other) => {
            Err(format!("DynamoDB: synchronizedOn of the metadata item is not a number (N): {}", other.describe()))
        }
    }
}

/// The refs of a string-set attribute; a missing attribute is an empty set. The context's hash
/// is left out of errors, because errors are logged.
fn string_set(item: &[(&'static str, AttributeValue)], name: &str) -> Result<Vec<String>, String> {
    match attribute(item, name) {
        None => Ok(Vec::new()),
        Some(AttributeValue::Ss(refs)) => Ok(refs),
        Some(other) => {
            Err(format!("DynamoDB: {name} of a big_segments_user item is not a string set (SS): {}", other.describe()))
        }
    }
}

impl<H: DynamoDbHost> DynamoDbStore<H> {
    /// `prefix`: `None` or empty → no prefix.
    pub fn new(host: H, table_name: &str, prefix: Option<&str>) -> Self {
        let prefixed = |base: &str| match prefix.filter(|p| !p.is_empty()) {
            Some(p) => format!("{p}:{base}"),
            None => base.to_string(),
        };
        DynamoDbStore {
            host,
            table_name: table_name.to_string(),
            metadata_key: prefixed(METADATA),
            user_namespace: prefixed(USER_DATA),
        }
    }

    fn request(&self, namespace: String, key: String, attributes: &'static [&'static str]) -> GetItemRequest {
        GetItemRequest { table_name: self.table_name.clone(), namespace, key, consistent_read: true, attributes }
    }

    /// A missing metadata item, or one without `synchronizedOn`, means never synchronized.
    pub fn metadata(&self) -> LocalBoxFuture<'static, Result<Option<StoreMetadata>, DynamoDbStoreError<H::Error>>> {
        let request = self.request(self.metadata_key.clone(), self.metadata_key.clone(), &[ATTR_SYNCHRONIZED_ON]);
        let reply = self.host.get_item(request);
        Box::pin(async move {
            let item = reply.await.map_err(DynamoDbStoreError::Host)?;
            let last = match item {
                None => None,
                Some(item) => parse_synchronized_on(&item).map_err(DynamoDbStoreError::Schema)?,
            };
            Ok(Some(StoreMetadata { last_up_to_date: last }))
        })
    }

    /// A missing item is no data (`None`); an item with neither set is the empty membership.
    pub fn membership(
        &self,
        context_hash: &str,
    ) -> LocalBoxFuture<'static, Result<Option<MembershipEntries>, DynamoDbStoreError<H::Error>>> {
        let request =
            self.request(self.user_namespace.clone(), context_hash.to_string(), &[ATTR_INCLUDED, ATTR_EXCLUDED]);
        let reply = self.host.get_item(request);
        Box::pin(async move {
            let Some(item) = reply.await.map_err(DynamoDbStoreError::Host)? else {
                return Ok(None);
            };
            let included = string_set(&item, ATTR_INCLUDED).map_err(DynamoDbStoreError::Schema)?;
            let excluded = string_set(&item, ATTR_EXCLUDED).map_err(DynamoDbStoreError::Schema)?;
            // Include wins, as in Redis; an item with neither set is the empty membership.
            Ok(Some(membership_of(included, excluded).unwrap_or_default()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{TestHost, TestValue};
    use futures::FutureExt;
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::rc::Rc;

    /// An in-memory table keyed by (namespace, key) that logs every request.
    #[derive(Default)]
    struct FakeTable {
        items: HashMap<(String, String), Vec<(&'static str, AttributeValue)>>,
        requests: RefCell<Vec<GetItemRequest>>,
        fail: Option<String>,
    }

    struct Host(Rc<FakeTable>);

    impl DynamoDbHost for Host {
        type Error = TestValue;
        fn get_item(&self, request: GetItemRequest) -> LocalBoxFuture<'static, Result<Item, TestValue>> {
            let item =
                self.0.items.get(&(request.namespace.clone(), request.key.clone())).map(|attrs| {
                    attrs.iter().filter(|(n, _)| request.attributes.contains(n)).cloned().collect::<Vec<_>>()
                });
            self.0.requests.borrow_mut().push(request);
            let r = match &self.0.fail {
                Some(e) => Err(TestValue::Text(e.clone())),
                None => Ok(item),
            };
            async move { r }.boxed_local()
        }
    }

    fn store(table: FakeTable, prefix: Option<&str>) -> (DynamoDbStore<Host>, Rc<FakeTable>) {
        let table = Rc::new(table);
        (DynamoDbStore::new(Host(table.clone()), "bigsegs", prefix), table)
    }

    fn ss(refs: &[&str]) -> AttributeValue {
        AttributeValue::Ss(refs.iter().map(|s| s.to_string()).collect())
    }

    fn user_item(ns: &str, hash: &str, attrs: Vec<(&'static str, AttributeValue)>) -> FakeTable {
        let mut t = FakeTable::default();
        t.items.insert((ns.into(), hash.into()), attrs);
        t
    }

    #[test]
    fn include_wins_and_excluded_map_to_false_in_one_get_item() {
        let t = TestHost::new(1);
        let table = user_item(
            "big_segments_user",
            "h",
            vec![(ATTR_INCLUDED, ss(&["a.g1", "both.g2"])), (ATTR_EXCLUDED, ss(&["b.g1", "both.g2"]))],
        );
        let (s, table) = store(table, None);
        assert_eq!(
            t.run(s.membership("h")),
            Ok(Some(vec![("a.g1".into(), true), ("b.g1".into(), false), ("both.g2".into(), true)]))
        );
        let requests = table.requests.borrow();
        assert_eq!(requests.len(), 1);
        assert_eq!(
            requests.first(),
            Some(&GetItemRequest {
                table_name: "bigsegs".into(),
                namespace: "big_segments_user".into(),
                key: "h".into(),
                consistent_read: true,
                attributes: &[ATTR_INCLUDED, ATTR_EXCLUDED],
            })
        );
    }

    #[test]
    fn missing_item_is_no_data_and_an_item_without_sets_is_empty() {
        let t = TestHost::new(1);
        let (s, _) = store(user_item("big_segments_user", "h", vec![]), None);
        assert_eq!(t.run(s.membership("nobody")), Ok(None));
        assert_eq!(t.run(s.membership("h")), Ok(Some(vec![])));
    }

    #[test]
    fn prefix_goes_on_namespaces_only_and_on_both_metadata_keys() {
        let t = TestHost::new(1);
        for (prefix, ns) in
            [(None, "big_segments_user"), (Some(""), "big_segments_user"), (Some("p"), "p:big_segments_user")]
        {
            let (s, table) = store(user_item(ns, "h", vec![(ATTR_INCLUDED, ss(&["x.g1"]))]), prefix);
            assert_eq!(t.run(s.membership("h")), Ok(Some(vec![("x.g1".into(), true)])), "{prefix:?}");
            let _ = t.run(s.metadata());
            let requests = table.requests.borrow();
            let keys: Vec<_> = requests.iter().map(|r| (r.namespace.as_str(), r.key.as_str())).collect();
            let meta = ns.replace("big_segments_user", "big_segments_metadata");
            assert_eq!(keys, [(ns, "h"), (meta.as_str(), meta.as_str())]);
        }
    }

    #[test]
    fn metadata_parsing() {
        let t = TestHost::new(1);
        let meta = |attrs: Option<Vec<(&'static str, AttributeValue)>>| {
            let mut table = FakeTable::default();
            if let Some(attrs) = attrs {
                table.items.insert((METADATA.into(), METADATA.into()), attrs);
            }
            let (s, _) = store(table, None);
            t.run(s.metadata()).map(|m| m.and_then(|m| m.last_up_to_date))
        };
        assert_eq!(meta(None), Ok(None), "no item: never synchronized");
        assert_eq!(meta(Some(vec![])), Ok(None), "no attribute: never synchronized");
        let n = |v: &str| Some(vec![(ATTR_SYNCHRONIZED_ON, AttributeValue::N(v.into()))]);
        assert_eq!(meta(n("1700000000000")), Ok(Some(1_700_000_000_000.0)));
        assert!(matches!(meta(n("12.5")), Err(DynamoDbStoreError::Schema(m)) if m.contains("not an integer")));
        let s = Some(vec![(ATTR_SYNCHRONIZED_ON, AttributeValue::S("1700000000000".into()))]);
        assert!(matches!(meta(s), Err(DynamoDbStoreError::Schema(m)) if m.contains("not a number (N)")));
    }

    #[test]
    fn wrong_attribute_types_and_host_errors_are_errors() {
        let t = TestHost::new(1);
        for bad in [AttributeValue::S("a.g1".into()), AttributeValue::Other("a BOOL attribute".into())] {
            let (s, _) = store(user_item("big_segments_user", "h", vec![(ATTR_EXCLUDED, bad)]), None);
            let got = t.run(s.membership("h"));
            assert!(
                matches!(&got, Err(DynamoDbStoreError::Schema(m)) if m.contains("excluded") && !m.contains(" h")),
                "{got:?}"
            );
        }
        let table = FakeTable { fail: Some("ProvisionedThroughputExceededException".into()), ..Default::default() };
        let (s, _) = store(table, None);
        assert_eq!(
            t.run(s.membership("h")),
            Err(DynamoDbStoreError::Host(TestValue::Text("ProvisionedThroughputExceededException".into())))
        );
    }
}
