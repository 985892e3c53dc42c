//! A Big Segment store over Redis as LaunchDarkly's Relay Proxy writes it (SPEC B6), reached
//! through a [`RedisHost`]: whatever can send a Redis command (a JavaScript client in the
//! bindings, a fake in tests). One round trip per membership query.
//!
//! Schema under prefix `P` (default `launchdarkly`; the empty string means the default):
//! - `P:big_segments_synchronized_on`: decimal epoch ms of the last sync, as a string.
//! - `P:big_segment_include:<hash>`: SET of segment refs the context is included in.
//! - `P:big_segment_exclude:<hash>`: SET of segment refs the context is excluded from.

use std::fmt;

use futures::future::{self, LocalBoxFuture};

use super::store::StoreMetadata;
use crate::host::HostValue;

pub const DEFAULT_PREFIX: &str = "launchdarkly";

/// A Redis reply, as much as the schema needs.
#[derive(Clone, Debug, PartialEq)]
pub enum RedisReply {
    Nil,
    Text(String),
    Integer(i64),
    Array(Vec<RedisReply>),
    /// Anything else the host returned (described for error messages).
    Other(String),
}

impl RedisReply {
    /// A short form for error messages.
    pub fn describe(&self) -> String {
        match self {
            RedisReply::Nil => "nil".into(),
            RedisReply::Text(t) => crate::util::text::quoted(t),
            RedisReply::Integer(n) => n.to_string(),
            RedisReply::Array(items) => format!("an array of {}", items.len()),
            RedisReply::Other(o) => o.clone(),
        }
    }
}

/// Sends commands to Redis. `pipeline` is optional: a host without it gets two concurrent
/// `command` calls, which clients that auto-pipeline send in one round trip.
pub trait RedisHost {
    type Error: HostValue;
    fn command(&self, args: Vec<String>) -> LocalBoxFuture<'static, Result<RedisReply, Self::Error>>;
    /// Sends all `commands` in one round trip; `None` when the host cannot.
    fn pipeline(
        &self,
        commands: Vec<Vec<String>>,
    ) -> Option<LocalBoxFuture<'static, Result<Vec<RedisReply>, Self::Error>>>;
}

/// A failed store query: the host's error, or a reply that breaks the schema.
#[derive(Clone, Debug, PartialEq)]
pub enum RedisStoreError<E> {
    Host(E),
    Schema(String),
}

impl<E: HostValue> fmt::Display for RedisStoreError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedisStoreError::Host(e) => f.write_str(&e.describe()),
            RedisStoreError::Schema(m) => f.write_str(m),
        }
    }
}

/// A membership as the store read it: `(segment ref, included)` pairs, sorted by ref.
pub type MembershipEntries = Vec<(String, bool)>;

pub struct RedisStore<H> {
    host: H,
    synchronized_on_key: String,
    include_prefix: String,
    exclude_prefix: String,
}

fn schema<E>(message: String) -> RedisStoreError<E> {
    RedisStoreError::Schema(message)
}

/// Parses `big_segments_synchronized_on`: missing, empty or blank → never synchronized.
pub fn parse_synchronized_on(reply: &RedisReply) -> Result<Option<f64>, String> {
    let text = match reply {
        RedisReply::Nil => return Ok(None),
        RedisReply::Text(t) => t.trim(),
        RedisReply::Integer(n) => return Ok(Some(*n as f64)),
        other => return Err(format!("big_segments_synchronized_on is not a string: {}", other.describe())),
    };
    if text.is_empty() {
        return Ok(None);
    }
    text.parse::<i64>()
        .map(|n| Some(n as f64))
        .map_err(|_| format!("big_segments_synchronized_on is not a number: {}", crate::util::text::quoted(text)))
}

/// The members of a SET reply. `which` names the set (`include`/`exclude`) in errors; the key
/// itself is left out, because it carries the context's hash and errors are logged.
fn set_members(reply: RedisReply, which: &str) -> Result<Vec<String>, String> {
    match reply {
        RedisReply::Nil => Ok(Vec::new()),
        RedisReply::Array(items) => items
            .into_iter()
            .map(|item| match item {
                RedisReply::Text(t) => Ok(t),
                other => Err(format!("SMEMBERS of the {which} set returned a non-string member: {}", other.describe())),
            })
            .collect(),
        other => Err(format!("SMEMBERS of the {which} set did not return an array: {}", other.describe())),
    }
}

/// Combines the two sets: excluded refs map to false, included to true; include wins.
pub fn membership_of(included: Vec<String>, excluded: Vec<String>) -> Option<MembershipEntries> {
    if included.is_empty() && excluded.is_empty() {
        return None;
    }
    let mut entries: MembershipEntries =
        included.into_iter().map(|r| (r, true)).chain(excluded.into_iter().map(|r| (r, false))).collect();
    // By ref, `true` first, so that keeping the first of each ref makes include win.
    crate::util::sort::sort_unstable_by(&mut entries, |a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    entries.dedup_by(|later, first| later.0 == first.0);
    Some(entries)
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

    pub fn host(&self) -> &H {
        &self.host
    }

    pub fn metadata(&self) -> LocalBoxFuture<'static, Result<Option<StoreMetadata>, RedisStoreError<H::Error>>> {
        let reply = self.host.command(vec!["GET".into(), self.synchronized_on_key.clone()]);
        Box::pin(async move {
            let reply = reply.await.map_err(RedisStoreError::Host)?;
            let last = parse_synchronized_on(&reply).map_err(schema)?;
            Ok(Some(StoreMetadata { last_up_to_date: last }))
        })
    }

    /// Both SMEMBERS in one round trip: a pipeline when the host has one, else two commands
    /// issued together.
    pub fn membership(
        &self,
        context_hash: &str,
    ) -> LocalBoxFuture<'static, Result<Option<MembershipEntries>, RedisStoreError<H::Error>>> {
        let include_key = format!("{}{context_hash}", self.include_prefix);
        let exclude_key = format!("{}{context_hash}", self.exclude_prefix);
        let commands =
            vec![vec!["SMEMBERS".to_string(), include_key.clone()], vec!["SMEMBERS".to_string(), exclude_key.clone()]];
        let replies: LocalBoxFuture<'static, Result<Vec<RedisReply>, H::Error>> = match self.host.pipeline(commands) {
            Some(p) => p,
            None => {
                let inc = self.host.command(vec!["SMEMBERS".into(), include_key.clone()]);
                let exc = self.host.command(vec!["SMEMBERS".into(), exclude_key.clone()]);
                Box::pin(async move {
                    let (inc, exc) = future::join(inc, exc).await;
                    Ok(vec![inc?, exc?])
                })
            }
        };
        Box::pin(async move {
            let mut replies = replies.await.map_err(RedisStoreError::Host)?.into_iter();
            let (Some(inc), Some(exc)) = (replies.next(), replies.next()) else {
                return Err(schema("the pipeline returned fewer than two replies".into()));
            };
            let included = set_members(inc, "include").map_err(schema)?;
            let excluded = set_members(exc, "exclude").map_err(schema)?;
            Ok(membership_of(included, excluded))
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

    /// An in-memory Redis that counts round trips.
    #[derive(Default)]
    struct FakeRedis {
        strings: HashMap<String, String>,
        sets: HashMap<String, Vec<String>>,
        log: RefCell<Vec<String>>,
        round_trips: RefCell<u32>,
        fail: Option<String>,
    }

    impl FakeRedis {
        fn reply(&self, args: &[String]) -> RedisReply {
            match args {
                [cmd, key] if cmd == "GET" => self.strings.get(key).cloned().map_or(RedisReply::Nil, RedisReply::Text),
                [cmd, key] if cmd == "SMEMBERS" => RedisReply::Array(
                    self.sets.get(key).cloned().unwrap_or_default().into_iter().map(RedisReply::Text).collect(),
                ),
                _ => RedisReply::Other("unknown".into()),
            }
        }
    }

    struct Host {
        redis: Rc<FakeRedis>,
        pipelines: bool,
    }

    impl RedisHost for Host {
        type Error = TestValue;
        fn command(&self, args: Vec<String>) -> LocalBoxFuture<'static, Result<RedisReply, TestValue>> {
            *self.redis.round_trips.borrow_mut() += 1;
            self.redis.log.borrow_mut().push(args.join(" "));
            let r = match &self.redis.fail {
                Some(e) => Err(TestValue::Text(e.clone())),
                None => Ok(self.redis.reply(&args)),
            };
            async move { r }.boxed_local()
        }
        fn pipeline(
            &self,
            cmds: Vec<Vec<String>>,
        ) -> Option<LocalBoxFuture<'static, Result<Vec<RedisReply>, TestValue>>> {
            if !self.pipelines {
                return None;
            }
            *self.redis.round_trips.borrow_mut() += 1;
            let r: Vec<_> = cmds.iter().map(|c| self.redis.reply(c)).collect();
            Some(async move { Ok(r) }.boxed_local())
        }
    }

    fn store(redis: FakeRedis, prefix: Option<&str>, pipelines: bool) -> (RedisStore<Host>, Rc<FakeRedis>) {
        let redis = Rc::new(redis);
        (RedisStore::new(Host { redis: redis.clone(), pipelines }, prefix), redis)
    }

    fn with_sets(prefix: &str, hash: &str, inc: &[&str], exc: &[&str]) -> FakeRedis {
        let mut r = FakeRedis::default();
        r.sets.insert(format!("{prefix}:big_segment_include:{hash}"), inc.iter().map(|s| s.to_string()).collect());
        r.sets.insert(format!("{prefix}:big_segment_exclude:{hash}"), exc.iter().map(|s| s.to_string()).collect());
        r
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
                Ok(last) => assert_eq!(got, Ok(Some(StoreMetadata { last_up_to_date: last })), "{stored:?}"),
                Err(()) => {
                    assert!(matches!(got, Err(RedisStoreError::Schema(m)) if m.contains("not a number")), "{stored:?}")
                }
            }
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
    fn host_errors_and_bad_replies_are_errors() {
        let t = TestHost::new(1);
        let r = FakeRedis { fail: Some("ECONNREFUSED".into()), ..Default::default() };
        let (s, _) = store(r, None, false);
        assert_eq!(t.run(s.membership("h")), Err(RedisStoreError::Host(TestValue::Text("ECONNREFUSED".into()))));
        assert!(matches!(
            set_members(RedisReply::Text("oops".into()), "k"),
            Err(m) if m.contains("did not return an array")
        ));
        assert!(set_members(RedisReply::Array(vec![RedisReply::Integer(1)]), "k").is_err());
        assert_eq!(parse_synchronized_on(&RedisReply::Integer(5)), Ok(Some(5.0)));
    }
}
