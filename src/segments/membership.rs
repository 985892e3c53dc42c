//! What counts in a store's membership answer: an entry (segment reference → value) counts
//! only when its value is a boolean (`true` included, `false` excluded); any other value, and
//! an entry the host could not read, is left out. And how wide an answer may be: one of more
//! than [`MAX_ENTRIES`] entries is a store error, refused before any entry is read.

use std::fmt;

/// The most entries a membership answer may have (a JavaScript store's answer: its own
/// enumerable keys; a Redis or DynamoDB store's: its included and excluded refs together, and
/// each set or string set alone). Converting an answer is synchronous, so no timer
/// (`queryTimeoutMs`) can cut it short: 100,000 entries from a JavaScript store took longer than
/// 150 ms (docs/HARDENING.md), 10,000 take a few ms. A context is rarely in more than a few
/// dozen Big Segments.
pub const MAX_ENTRIES: usize = 10_000;

/// A membership answer wider than [`MAX_ENTRIES`], refused unread: who answered it (`owner`)
/// and how many entries it had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooWide {
    pub owner: &'static str,
    pub entries: usize,
}

impl fmt::Display for TooWide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} answered a membership of {} entries, more than the bound of {MAX_ENTRIES}; refused unread",
            self.owner, self.entries
        )
    }
}

impl std::error::Error for TooWide {}

/// `Ok` when an answer of `entries` entries may be read; else the error that refuses it.
pub fn within_bound(owner: &'static str, entries: usize) -> Result<(), TooWide> {
    if entries > MAX_ENTRIES {
        Err(TooWide { owner, entries })
    } else {
        Ok(())
    }
}

/// The entries of a membership answer that count, in the order given. `entries` pairs each
/// key with its value read as a boolean (`None`: not a boolean, or its read failed).
pub fn counted_entries<K>(entries: impl IntoIterator<Item = (K, Option<bool>)>) -> Vec<(K, bool)> {
    entries.into_iter().filter_map(|(key, value)| value.map(|included| (key, included))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_boolean_values_count_in_order() {
        let answer = [("a.g1", Some(true)), ("b.g1", None), ("c.g2", Some(false)), ("d.g1", None)];
        assert_eq!(counted_entries(answer), vec![("a.g1", true), ("c.g2", false)]);
        assert!(counted_entries(Vec::<(String, Option<bool>)>::new()).is_empty());
    }

    #[test]
    fn answers_up_to_the_bound_are_read_wider_ones_refused_naming_owner_bound_and_value() {
        assert_eq!(within_bound("store.getMembership", 0), Ok(()));
        assert_eq!(within_bound("store.getMembership", MAX_ENTRIES), Ok(()));
        let refused = within_bound("store.getMembership", 100_000).unwrap_err();
        assert_eq!(refused, TooWide { owner: "store.getMembership", entries: 100_000 });
        assert_eq!(
            refused.to_string(),
            "store.getMembership answered a membership of 100000 entries, more than the bound of 10000; refused unread"
        );
        assert!(within_bound("x", MAX_ENTRIES + 1).is_err());
    }
}
