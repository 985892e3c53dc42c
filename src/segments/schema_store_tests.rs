//! Native tests of the schema stores (Redis, DynamoDB) under a manager: an answer the store could
//! not read is STORE_ERROR with a log line naming what was wrong, never a membership.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::FutureExt;

use super::dynamodb::{DynamoDbHost, DynamoDbStore, GetItemRequest};
use super::host_data::HostData::{self, List, Map, Number, Text};
use super::host_data::Select;
use super::redis::{RedisHost, RedisStore, Reply};
use super::schema_store::{MembershipEntries, SchemaStore, StoreError};
use super::*;
use crate::host::Level;
use crate::testing::{TestHost, TestValue};

/// A schema store as the manager's store.
struct Managed<S>(S);

impl<S: SchemaStore> BigSegmentStore for Managed<S> {
    type Membership = MembershipEntries;
    type Error = StoreError<S::HostError>;

    fn get_metadata(&self) -> LocalBoxFuture<'static, Result<Option<StoreMetadata>, Self::Error>> {
        self.0.metadata().map(|r| r.map(Some)).boxed_local()
    }
    fn get_membership(
        &self,
        context_hash: &str,
    ) -> LocalBoxFuture<'static, Result<Option<Self::Membership>, Self::Error>> {
        self.0.membership(context_hash)
    }
    fn empty_membership(&self) -> MembershipEntries {
        Vec::new()
    }
}

type Answers<Q> = Rc<dyn Fn(&Q) -> HostData>;

/// Redis whose replies `answer` makes from each command; no pipeline.
struct Redis(Answers<Vec<String>>);

impl RedisHost for Redis {
    type Error = TestValue;
    fn command(&self, args: Vec<String>) -> Reply<TestValue> {
        let reply = (self.0)(&args);
        async move { Ok(reply) }.boxed_local()
    }
    fn pipeline(&self, _: Vec<Vec<String>>) -> Option<Reply<TestValue>> {
        None
    }
}

/// DynamoDB whose outputs `answer` makes from each request.
struct Dynamo(Answers<GetItemRequest>);

impl DynamoDbHost for Dynamo {
    type Error = TestValue;
    fn get_item(&self, request: GetItemRequest, _: Select) -> LocalBoxFuture<'static, Result<HostData, TestValue>> {
        let output = (self.0)(&request);
        async move { Ok(output) }.boxed_local()
    }
}

fn map(entries: &[(&str, HostData)]) -> HostData {
    Map(entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
}

/// One lookup of `user` through a manager over `store`, and the error lines logged.
fn lookup<S: SchemaStore + 'static>(store: S) -> (Lookup<MembershipEntries>, Vec<String>) {
    let th = TestHost::new(3);
    let manager = BigSegmentStoreManager::new(Some(Managed(store)), BigSegmentsConfig::default(), th.host.clone());
    let manager = manager.unwrap();
    let got = th.run(manager.get_user_membership("user")).unwrap();
    let errors = th.logger.messages(Level::Error);
    assert!(!errors.iter().any(|e| e.contains(&hash_context_key("user"))), "no hash in {errors:?}");
    (got, errors)
}

fn synced_now() -> HostData {
    Text(crate::util::text::number(TestHost::new(3).host.clock.epoch_ms()))
}

/// Redis answering `include` for the include set, nothing for the exclude set, `meta` for GET.
fn redis(include: HostData, meta: HostData) -> RedisStore<Redis> {
    let answer = move |args: &Vec<String>| match args.get(1) {
        Some(key) if key.contains("include") => include.clone(),
        Some(key) if key.contains("synchronized_on") => meta.clone(),
        _ => HostData::Absent,
    };
    RedisStore::new(Redis(Rc::new(answer)), None)
}

/// DynamoDB answering `item` for the context's item and `meta` for the metadata item.
fn dynamo(item: HostData, meta: HostData) -> DynamoDbStore<Dynamo> {
    let answer =
        move |r: &GetItemRequest| map(&[("Item", if r.key.contains("metadata") { &meta } else { &item }.clone())]);
    DynamoDbStore::new(Dynamo(Rc::new(answer)), "table", None).unwrap()
}

fn sync_item() -> HostData {
    map(&[("synchronizedOn", map(&[("N", synced_now())]))])
}

#[test]
fn good_answers_are_healthy_memberships() {
    let healthy = Lookup { membership: Some(vec![("a.g1".to_string(), true)]), status: BigSegmentsStatus::Healthy };
    assert_eq!(lookup(redis(List(vec![Text("a.g1".into())]), synced_now())), (healthy.clone(), vec![]));
    let item = map(&[("included", map(&[("SS", List(vec![Text("a.g1".into())]))]))]);
    assert_eq!(lookup(dynamo(item, sync_item())), (healthy, vec![]));
}

#[test]
fn a_malformed_membership_is_a_store_error_naming_what_was_wrong() {
    let failed = Lookup { membership: None, status: BigSegmentsStatus::StoreError };
    let line = |what: &str| vec![format!("Big Segment store membership query returned error: {what}")];
    let cases: Vec<(Box<dyn SchemaStoreUnderTest>, &str)> = vec![
        (Box::new(redis(Text("oops".into()), synced_now())), "Redis: SMEMBERS of the include set did not return an array: a string \"oops\""),
        (Box::new(redis(List(vec![Number(1.0)]), synced_now())), "Redis: SMEMBERS of the include set returned a member that is not a string: a number 1"),
        (Box::new(dynamo(List(vec![]), sync_item())), "DynamoDB: GetItem answered an Item that is not a map: a list of 0"),
        (
            Box::new(dynamo(map(&[("included", map(&[("M", map(&[]))]))]), sync_item())),
            "DynamoDB: included of a big_segments_user item is not a string set (SS): a M attribute",
        ),
        (
            Box::new(dynamo(map(&[("excluded", List(vec![Text("a.g1".into())]))]), sync_item())),
            "DynamoDB: excluded of a big_segments_user item is not a string set (SS): not an attribute value: a list of 1",
        ),
    ];
    for (store, what) in cases {
        assert_eq!(store.lookup(), (failed.clone(), line(what)));
    }
}

#[test]
fn malformed_metadata_is_a_store_error_status() {
    let line = |what: &str| vec![format!("Big Segment store status query returned error: {what}")];
    let (got, errors) = lookup(redis(List(vec![]), List(vec![])));
    assert_eq!((got.status, got.membership), (BigSegmentsStatus::StoreError, Some(vec![])));
    assert_eq!(errors, line("Redis: big_segments_synchronized_on is not a string: a list of 0"));
    let bad_sync = map(&[("synchronizedOn", map(&[("S", Text("1".into()))]))]);
    let (got, errors) = lookup(dynamo(map(&[]), bad_sync));
    assert_eq!((got.status, got.membership), (BigSegmentsStatus::StoreError, Some(vec![])));
    assert_eq!(errors, line("DynamoDB: synchronizedOn of the metadata item is not a number (N): a string (S) \"1\""));
}

/// Either store, boxed, for one table of cases.
trait SchemaStoreUnderTest {
    fn lookup(self: Box<Self>) -> (Lookup<MembershipEntries>, Vec<String>);
}

impl<S: SchemaStore + 'static> SchemaStoreUnderTest for S {
    fn lookup(self: Box<Self>) -> (Lookup<MembershipEntries>, Vec<String>) {
        lookup(*self)
    }
}
