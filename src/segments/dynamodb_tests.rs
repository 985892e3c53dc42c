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
    fn get_item(&self, request: GetItemRequest, reads: Select) -> LocalBoxFuture<'static, Result<HostData, TestValue>> {
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

#[test]
fn a_string_set_wider_than_the_bound_is_refused_naming_owner_bound_and_value() {
    use crate::host::HostValue;
    use crate::segments::membership::{TooWide, MAX_ENTRIES};
    let t = TestHost::new(1);
    let wide = map(&[("SS", HostData::Wide(100_000))]);
    let (s, _) = store(user_item("big_segments_user", "h", &[(ATTR_EXCLUDED, wide)]), None);
    let refused = t.run(s.membership("h"));
    assert_eq!(refused, Err(StoreError::TooWide(TooWide { owner: EXCLUDED_SET, entries: 100_000 })));
    assert!(refused
        .unwrap_err()
        .describe()
        .starts_with("DynamoDB: the excluded string set answered a membership of 100000"));
    let half: Vec<String> = (0..MAX_ENTRIES / 2 + 1).map(|i| format!("s{i}.g1")).collect();
    let refs: Vec<&str> = half.iter().map(String::as_str).collect();
    let (s, _) =
        store(user_item("big_segments_user", "h", &[(ATTR_INCLUDED, ss(&refs)), (ATTR_EXCLUDED, ss(&refs))]), None);
    assert_eq!(
        t.run(s.membership("h")),
        Err(StoreError::TooWide(TooWide { owner: BOTH_SETS, entries: MAX_ENTRIES + 2 }))
    );
}
