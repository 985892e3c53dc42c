//! Tests of the Redis store (`redis.rs`), over an in-memory fake Redis.

use super::*;
use crate::testing::{TestHost, TestValue};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use HostData::{List, Null, Number, Text};

/// An in-memory Redis that counts round trips; `replies` overrides what a key answers.
#[derive(Default)]
struct FakeRedis {
    strings: HashMap<String, String>,
    sets: HashMap<String, Vec<String>>,
    replies: HashMap<String, HostData>,
    log: RefCell<Vec<String>>,
    round_trips: RefCell<u32>,
    fail: Option<String>,
}

impl FakeRedis {
    fn reply(&self, args: &[String]) -> HostData {
        if let Some(reply) = args.get(1).and_then(|key| self.replies.get(key)) {
            return reply.clone();
        }
        match args {
            [cmd, key] if cmd == "GET" => self.strings.get(key).cloned().map_or(HostData::Absent, Text),
            [cmd, key] if cmd == "SMEMBERS" => {
                List(self.sets.get(key).cloned().unwrap_or_default().into_iter().map(Text).collect())
            }
            _ => HostData::Other("unknown".into()),
        }
    }
}

struct Host {
    redis: Rc<FakeRedis>,
    pipelines: bool,
    /// Replaces every pipeline's answer.
    pipeline_answer: Option<HostData>,
}

impl RedisHost for Host {
    type Error = TestValue;
    fn command(&self, args: Vec<String>) -> Reply<TestValue> {
        *self.redis.round_trips.borrow_mut() += 1;
        self.redis.log.borrow_mut().push(args.join(" "));
        let r = match &self.redis.fail {
            Some(e) => Err(TestValue::Text(e.clone())),
            None => Ok(self.redis.reply(&args)),
        };
        async move { r }.boxed_local()
    }
    fn pipeline(&self, cmds: Vec<Vec<String>>) -> Option<Reply<TestValue>> {
        if !self.pipelines {
            return None;
        }
        *self.redis.round_trips.borrow_mut() += 1;
        let answer = self.pipeline_answer.clone();
        let r = answer.unwrap_or_else(|| List(cmds.iter().map(|c| self.redis.reply(c)).collect()));
        Some(async move { Ok(r) }.boxed_local())
    }
}

fn store(redis: FakeRedis, prefix: Option<&str>, pipelines: bool) -> (RedisStore<Host>, Rc<FakeRedis>) {
    let redis = Rc::new(redis);
    (RedisStore::new(Host { redis: redis.clone(), pipelines, pipeline_answer: None }, prefix), redis)
}

fn with_sets(prefix: &str, hash: &str, inc: &[&str], exc: &[&str]) -> FakeRedis {
    let mut r = FakeRedis::default();
    r.sets.insert(format!("{prefix}:big_segment_include:{hash}"), inc.iter().map(|s| s.to_string()).collect());
    r.sets.insert(format!("{prefix}:big_segment_exclude:{hash}"), exc.iter().map(|s| s.to_string()).collect());
    r
}

fn malformed(got: Result<impl std::fmt::Debug, StoreError<TestValue>>) -> String {
    match got {
        Err(StoreError::Malformed(m)) => m,
        other => panic!("not a malformed answer: {other:?}"),
    }
}

#[test]
fn metadata_parsing() {
    let t = TestHost::new(1);
    for (stored, expect) in [
        (None, Ok(None)),
        (Some(""), Ok(None)),
        (Some("   "), Ok(None)),
        (Some(" 1700000000000\n"), Ok(Some(1_700_000_000_000.0))),
        (Some("soon"), Err(())),
        (Some("12.5"), Err(())),
    ] {
        let mut r = FakeRedis::default();
        if let Some(s) = stored {
            r.strings.insert("launchdarkly:big_segments_synchronized_on".into(), s.into());
        }
        let (s, _) = store(r, None, true);
        let got = t.run(s.metadata());
        match expect {
            Ok(last) => assert_eq!(got, Ok(StoreMetadata { last_up_to_date: last }), "{stored:?}"),
            Err(()) => assert!(malformed(got).contains("not a number"), "{stored:?}"),
        }
    }
}

#[test]
fn metadata_of_the_wrong_type_is_malformed() {
    assert_eq!(parse_synchronized_on(&Number(5.0)), Ok(Some(5.0)));
    assert_eq!(parse_synchronized_on(&Null), Ok(None));
    for (reply, says) in [
        (Number(12.5), "not an integer: a number 12.5"),
        (List(vec![Text("1".into())]), "not a string: a list of 1"),
        (HostData::Bool(true), "not a string: a boolean true"),
        (HostData::Map(vec![]), "not a string: an object"),
        (HostData::Other("a Uint8Array".into()), "not a string: a Uint8Array"),
    ] {
        let got = parse_synchronized_on(&reply);
        assert!(
            matches!(&got, Err(m) if m.starts_with("Redis: big_segments_synchronized_on") && m.ends_with(says)),
            "{got:?}"
        );
    }
}

#[test]
fn include_wins_and_excluded_map_to_false() {
    let t = TestHost::new(1);
    let (s, _) = store(with_sets("launchdarkly", "h", &["a.g1", "both.g2"], &["b.g1", "both.g2"]), None, true);
    assert_eq!(
        t.run(s.membership("h")),
        Ok(Some(vec![("a.g1".into(), true), ("b.g1".into(), false), ("both.g2".into(), true)]))
    );
}

#[test]
fn no_sets_means_no_membership() {
    let t = TestHost::new(1);
    let (s, _) = store(FakeRedis::default(), None, true);
    assert_eq!(t.run(s.membership("nobody")), Ok(None));
}

#[test]
fn prefix_rules() {
    let t = TestHost::new(1);
    for (prefix, stored_under) in [(None, "launchdarkly"), (Some(""), "launchdarkly"), (Some("custom"), "custom")] {
        let (s, redis) = store(with_sets(stored_under, "h", &["x.g1"], &[]), prefix, false);
        assert_eq!(t.run(s.membership("h")), Ok(Some(vec![("x.g1".into(), true)])));
        assert_eq!(
            *redis.log.borrow(),
            [
                format!("SMEMBERS {stored_under}:big_segment_include:h"),
                format!("SMEMBERS {stored_under}:big_segment_exclude:h")
            ]
        );
    }
}

#[test]
fn one_round_trip_per_membership_query_with_a_pipeline() {
    let t = TestHost::new(1);
    let (s, redis) = store(with_sets("launchdarkly", "h", &["x.g1"], &[]), None, true);
    t.run(s.membership("h")).unwrap();
    assert_eq!(*redis.round_trips.borrow(), 1);
    assert!(redis.log.borrow().is_empty(), "no separate commands");
}

#[test]
fn without_a_pipeline_both_commands_are_issued_together() {
    let t = TestHost::new(1);
    let (s, redis) = store(with_sets("launchdarkly", "h", &["x.g1"], &[]), None, false);
    // Both commands are sent when the query starts, before either reply is awaited.
    let fut = s.membership("h");
    assert_eq!(redis.log.borrow().len(), 2);
    t.run(fut).unwrap();
}

#[test]
fn host_errors_are_kept_as_they_were() {
    let t = TestHost::new(1);
    let r = FakeRedis { fail: Some("ECONNREFUSED".into()), ..Default::default() };
    let (s, _) = store(r, None, false);
    assert_eq!(t.run(s.membership("h")), Err(StoreError::Host(TestValue::Text("ECONNREFUSED".into()))));
    assert_eq!(t.run(s.metadata()), Err(StoreError::Host(TestValue::Text("ECONNREFUSED".into()))));
}

#[test]
fn set_replies_of_the_wrong_type_are_malformed_with_and_without_a_pipeline() {
    let t = TestHost::new(1);
    let key = "launchdarkly:big_segment_exclude:h";
    for (reply, says) in [
        (Text("oops".into()), "exclude set did not return an array: a string \"oops\""),
        (Number(3.0), "exclude set did not return an array: a number 3"),
        (HostData::Map(vec![("a.g1".into(), HostData::Bool(true))]), "did not return an array: an object"),
        (HostData::Other("a Set".into()), "did not return an array: a Set"),
        (List(vec![Text("ok.g1".into()), Number(1.0)]), "returned a member that is not a string: a number 1"),
        (List(vec![Null]), "returned a member that is not a string: null"),
        (List(vec![List(vec![])]), "returned a member that is not a string: a list of 0"),
    ] {
        for pipelines in [false, true] {
            let mut r = with_sets("launchdarkly", "h", &["a.g1"], &[]);
            r.replies.insert(key.into(), reply.clone());
            let (s, _) = store(r, None, pipelines);
            let m = malformed(t.run(s.membership("h")));
            assert!(m.starts_with("Redis: SMEMBERS of the ") && m.ends_with(says), "{m}");
            assert!(!m.contains(":h"), "the key (and the hash in it) is left out: {m}");
        }
    }
}

#[test]
fn pipeline_answers_of_the_wrong_shape_are_malformed() {
    let t = TestHost::new(1);
    for (answer, says) in [
        (Text("OK".into()), "the pipeline did not return an array: a string \"OK\""),
        (HostData::Absent, "the pipeline did not return an array: undefined"),
        (List(vec![List(vec![])]), "the pipeline returned fewer than two replies"),
    ] {
        let redis = Rc::new(FakeRedis::default());
        let host = Host { redis, pipelines: true, pipeline_answer: Some(answer) };
        let s = RedisStore::new(host, None);
        assert_eq!(malformed(t.run(s.membership("h"))), format!("Redis: {says}"));
    }
}

#[test]
fn a_membership_wider_than_the_bound_is_refused_naming_owner_bound_and_value() {
    use crate::segments::membership::{TooWide, MAX_ENTRIES};
    let t = TestHost::new(1);
    // The host left a set unread (wider than the bound): refused, the other set is not read.
    let mut r = with_sets("launchdarkly", "h", &[], &["b.g1"]);
    r.replies.insert("launchdarkly:big_segment_include:h".into(), HostData::Wide(100_000));
    let (s, _) = store(r, None, true);
    let refused = t.run(s.membership("h"));
    assert_eq!(refused, Err(StoreError::TooWide(TooWide { owner: INCLUDE_SET, entries: 100_000 })));
    assert_eq!(
        refused.unwrap_err().describe(),
        "Redis: SMEMBERS of the include set answered a membership of 100000 entries, more than the bound \
         of 10000; refused unread"
    );
    // Each set within the bound, both together over it.
    let half: Vec<String> = (0..MAX_ENTRIES / 2 + 1).map(|i| format!("s{i}.g1")).collect();
    let refs: Vec<&str> = half.iter().map(String::as_str).collect();
    let (s, _) = store(with_sets("launchdarkly", "h", &refs, &refs), None, false);
    let refused = t.run(s.membership("h"));
    assert_eq!(refused, Err(StoreError::TooWide(TooWide { owner: BOTH_SETS, entries: MAX_ENTRIES + 2 })));
    // At the bound: read.
    let (s, _) = store(with_sets("launchdarkly", "h", &refs[1..], &refs[1..]), None, true);
    assert_eq!(t.run(s.membership("h")).map(|m| m.map(|m| m.len())), Ok(Some(MAX_ENTRIES / 2)));
}
