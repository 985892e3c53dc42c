//! The known name closest to a misspelt one, for "did you mean …?" in error messages.
//!
//! Closeness is the optimal-string-alignment distance (Damerau–Levenshtein without edits of a
//! substring twice: insertions, deletions, substitutions and swaps of two neighbouring
//! characters, each costing 1), with ASCII letters compared without their case, so
//! `QueryTimeoutMs` is at distance 0 from `queryTimeoutMs` and `queryTimeout` at 2.
//!
//! Only a close name is suggested: the distance may be at most a third of the shorter name's
//! length in characters, at least 1 and at most 3 ([`max_distance`]). So `queryTimeout` (a unit
//! suffix missing) and `sigal` (a letter dropped) find their name, while `timer` is not taken
//! for `meter`. Between equally close names, one that the key begins or is the beginning of wins
//! (`contextCacheTime` is two edits from both `contextCacheTimeMs` and `contextCacheSize`, and the
//! beginning of the first); when that does not decide, neither is suggested: a guess between two
//! is no help.

/// The largest distance suggested between two names whose shorter one has `shorter_len` characters.
pub fn max_distance(shorter_len: usize) -> usize {
    (shorter_len / 3).clamp(1, 3)
}

/// The one name of `known` closest to `key` within [`max_distance`], or `None` when none is that
/// close or two are equally close.
pub fn closest_name(key: &str, known: &[&'static str]) -> Option<&'static str> {
    let key: Vec<char> = key.chars().map(|c| c.to_ascii_lowercase()).collect();
    // The best rank so far, (distance, whether neither of key and name begins the other): lower is closer.
    let mut best: Option<((usize, bool), &'static str)> = None;
    let mut tied = false;
    for &name in known {
        let name_chars: Vec<char> = name.chars().map(|c| c.to_ascii_lowercase()).collect();
        let bound = max_distance(key.len().min(name_chars.len()));
        // The lengths alone put a name out of reach: no table to fill (and none for a long key).
        if key.len().abs_diff(name_chars.len()) > bound {
            continue;
        }
        let distance = edit_distance(&key, &name_chars);
        if distance > bound {
            continue;
        }
        let rank = (distance, !(name_chars.starts_with(&key) || key.starts_with(&name_chars)));
        match best {
            Some((r, _)) if rank > r => {}
            Some((r, _)) if rank == r => tied = true,
            _ => {
                best = Some((rank, name));
                tied = false;
            }
        }
    }
    if tied {
        None
    } else {
        best.map(|(_, name)| name)
    }
}

/// The optimal-string-alignment distance between `a` and `b`, computed a row of the table at a
/// time: row i holds the distances from a's first i characters to each of b's prefixes.
pub fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut before: Vec<usize> = Vec::new(); // row i - 1 (none yet)
    let mut previous: Vec<usize> = (0..=b.len()).collect(); // row i
    for (i, &ac) in a.iter().enumerate() {
        let mut row = Vec::with_capacity(b.len() + 1);
        row.push(i + 1);
        for (j, &bc) in b.iter().enumerate() {
            let substitution = previous.get(j).map_or(usize::MAX, |d| d + usize::from(ac != bc));
            let deletion = previous.get(j + 1).map_or(usize::MAX, |d| d + 1);
            let insertion = row.get(j).map_or(usize::MAX, |d| d + 1);
            let mut d = substitution.min(deletion).min(insertion);
            let swapped = i > 0 && j > 0 && a.get(i - 1) == Some(&bc) && b.get(j - 1) == Some(&ac);
            if swapped {
                d = d.min(before.get(j - 1).map_or(usize::MAX, |d| d + 1));
            }
            row.push(d);
        }
        before = std::mem::replace(&mut previous, row);
    }
    previous.get(b.len()).copied().unwrap_or(a.len().max(b.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        edit_distance(&a, &b)
    }

    #[test]
    fn the_distance_counts_insertions_deletions_substitutions_and_swaps() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("abc", ""), 3);
        assert_eq!(distance("signal", "signal"), 0);
        assert_eq!(distance("sigal", "signal"), 1);
        assert_eq!(distance("signall", "signal"), 1);
        assert_eq!(distance("sigmal", "signal"), 1);
        assert_eq!(distance("singal", "signal"), 1, "a swap of neighbours is one edit");
        assert_eq!(distance("queryTimeout", "queryTimeoutMs"), 2);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("ca", "abc"), 3, "optimal string alignment edits no substring twice");
        assert_eq!(distance("héllo", "hello"), 1, "characters, not bytes");
    }

    #[test]
    fn the_bound_is_a_third_of_the_shorter_name_between_one_and_three() {
        assert_eq!(max_distance(0), 1);
        assert_eq!(max_distance(5), 1);
        assert_eq!(max_distance(6), 2);
        assert_eq!(max_distance(9), 3);
        assert_eq!(max_distance(40), 3);
    }

    const MANAGER: &[&str] = &[
        "store",
        "contextCacheSize",
        "contextCacheTimeMs",
        "statusPollIntervalMs",
        "staleAfterMs",
        "queryTimeoutMs",
        "logger",
        "meter",
    ];

    #[test]
    fn a_close_name_is_suggested() {
        assert_eq!(closest_name("queryTimeout", MANAGER), Some("queryTimeoutMs"));
        assert_eq!(closest_name("staleAfter", MANAGER), Some("staleAfterMs"));
        assert_eq!(closest_name("statusPollInterval", MANAGER), Some("statusPollIntervalMs"));
        assert_eq!(closest_name("contextCacheTime", MANAGER), Some("contextCacheTimeMs"));
        assert_eq!(closest_name("stor", MANAGER), Some("store"));
        assert_eq!(closest_name("loger", MANAGER), Some("logger"));
        assert_eq!(closest_name("meters", MANAGER), Some("meter"));
    }

    #[test]
    fn case_alone_makes_no_distance() {
        assert_eq!(closest_name("QueryTimeoutMs", MANAGER), Some("queryTimeoutMs"));
        assert_eq!(closest_name("querytimeoutms", MANAGER), Some("queryTimeoutMs"));
        assert_eq!(closest_name("STORE", MANAGER), Some("store"));
    }

    #[test]
    fn a_far_name_is_not_suggested() {
        assert_eq!(closest_name("timeout", MANAGER), None);
        assert_eq!(closest_name("timer", MANAGER), None, "two edits are too many for a five-letter name");
        assert_eq!(closest_name("userCacheSize", MANAGER), None);
        assert_eq!(closest_name("queryTimeoutMillis", MANAGER), None);
        assert_eq!(closest_name("", MANAGER), None);
        assert_eq!(closest_name("x", MANAGER), None);
        assert_eq!(closest_name(&"q".repeat(100_000), MANAGER), None, "a long key is ruled out by its length");
        assert_eq!(closest_name("store", &[]), None);
    }

    #[test]
    fn two_equally_close_names_suggest_neither() {
        assert_eq!(closest_name("readXld", &["readNew", "readOld"]), Some("readOld"));
        assert_eq!(closest_name("store", &["stores", "storey"]), None);
        assert_eq!(closest_name("Stores", &["stores", "storey"]), Some("stores"));
        assert_eq!(closest_name("stor", &["stored", "store"]), Some("store"));
        assert_eq!(closest_name("writeNed", &["writeNew", "writeOld"]), Some("writeNew"));
    }

    #[test]
    fn the_nearest_of_several_close_names_wins() {
        // `contextCacheSiz` is one edit from contextCacheSize and further from contextCacheTimeMs.
        assert_eq!(closest_name("contextCacheSiz", MANAGER), Some("contextCacheSize"));
        assert_eq!(closest_name("contextCacheTimeM", MANAGER), Some("contextCacheTimeMs"));
        // Two edits from both contextCacheTimeMs and contextCacheSize: the one it begins, or that begins it, wins.
        assert_eq!(closest_name("contextCacheTime", MANAGER), Some("contextCacheTimeMs"));
        assert_eq!(closest_name("contextCacheSizeMs", MANAGER), Some("contextCacheSize"));
    }
}
