//! What a store's host answered (a Redis reply, a DynamoDB `GetItem` output) as plain data. The
//! bindings only convert host values to this form; the Rust-written stores decide on it what an
//! answer means and what makes it malformed (`redis.rs`, `dynamodb.rs`).

use super::membership::MAX_ENTRIES;

/// A value the host answered.
#[derive(Clone, Debug, PartialEq)]
pub enum HostData {
    /// No value: JavaScript's `undefined`, or a key the map does not have.
    Absent,
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
    List(Vec<HostData>),
    /// A plain object's own entries, in the host's order.
    Map(Vec<(String, HostData)>),
    /// Anything else, as the host described it (`a Map`, an error's text, a value whose read
    /// failed, one nested too deep).
    Other(String),
    /// A list or map of this many entries, more than [`MAX_ENTRIES`]: left unread
    /// ([`HostData::unread_if_wide`]).
    Wide(usize),
}

/// Which parts of an answer a store reads, so that the bindings convert no more than that: every
/// entry of the maps (`All`), or only the named fields of a map, each with its own selection.
#[derive(Clone, Copy, Debug)]
pub enum Select {
    All,
    Fields(&'static [(&'static str, Select)]),
}

static ABSENT: HostData = HostData::Absent;

impl HostData {
    /// The value under `name` when this is a map that has it, else `Absent`.
    pub fn field(&self, name: &str) -> &HostData {
        match self {
            HostData::Map(entries) => entries.iter().find(|(key, _)| key == name).map_or(&ABSENT, |(_, v)| v),
            _ => &ABSENT,
        }
    }

    /// What a list or map of `entries` entries converts to without reading any of them: `Wide`
    /// when it has more than [`MAX_ENTRIES`] (the widest membership answer, `membership.rs`),
    /// else `None` (read it). Converting is synchronous: a wider one would block the thread.
    pub fn unread_if_wide(entries: usize) -> Option<HostData> {
        (entries > MAX_ENTRIES).then_some(HostData::Wide(entries))
    }

    /// `Absent` or `Null`.
    pub fn is_nil(&self) -> bool {
        matches!(self, HostData::Absent | HostData::Null)
    }

    /// A short form for error messages. A list's or map's contents are left out: they may carry
    /// a context's hash, and store errors are logged.
    pub fn describe(&self) -> String {
        match self {
            HostData::Absent => "undefined".into(),
            HostData::Null => "null".into(),
            HostData::Bool(b) => format!("a boolean {b}"),
            HostData::Number(n) => format!("a number {}", crate::util::text::number(*n)),
            HostData::Text(t) => format!("a string {}", crate::util::text::quoted(t)),
            HostData::List(items) => format!("a list of {}", items.len()),
            HostData::Map(_) => "an object".into(),
            HostData::Other(o) => o.clone(),
            HostData::Wide(n) => format!("a list of {n} entries, unread"),
        }
    }

    /// The integer this is, when it is a number that is one (JavaScript's safe range).
    pub fn integer(&self) -> Option<i64> {
        match self {
            HostData::Number(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => Some(*n as i64),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::HostData::*;

    #[test]
    fn fields_of_maps_only_and_descriptions_without_contents() {
        let map = Map(vec![("a".into(), Text("x".into())), ("b".into(), Null)]);
        assert_eq!(map.field("a"), &Text("x".into()));
        assert_eq!(map.field("b"), &Null);
        assert_eq!(map.field("c"), &Absent);
        assert_eq!(List(vec![]).field("a"), &Absent);
        assert!(Null.is_nil() && Absent.is_nil() && !Text(String::new()).is_nil());
        assert_eq!(map.describe(), "an object");
        assert_eq!(List(vec![Text("secret".into())]).describe(), "a list of 1");
        assert_eq!(Text("a\"b".into()).describe(), "a string \"a\\\"b\"");
        assert_eq!(Number(12.5).describe(), "a number 12.5");
        assert_eq!(Bool(true).describe(), "a boolean true");
        assert_eq!(Number(5.0).integer(), Some(5));
        assert_eq!(Number(5.5).integer(), None);
        assert_eq!(Text("5".into()).integer(), None);
    }

    #[test]
    fn lists_and_maps_wider_than_the_membership_bound_are_left_unread() {
        use crate::segments::membership::MAX_ENTRIES;
        assert_eq!(super::HostData::unread_if_wide(MAX_ENTRIES), None);
        assert_eq!(super::HostData::unread_if_wide(MAX_ENTRIES + 1), Some(Wide(MAX_ENTRIES + 1)));
        assert_eq!(Wide(100_000).describe(), "a list of 100000 entries, unread");
    }
}
