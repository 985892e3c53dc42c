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
use super::membership::{within_bound, TooWide};
use super::schema_store::{membership_of, MembershipEntries, SchemaError, SchemaStore, StoreError, StoreReply};
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
    /// A string set of this many members, more than the membership bound: left unread.
    WideSs(usize),
    /// Anything else, described for error messages (`a BOOL attribute`).
    Other(String),
}

impl AttributeValue {
    fn describe(&self) -> String {
        match self {
            AttributeValue::S(s) => format!("a string (S) {}", crate::util::text::quoted(s)),
            AttributeValue::N(n) => format!("a number (N) {n}"),
            AttributeValue::Ss(items) => format!("a string set (SS) of {}", items.len()),
            AttributeValue::WideSs(n) => format!("a string set (SS) of {n}, unread"),
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
        ("SS", HostData::Wide(n)) => AttributeValue::WideSs(*n),
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

/// Who answered each string set, for a membership refused as too wide.
const INCLUDED_SET: &str = "DynamoDB: the included string set";
const EXCLUDED_SET: &str = "DynamoDB: the excluded string set";
const BOTH_SETS: &str = "DynamoDB: the included and excluded string sets";

/// The refs of a string-set attribute; a missing attribute is an empty set. The context's hash
/// is left out of errors, because errors are logged. One wider than the membership bound (left
/// unread by the host) is refused.
fn string_set(item: &HostData, name: &str) -> Result<Vec<String>, SchemaError> {
    match item.field(name) {
        HostData::Absent => Ok(Vec::new()),
        value => match attribute(value) {
            AttributeValue::Ss(refs) => Ok(refs),
            AttributeValue::WideSs(entries) => {
                let owner = if name == ATTR_INCLUDED { INCLUDED_SET } else { EXCLUDED_SET };
                Err(StoreError::TooWide(TooWide { owner, entries }))
            }
            other => Err(StoreError::Malformed(format!(
                "DynamoDB: {name} of a big_segments_user item is not a string set (SS): {}",
                other.describe()
            ))),
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
        read: impl FnOnce(Option<&HostData>) -> Result<T, SchemaError> + 'static,
    ) -> StoreReply<T, H::Error> {
        let request = GetItemRequest { table_name: self.table_name.clone(), namespace, key };
        let output = self.host.get_item(request, reads);
        output
            .map(|output| {
                let output = output.map_err(StoreError::Host)?;
                item(&output).map_err(StoreError::Malformed).and_then(read).map_err(SchemaError::widen)
            })
            .boxed_local()
    }
}

impl<H: DynamoDbHost> SchemaStore for DynamoDbStore<H> {
    type HostError = H::Error;

    /// A missing metadata item, or one without `synchronizedOn`, means never synchronized.
    fn metadata(&self) -> StoreReply<StoreMetadata, H::Error> {
        self.read_item(self.metadata_key.clone(), self.metadata_key.clone(), METADATA_READS, |item| {
            let last = item.map(parse_synchronized_on).transpose().map_err(StoreError::Malformed)?.flatten();
            Ok(StoreMetadata { last_up_to_date: last })
        })
    }

    /// A missing item is no data (`None`); an item with neither set is the empty membership.
    fn membership(&self, context_hash: &str) -> StoreReply<Option<MembershipEntries>, H::Error> {
        self.read_item(self.user_namespace.clone(), context_hash.to_string(), MEMBERSHIP_READS, |item| {
            let Some(item) = item else { return Ok(None) };
            let included = string_set(item, ATTR_INCLUDED)?;
            let excluded = string_set(item, ATTR_EXCLUDED)?;
            within_bound(BOTH_SETS, included.len() + excluded.len()).map_err(StoreError::TooWide)?;
            Ok(Some(membership_of(included, excluded).unwrap_or_default()))
        })
    }
}

#[cfg(test)]
#[path = "dynamodb_tests.rs"]
mod tests;
