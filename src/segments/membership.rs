//! What counts in a store's membership answer: an entry (segment reference → value) counts
//! only when its value is a boolean (`true` included, `false` excluded); any other value, and
//! an entry the host could not read, is left out.

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
}
