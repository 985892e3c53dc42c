//! A Big Segment store over Redis as LaunchDarkly's Relay Proxy writes it (SPEC B6), reached
//! through a [`RedisHost`]: whatever can send a Redis command (a JavaScript client in the
//! bindings, a fake in tests). One round trip per membership query.
//!
//! Schema under prefix `P` (default `launchdarkly`; the empty string means the default):
//! - `P:big_segments_synchronized_on`: decimal epoch ms of the last sync, as a string.
//! - `P:big_segment_include:<hash>`: SET of segment refs the context is included in.
//! - `P:big_segment_exclude:<hash>`: SET of segment refs the context is excluded from.

use futures::future::{self, LocalBoxFuture};
use futures::FutureExt;

use super::host_data::HostData;
use super::schema_store::{membership_of, Answer, MembershipEntries, SchemaStore, StoreError};
use super::store::StoreMetadata;
use crate::host::HostValue;

pub const DEFAULT_PREFIX: &str = "launchdarkly";

/// What a command (or a pipeline of them) answered, or the host's error.
pub type Reply<E> = LocalBoxFuture<'static, Result<HostData, E>>;

/// Sends commands to Redis. `pipeline` is optional: a host without it gets two concurrent
/// `command` calls, which clients that auto-pipeline send in one round trip.
pub trait RedisHost {
    type Error: HostValue;
    fn command(&self, args: Vec<String>) -> Reply<Self::Error>;
    /// Sends all `commands` in one round trip and answers the list of their replies; `None`
    /// when the host cannot.
    fn pipeline(&self, commands: Vec<Vec<String>>) -> Option<Reply<Self::Error>>;
}

pub struct RedisStore<H> {
    host: H,
    synchronized_on_key: String,
    include_prefix: String,
    exclude_prefix: String,
}

/// Parses `big_segments_synchronized_on`: missing, empty or blank → never synchronized.
pub fn parse_synchronized_on(reply: &HostData) -> Result<Option<f64>, String> {
    let text = match reply {
        HostData::Absent | HostData::Null => return Ok(None),
        HostData::Text(t) => t.trim(),
        number @ HostData::Number(_) => {
            return number
                .integer()
                .map(|n| Some(n as f64))
                .ok_or_else(|| format!("Redis: big_segments_synchronized_on is not an integer: {}", number.describe()))
        }
        other => return Err(format!("Redis: big_segments_synchronized_on is not a string: {}", other.describe())),
    };
    if text.is_empty() {
        return Ok(None);
    }
    text.parse::<i64>().map(|n| Some(n as f64)).map_err(|_| {
        format!("Redis: big_segments_synchronized_on is not a number: {}", crate::util::text::quoted(text))
    })
}

/// The members of a SET reply. `which` names the set (`include`/`exclude`) in errors; the key
/// itself is left out, because it carries the context's hash and errors are logged.
fn set_members(reply: HostData, which: &str) -> Result<Vec<String>, String> {
    match reply {
        HostData::Absent | HostData::Null => Ok(Vec::new()),
        HostData::List(items) => items
            .into_iter()
            .map(|item| match item {
                HostData::Text(t) => Ok(t),
                other => Err(format!(
                    "Redis: SMEMBERS of the {which} set returned a member that is not a string: {}",
                    other.describe()
                )),
            })
            .collect(),
        other => Err(format!("Redis: SMEMBERS of the {which} set did not return an array: {}", other.describe())),
    }
}

/// The two replies of a membership query's pipeline.
fn pipeline_replies(replies: HostData) -> Result<(HostData, HostData), String> {
    let HostData::List(replies) = replies else {
        return Err(format!("Redis: the pipeline did not return an array: {}", replies.describe()));
    };
    let mut replies = replies.into_iter();
    match (replies.next(), replies.next()) {
        (Some(include), Some(exclude)) => Ok((include, exclude)),
        _ => Err("Redis: the pipeline returned fewer than two replies".into()),
    }
}

impl<H: RedisHost> RedisStore<H> {
    /// `prefix`: `None` or empty → `launchdarkly`.
    pub fn new(host: H, prefix: Option<&str>) -> Self {
        let prefix = prefix.filter(|p| !p.is_empty()).unwrap_or(DEFAULT_PREFIX);
        RedisStore {
            host,
            synchronized_on_key: format!("{prefix}:big_segments_synchronized_on"),
            include_prefix: format!("{prefix}:big_segment_include:"),
            exclude_prefix: format!("{prefix}:big_segment_exclude:"),
        }
    }

    #[cfg(test)]
    pub fn host(&self) -> &H {
        &self.host
    }

    /// Both SMEMBERS in one round trip: a pipeline when the host has one, else two commands
    /// issued together.
    fn both_sets(&self, context_hash: &str) -> Answer<(HostData, HostData), H::Error> {
        let smembers = |prefix: &str| vec!["SMEMBERS".to_string(), format!("{prefix}{context_hash}")];
        let (include, exclude) = (smembers(&self.include_prefix), smembers(&self.exclude_prefix));
        if let Some(replies) = self.host.pipeline(vec![include.clone(), exclude.clone()]) {
            return replies
                .map(|r| pipeline_replies(r.map_err(StoreError::Host)?).map_err(StoreError::Malformed))
                .boxed_local();
        }
        let both = future::join(self.host.command(include), self.host.command(exclude));
        both.map(|(include, exclude)| Ok((include.map_err(StoreError::Host)?, exclude.map_err(StoreError::Host)?)))
            .boxed_local()
    }
}

impl<H: RedisHost> SchemaStore for RedisStore<H> {
    type HostError = H::Error;

    fn metadata(&self) -> Answer<StoreMetadata, H::Error> {
        let reply = self.host.command(vec!["GET".into(), self.synchronized_on_key.clone()]);
        reply
            .map(|reply| {
                let last = parse_synchronized_on(&reply.map_err(StoreError::Host)?).map_err(StoreError::Malformed)?;
                Ok(StoreMetadata { last_up_to_date: last })
            })
            .boxed_local()
    }

    fn membership(&self, context_hash: &str) -> Answer<Option<MembershipEntries>, H::Error> {
        self.both_sets(context_hash)
            .map(|replies| {
                let (include, exclude) = replies?;
                let included = set_members(include, "include").map_err(StoreError::Malformed)?;
                let excluded = set_members(exclude, "exclude").map_err(StoreError::Malformed)?;
                Ok(membership_of(included, excluded))
            })
            .boxed_local()
    }
}

#[cfg(test)]
mod tests {
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
}
