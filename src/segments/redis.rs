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
use super::membership::{within_bound, TooWide};
use super::schema_store::{membership_of, MembershipEntries, SchemaError, SchemaStore, StoreError, StoreReply};
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

/// Who answered each set, for a membership refused as too wide.
const INCLUDE_SET: &str = "Redis: SMEMBERS of the include set";
const EXCLUDE_SET: &str = "Redis: SMEMBERS of the exclude set";
const BOTH_SETS: &str = "Redis: SMEMBERS of the include and exclude sets";

/// The members of a SET reply. `which` names the set (`include`/`exclude`) in errors; the key
/// itself is left out, because it carries the context's hash and errors are logged. A reply
/// wider than the membership bound (left unread by the host) is refused.
fn set_members(reply: HostData, which: &str) -> Result<Vec<String>, SchemaError> {
    let owner = if which == "include" { INCLUDE_SET } else { EXCLUDE_SET };
    match reply {
        HostData::Wide(entries) => Err(StoreError::TooWide(TooWide { owner, entries })),
        reply => set_members_read(reply, which).map_err(StoreError::Malformed),
    }
}

/// The members of a SET reply that was read.
fn set_members_read(reply: HostData, which: &str) -> Result<Vec<String>, String> {
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
    fn both_sets(&self, context_hash: &str) -> StoreReply<(HostData, HostData), H::Error> {
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

    fn metadata(&self) -> StoreReply<StoreMetadata, H::Error> {
        let reply = self.host.command(vec!["GET".into(), self.synchronized_on_key.clone()]);
        reply
            .map(|reply| {
                let last = parse_synchronized_on(&reply.map_err(StoreError::Host)?).map_err(StoreError::Malformed)?;
                Ok(StoreMetadata { last_up_to_date: last })
            })
            .boxed_local()
    }

    fn membership(&self, context_hash: &str) -> StoreReply<Option<MembershipEntries>, H::Error> {
        self.both_sets(context_hash)
            .map(|replies| {
                let (include, exclude) = replies?;
                let included = set_members(include, "include").map_err(SchemaError::widen)?;
                let excluded = set_members(exclude, "exclude").map_err(SchemaError::widen)?;
                within_bound(BOTH_SETS, included.len() + excluded.len()).map_err(StoreError::TooWide)?;
                Ok(membership_of(included, excluded))
            })
            .boxed_local()
    }
}

#[cfg(test)]
#[path = "redis_tests.rs"]
mod tests;
