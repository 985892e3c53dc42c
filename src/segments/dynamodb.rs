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
//!
//! The host answers `GetItem`'s output as DynamoDB shapes it (`{ Item: { name: { SS: […] } } }`);
//! anything else in it, where the store reads, is a malformed answer.

use futures::future::LocalBoxFuture;
use futures::FutureExt;

use super::host_data::{HostData, Select};
use super::schema_store::{membership_of, Answer, MembershipEntries, SchemaStore, StoreError};
use super::store::StoreMetadata;
use crate::host::HostValue;

pub const PARTITION_KEY: &str = "namespace";
pub const SORT_KEY: &str = "key";
const METADATA: &str = "big_segments_metadata";
const USER_DATA: &str = "big_segments_user";
const ATTR_SYNCHRONIZED_ON: &str = "synchronizedOn";
const ATTR_INCLUDED: &str = "included";
const ATTR_EXCLUDED: &str = "excluded";
/// DynamoDB's attribute types, named in error messages (any other key is not).
const TYPES: [&str; 10] = ["S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL"];

/// One consistent `GetItem`: `{ TableName, Key: { namespace: { S }, key: { S } }, ConsistentRead }`.
#[derive(Clone, Debug, PartialEq)]
pub struct GetItemRequest {
    pub table_name: String,
    pub namespace: String,
    pub key: String,
}

/// What a query reads of `GetItem`'s output: the item's attributes named, each in full.
const METADATA_READS: Select = Select::Fields(&[("Item", Select::Fields(&[(ATTR_SYNCHRONIZED_ON, Select::All)]))]);
const MEMBERSHIP_READS: Select =
    Select::Fields(&[("Item", Select::Fields(&[(ATTR_INCLUDED, Select::All), (ATTR_EXCLUDED, Select::All)]))]);

/// Sends `GetItem` to DynamoDB and answers its output, of which the store reads `reads`.
pub trait DynamoDbHost {
    type Error: HostValue;
    fn get_item(
        &self,
        request: GetItemRequest,
        reads: Select,
    ) -> LocalBoxFuture<'static, Result<HostData, Self::Error>>;
}

/// An attribute value the schema reads.
#[derive(Clone, Debug, PartialEq)]
enum AttributeValue {
    S(String),
    /// DynamoDB sends numbers as decimal strings.
    N(String),
    Ss(Vec<String>),
    /// Anything else, described for error messages (`a BOOL attribute`).
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

/// An attribute value: a map of exactly one DynamoDB type to its value (keys whose value is
/// absent do not count).
fn attribute(value: &HostData) -> AttributeValue {
    let HostData::Map(entries) = value else {
        return AttributeValue::Other(format!("not an attribute value: {}", value.describe()));
    };
    let mut present = entries.iter().filter(|(_, v)| *v != HostData::Absent);
    let (tag, inner) = match (present.next(), present.next()) {
        (Some((tag, inner)), None) if TYPES.contains(&tag.as_str()) => (tag.as_str(), inner),
        (Some(_), Some(_)) => return AttributeValue::Other("an attribute value of more than one type".into()),
        _ => return AttributeValue::Other("an attribute value of no known type".into()),
    };
    match (tag, inner) {
        ("S", HostData::Text(t)) => AttributeValue::S(t.clone()),
        ("N", HostData::Text(t)) => AttributeValue::N(t.clone()),
        ("S" | "N", v) => {
            AttributeValue::Other(format!("a {tag} attribute whose value is not a string: {}", v.describe()))
        }
        ("SS", HostData::List(items)) => {
            let members = items.iter().map(|v| match v {
                HostData::Text(t) => Ok(t.clone()),
                other => Err(other),
            });
            match members.collect::<Result<Vec<_>, _>>() {
                Ok(refs) => AttributeValue::Ss(refs),
                Err(bad) => AttributeValue::Other(format!(
                    "a string set (SS) with a member that is not a string: {}",
                    bad.describe()
                )),
            }
        }
        ("SS", v) => AttributeValue::Other(format!("a SS attribute whose value is not a list: {}", v.describe())),
        (tag, _) => AttributeValue::Other(format!("a {tag} attribute")),
    }
}

/// The output's `Item`: `None` when there is none.
fn item(output: &HostData) -> Result<Option<&HostData>, String> {
    if !matches!(output, HostData::Map(_)) {
        return Err(format!("DynamoDB: GetItem did not answer an object: {}", output.describe()));
    }
    match output.field("Item") {
        item if item.is_nil() => Ok(None),
        item @ HostData::Map(_) => Ok(Some(item)),
        other => Err(format!("DynamoDB: GetItem answered an Item that is not a map: {}", other.describe())),
    }
}

/// `synchronizedOn` of the metadata item: missing → never synchronized; else an integer number.
fn parse_synchronized_on(item: &HostData) -> Result<Option<f64>, String> {
    match item.field(ATTR_SYNCHRONIZED_ON) {
        HostData::Absent => Ok(None),
        value => match attribute(value) {
            AttributeValue::N(n) => n
                .trim()
                .parse::<i64>()
                .map(|ms| Some(ms as f64))
                .map_err(|_| format!("DynamoDB: synchronizedOn of the metadata item is not an integer: {n}")),
            other => {
                Err(format!("DynamoDB: synchronizedOn of the metadata item is not a number (N): {}", other.describe()))
            }
        },
    }
}

/// The refs of a string-set attribute; a missing attribute is an empty set. The context's hash
/// is left out of errors, because errors are logged.
fn string_set(item: &HostData, name: &str) -> Result<Vec<String>, String> {
    match item.field(name) {
        HostData::Absent => Ok(Vec::new()),
        value => match attribute(value) {
            AttributeValue::Ss(refs) => Ok(refs),
            other => Err(format!(
                "DynamoDB: {name} of a big_segments_user item is not a string set (SS): {}",
                other.describe()
            )),
        },
    }
}

/// DynamoDB's rule for table names: 3 to 255 of `a-z A-Z 0-9 _ - .`.
pub fn check_table_name(name: &str) -> Result<(), crate::error::Error> {
    if (3..=255).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b)) {
        return Ok(());
    }
    Err(crate::error::Error::Range(format!(
        "dynamoDbBigSegmentStore: options.tableName must be 3 to 255 letters, digits, '_', '-' or '.', got {}",
        crate::util::text::quoted(name)
    )))
}

pub struct DynamoDbStore<H> {
    host: H,
    table_name: String,
    metadata_key: String,
    user_namespace: String,
}

impl<H: DynamoDbHost> DynamoDbStore<H> {
    /// `prefix`: `None` or empty → no prefix. The table name must be one DynamoDB allows.
    pub fn new(host: H, table_name: &str, prefix: Option<&str>) -> Result<Self, crate::error::Error> {
        check_table_name(table_name)?;
        let prefixed = |base: &str| match prefix.filter(|p| !p.is_empty()) {
            Some(p) => format!("{p}:{base}"),
            None => base.to_string(),
        };
        Ok(DynamoDbStore {
            host,
            table_name: table_name.to_string(),
            metadata_key: prefixed(METADATA),
            user_namespace: prefixed(USER_DATA),
        })
    }

    /// The item at `namespace`/`key`, read by `read` (`None` when there is no such item).
    fn read_item<T: 'static>(
        &self,
        namespace: String,
        key: String,
        reads: Select,
        read: impl FnOnce(Option<&HostData>) -> Result<T, String> + 'static,
    ) -> Answer<T, H::Error> {
        let request = GetItemRequest { table_name: self.table_name.clone(), namespace, key };
        let output = self.host.get_item(request, reads);
        output
            .map(|output| {
                let output = output.map_err(StoreError::Host)?;
                item(&output).and_then(read).map_err(StoreError::Malformed)
            })
            .boxed_local()
    }
}

impl<H: DynamoDbHost> SchemaStore for DynamoDbStore<H> {
    type HostError = H::Error;

    /// A missing metadata item, or one without `synchronizedOn`, means never synchronized.
    fn metadata(&self) -> Answer<StoreMetadata, H::Error> {
        self.read_item(self.metadata_key.clone(), self.metadata_key.clone(), METADATA_READS, |item| {
            let last = item.map(parse_synchronized_on).transpose()?.flatten();
            Ok(StoreMetadata { last_up_to_date: last })
        })
    }

    /// A missing item is no data (`None`); an item with neither set is the empty membership.
    fn membership(&self, context_hash: &str) -> Answer<Option<MembershipEntries>, H::Error> {
        self.read_item(self.user_namespace.clone(), context_hash.to_string(), MEMBERSHIP_READS, |item| {
            let Some(item) = item else { return Ok(None) };
            let included = string_set(item, ATTR_INCLUDED)?;
            let excluded = string_set(item, ATTR_EXCLUDED)?;
            Ok(Some(membership_of(included, excluded).unwrap_or_default()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{TestHost, TestValue};
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::rc::Rc;
    use HostData::{List, Map, Null, Number, Text};

    /// An in-memory table keyed by (namespace, key) that logs every request; `output` replaces
    /// every answer.
    #[derive(Default)]
    struct FakeTable {
        items: HashMap<(String, String), HostData>,
        requests: RefCell<Vec<GetItemRequest>>,
        fail: Option<String>,
        output: Option<HostData>,
    }

    struct Host(Rc<FakeTable>);

    impl DynamoDbHost for Host {
        type Error = TestValue;
        fn get_item(
            &self,
            request: GetItemRequest,
            reads: Select,
        ) -> LocalBoxFuture<'static, Result<HostData, TestValue>> {
            let item = self.0.items.get(&(request.namespace.clone(), request.key.clone())).cloned();
            let metadata = map(&[("httpStatusCode", Number(200.0))]);
            let output = item.map_or_else(
                || map(&[("$metadata", metadata.clone())]),
                |item| map(&[("$metadata", metadata.clone()), ("Item", item)]),
            );
            self.0.requests.borrow_mut().push(request);
            let r = match &self.0.fail {
                Some(e) => Err(TestValue::Text(e.clone())),
                None => Ok(selected(&self.0.output.clone().unwrap_or(output), reads)),
            };
            async move { r }.boxed_local()
        }
    }

    /// What the bindings convert of `data` for `select`: the named fields of maps, or all.
    fn selected(data: &HostData, select: Select) -> HostData {
        match (data, select) {
            (Map(_), Select::Fields(fields)) => {
                Map(fields.iter().map(|(name, inner)| (name.to_string(), selected(data.field(name), *inner))).collect())
            }
            (List(items), select) => List(items.iter().map(|item| selected(item, select)).collect()),
            (other, _) => other.clone(),
        }
    }

    #[test]
    fn queries_read_only_the_attributes_they_parse() {
        let output = map(&[
            ("$metadata", map(&[("requestId", Text("r".into()))])),
            ("Item", map(&[("key", Text("h".into())), ("included", ss(&["a.g1"])), ("synchronizedOn", Null)])),
        ]);
        let read = |select| selected(&output, select);
        let item = |attrs: &[(&str, HostData)]| map(&[("Item", map(attrs))]);
        assert_eq!(read(MEMBERSHIP_READS), item(&[("included", ss(&["a.g1"])), ("excluded", HostData::Absent)]));
        assert_eq!(read(METADATA_READS), item(&[("synchronizedOn", Null)]));
    }

    fn map(entries: &[(&str, HostData)]) -> HostData {
        Map(entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
    }

    fn store(table: FakeTable, prefix: Option<&str>) -> (DynamoDbStore<Host>, Rc<FakeTable>) {
        let table = Rc::new(table);
        (DynamoDbStore::new(Host(table.clone()), "bigsegs", prefix).unwrap(), table)
    }

    fn ss(refs: &[&str]) -> HostData {
        map(&[("SS", List(refs.iter().map(|s| Text(s.to_string())).collect()))])
    }

    fn user_item(ns: &str, hash: &str, attrs: &[(&str, HostData)]) -> FakeTable {
        let mut t = FakeTable::default();
        t.items.insert((ns.into(), hash.into()), map(attrs));
        t
    }

    fn malformed(got: Result<impl std::fmt::Debug, StoreError<TestValue>>) -> String {
        match got {
            Err(StoreError::Malformed(m)) => m,
            other => panic!("not a malformed answer: {other:?}"),
        }
    }

    #[test]
    fn include_wins_and_excluded_map_to_false_in_one_get_item() {
        let t = TestHost::new(1);
        let table = user_item(
            "big_segments_user",
            "h",
            &[(ATTR_INCLUDED, ss(&["a.g1", "both.g2"])), (ATTR_EXCLUDED, ss(&["b.g1", "both.g2"]))],
        );
        let (s, table) = store(table, None);
        assert_eq!(
            t.run(s.membership("h")),
            Ok(Some(vec![("a.g1".into(), true), ("b.g1".into(), false), ("both.g2".into(), true)]))
        );
        let requests = table.requests.borrow();
        assert_eq!(
            *requests,
            [GetItemRequest { table_name: "bigsegs".into(), namespace: "big_segments_user".into(), key: "h".into() }]
        );
    }

    #[test]
    fn missing_item_is_no_data_and_an_item_without_sets_is_empty() {
        let t = TestHost::new(1);
        let (s, _) = store(user_item("big_segments_user", "h", &[("key", Text("h".into()))]), None);
        assert_eq!(t.run(s.membership("nobody")), Ok(None));
        assert_eq!(t.run(s.membership("h")), Ok(Some(vec![])));
        let null_item = FakeTable { output: Some(map(&[("Item", Null)])), ..Default::default() };
        assert_eq!(t.run(store(null_item, None).0.membership("h")), Ok(None), "Item: null is no item");
    }

    #[test]
    fn prefix_goes_on_namespaces_only_and_on_both_metadata_keys() {
        let t = TestHost::new(1);
        for (prefix, ns) in
            [(None, "big_segments_user"), (Some(""), "big_segments_user"), (Some("p"), "p:big_segments_user")]
        {
            let (s, table) = store(user_item(ns, "h", &[(ATTR_INCLUDED, ss(&["x.g1"]))]), prefix);
            assert_eq!(t.run(s.membership("h")), Ok(Some(vec![("x.g1".into(), true)])), "{prefix:?}");
            let _ = t.run(s.metadata());
            let requests = table.requests.borrow();
            let keys: Vec<_> = requests.iter().map(|r| (r.namespace.as_str(), r.key.as_str())).collect();
            let meta = ns.replace("big_segments_user", "big_segments_metadata");
            assert_eq!(keys, [(ns, "h"), (meta.as_str(), meta.as_str())]);
        }
    }

    fn metadata_of(attrs: Option<&[(&str, HostData)]>) -> Result<Option<f64>, StoreError<TestValue>> {
        let t = TestHost::new(1);
        let mut table = FakeTable::default();
        if let Some(attrs) = attrs {
            table.items.insert((METADATA.into(), METADATA.into()), map(attrs));
        }
        let (s, _) = store(table, None);
        t.run(s.metadata()).map(|m| m.last_up_to_date)
    }

    #[test]
    fn metadata_parsing() {
        assert_eq!(metadata_of(None), Ok(None), "no item: never synchronized");
        assert_eq!(metadata_of(Some(&[])), Ok(None), "no attribute: never synchronized");
        let n = |v: &str| [(ATTR_SYNCHRONIZED_ON, map(&[("N", Text(v.into()))]))];
        assert_eq!(metadata_of(Some(&n("1700000000000"))), Ok(Some(1_700_000_000_000.0)));
        assert!(malformed(metadata_of(Some(&n("12.5")))).contains("not an integer: 12.5"));
    }

    #[test]
    fn synchronized_on_of_the_wrong_type_is_malformed() {
        for (value, says) in [
            (map(&[("S", Text("1700000000000".into()))]), "a string (S) \"1700000000000\""),
            (map(&[("N", Number(1.0))]), "a N attribute whose value is not a string: a number 1"),
            (map(&[("NULL", HostData::Bool(true))]), "a NULL attribute"),
            (map(&[("NS", List(vec![Text("1".into())]))]), "a NS attribute"),
            (Number(1_700_000_000_000.0), "not an attribute value: a number 1700000000000"),
            (Null, "not an attribute value: null"),
            (HostData::Other("an unreadable value".into()), "not an attribute value: an unreadable value"),
        ] {
            let m = malformed(metadata_of(Some(&[(ATTR_SYNCHRONIZED_ON, value)])));
            assert_eq!(m, format!("DynamoDB: synchronizedOn of the metadata item is not a number (N): {says}"));
        }
    }

    #[test]
    fn sets_of_the_wrong_type_are_malformed_without_the_hash() {
        let t = TestHost::new(1);
        for (bad, says) in [
            (map(&[("S", Text("a.g1".into()))]), "a string (S) \"a.g1\""),
            (map(&[("BOOL", HostData::Bool(true))]), "a BOOL attribute"),
            (map(&[("M", map(&[("a.g1", map(&[("BOOL", HostData::Bool(true))]))]))]), "a M attribute"),
            (map(&[("L", List(vec![map(&[("S", Text("a.g1".into()))])]))]), "a L attribute"),
            (map(&[("NULL", HostData::Bool(true))]), "a NULL attribute"),
            (map(&[("BS", List(vec![]))]), "a BS attribute"),
            (map(&[("NS", List(vec![Text("1".into())]))]), "a NS attribute"),
            (
                map(&[("SS", List(vec![Text("a.g1".into()), Number(1.0)]))]),
                "a string set (SS) with a member that is not a string: a number 1",
            ),
            (map(&[("SS", Text("a.g1".into()))]), "a SS attribute whose value is not a list: a string \"a.g1\""),
            (map(&[("SS", List(vec![])), ("NULL", HostData::Bool(true))]), "an attribute value of more than one type"),
            (map(&[("h", HostData::Bool(true))]), "an attribute value of no known type"),
            (map(&[]), "an attribute value of no known type"),
            (List(vec![Text("a.g1".into())]), "not an attribute value: a list of 1"),
            (Text("a.g1".into()), "not an attribute value: a string \"a.g1\""),
            (Null, "not an attribute value: null"),
            (HostData::Other("an unreadable value".into()), "not an attribute value: an unreadable value"),
        ] {
            for name in [ATTR_INCLUDED, ATTR_EXCLUDED] {
                let item = user_item("big_segments_user", "h", &[(name, bad.clone()), ("key", Text("h".into()))]);
                let m = malformed(t.run(store(item, None).0.membership("h")));
                assert_eq!(m, format!("DynamoDB: {name} of a big_segments_user item is not a string set (SS): {says}"));
            }
        }
    }

    #[test]
    fn outputs_of_the_wrong_shape_are_malformed() {
        let t = TestHost::new(1);
        for (output, says) in [
            (HostData::Absent, "GetItem did not answer an object: undefined"),
            (Null, "GetItem did not answer an object: null"),
            (Number(42.0), "GetItem did not answer an object: a number 42"),
            (List(vec![]), "GetItem did not answer an object: a list of 0"),
            (HostData::Other("a Map".into()), "GetItem did not answer an object: a Map"),
            (map(&[("Item", Text("x".into()))]), "GetItem answered an Item that is not a map: a string \"x\""),
            (map(&[("Item", List(vec![]))]), "GetItem answered an Item that is not a map: a list of 0"),
            (map(&[("Item", HostData::Other("a Map".into()))]), "GetItem answered an Item that is not a map: a Map"),
        ] {
            let table = FakeTable { output: Some(output), ..Default::default() };
            let (s, _) = store(table, None);
            assert_eq!(malformed(t.run(s.membership("h"))), format!("DynamoDB: {says}"));
            assert_eq!(malformed(t.run(s.metadata())), format!("DynamoDB: {says}"));
        }
    }

    #[test]
    fn host_errors_are_kept_and_table_names_checked() {
        let t = TestHost::new(1);
        let table = FakeTable { fail: Some("ProvisionedThroughputExceededException".into()), ..Default::default() };
        let (s, _) = store(table, None);
        assert_eq!(
            t.run(s.membership("h")),
            Err(StoreError::Host(TestValue::Text("ProvisionedThroughputExceededException".into())))
        );
        for bad in ["", "ab", "has space", &"x".repeat(256)] {
            let got = DynamoDbStore::new(Host(Rc::default()), bad, None).map(|_| ());
            assert!(matches!(&got, Err(crate::error::Error::Range(m)) if m.contains("must be 3 to 255")), "{bad}");
        }
        assert!(DynamoDbStore::new(Host(Rc::default()), "my_table-1.v2", None).is_ok());
    }
}
