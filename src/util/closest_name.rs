//! The known name closest to a misspelt one, for "did you mean …?" in error messages.
//!
//! Closeness is the Levenshtein distance (insertions, deletions and substitutions of a byte, each
//! costing 1), with ASCII letters compared without their case, so `QueryTimeoutMs` is at
//! distance 0 from `queryTimeoutMs`, `queryTimeout` at 2 and `singal` (two letters swapped) at 2
//! from `signal`. It is counted in bytes: every name cutover knows is ASCII, and a key that is
//! not is only further from them.
//!
//! Only a close name is suggested: the distance may be at most a third of the shorter name's
//! length, at least 1 and at most 3 ([`max_distance`]). So `queryTimeout` (a unit suffix
//! missing) and `sigal` (a letter dropped) find their name, while `timer` is not taken for
//! `meter`. Between equally close names, one that the key begins or is the beginning of wins
//! (`contextCacheTime` is two edits from both `contextCacheTimeMs` and `contextCacheSize`, and the
//! beginning of the first); when that does not decide, neither is suggested: a guess between two
//! is no help.
//!
//! Written small rather than fast (it runs only when a call is refused): the first version, the
//! optimal-string-alignment distance over Vecs of `char`, cost 3.2 KB of gzipped wasm (npm
//! tarball 117,626 → 120,975 B with the rest of the change, over its 120,000 B bound); this one
//! with the rest, 119,607 B.

/// The largest distance suggested between two names whose shorter one has `shorter_len` bytes.
pub fn max_distance(shorter_len: usize) -> usize {
    (shorter_len / 3).clamp(1, 3)
}

/// Whether `text` begins with `start`, ASCII case aside.
fn begins(text: &[u8], start: &[u8]) -> bool {
    text.get(..start.len()).is_some_and(|p| p.eq_ignore_ascii_case(start))
}

/// The one name of `known` closest to `key` within [`max_distance`], or `None` when none is that
/// close or two are equally close.
pub fn closest_name(key: &str, known: &[&'static str]) -> Option<&'static str> {
    let key = key.as_bytes();
    // The best rank so far, (distance, whether neither of key and name begins the other): lower is closer.
    let mut best: Option<((usize, bool), &'static str)> = None;
    let mut tied = false;
    for &name in known {
        let bytes = name.as_bytes();
        let bound = max_distance(key.len().min(bytes.len()));
        // The lengths alone put a name out of reach: no table to fill (and none for a long key).
        if key.len().abs_diff(bytes.len()) > bound {
            continue;
        }
        let distance = edit_distance(key, bytes);
        if distance > bound {
            continue;
        }
        let rank = (distance, !(begins(bytes, key) || begins(key, bytes)));
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

/// The longest name the table is filled for; a longer one is as far as its length.
const MAX_LEN: usize = 31;

/// The Levenshtein distance between `a` and `b` (ASCII case aside), the table kept as one row:
/// before byte i of `a`, `row[j]` is the distance from a's first i bytes to b's first j. Names
/// longer than [`MAX_LEN`] are given the largest distance they could have.
pub fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    if a.len() > MAX_LEN || b.len() > MAX_LEN {
        return a.len().max(b.len());
    }
    let mut row = [0u8; MAX_LEN + 1];
    for (j, d) in row.iter_mut().enumerate() {
        *d = j as u8;
    }
    for (i, &ac) in a.iter().enumerate() {
        let mut diagonal = i as u8; // row[j] of the row before, for the cell at j + 1
        let mut left = diagonal + 1; // the new row[j]
        row[0] = left;
        for (j, &bc) in b.iter().enumerate() {
            let Some(cell) = row.get_mut(j + 1) else { break };
            let d = (diagonal + u8::from(!ac.eq_ignore_ascii_case(&bc))).min(*cell + 1).min(left + 1);
            diagonal = *cell;
            *cell = d;
            left = d;
        }
    }
    row.get(b.len()).map_or(0, |&d| usize::from(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance(a: &str, b: &str) -> usize {
        edit_distance(a.as_bytes(), b.as_bytes())
    }

    #[test]
    fn the_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("abc", ""), 3);
        assert_eq!(distance("signal", "signal"), 0);
        assert_eq!(distance("sigal", "signal"), 1);
        assert_eq!(distance("signall", "signal"), 1);
        assert_eq!(distance("sigmal", "signal"), 1);
        assert_eq!(distance("singal", "signal"), 2, "a swap of neighbours is two edits");
        assert_eq!(distance("queryTimeout", "queryTimeoutMs"), 2);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("ca", "abc"), 3);
        assert_eq!(distance(&"a".repeat(40), "a"), 40, "beyond the table: the longer length");
        assert_eq!(distance("héllo", "hello"), 2, "bytes: é is two");
        assert_eq!(distance("QUERY", "query"), 0, "ASCII case aside");
    }

    #[test]
    fn the_bound_is_a_third_of_the_shorter_name_between_one_and_three() {
        assert_eq!(max_distance(0), 1);
        assert_eq!(max_distance(5), 1);
        assert_eq!(max_distance(6), 2);
        assert_eq!(max_distance(9), 3);
        assert_eq!(max_distance(40), 3);
    }

    /// BigSegmentStoreManager's names (src/options.rs).
    const MANAGER: &[&str] = &["store", "contextCacheSize", "contextCacheTimeMs", "statusPollIntervalMs"];
    const MANAGER_MORE: &[&str] = &["staleAfterMs", "queryTimeoutMs", "logger", "meter"];

    fn manager() -> Vec<&'static str> {
        [MANAGER, MANAGER_MORE].concat()
    }
    #[test]
    fn a_close_name_is_suggested() {
        assert_eq!(closest_name("queryTimeout", &manager()), Some("queryTimeoutMs"));
        assert_eq!(closest_name("staleAfter", &manager()), Some("staleAfterMs"));
        assert_eq!(closest_name("statusPollInterval", &manager()), Some("statusPollIntervalMs"));
        assert_eq!(closest_name("contextCacheTime", &manager()), Some("contextCacheTimeMs"));
        assert_eq!(closest_name("stor", &manager()), Some("store"));
        assert_eq!(closest_name("loger", &manager()), Some("logger"));
        assert_eq!(closest_name("meters", &manager()), Some("meter"));
        assert_eq!(closest_name("singal", &["signal"]), Some("signal"));
    }

    #[test]
    fn case_alone_makes_no_distance() {
        assert_eq!(closest_name("QueryTimeoutMs", &manager()), Some("queryTimeoutMs"));
        assert_eq!(closest_name("querytimeoutms", &manager()), Some("queryTimeoutMs"));
        assert_eq!(closest_name("STORE", &manager()), Some("store"));
    }

    #[test]
    fn a_far_name_is_not_suggested() {
        assert_eq!(closest_name("timeout", &manager()), None);
        assert_eq!(closest_name("timer", &manager()), None, "two edits are too many for a five-letter name");
        assert_eq!(closest_name("userCacheSize", &manager()), None);
        assert_eq!(closest_name("queryTimeoutMillis", &manager()), None);
        assert_eq!(closest_name("", &manager()), None);
        assert_eq!(closest_name("x", &manager()), None);
        assert_eq!(closest_name(&"q".repeat(100_000), &manager()), None, "a long key is ruled out by its length");
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
        assert_eq!(closest_name("contextCacheSiz", &manager()), Some("contextCacheSize"));
        assert_eq!(closest_name("contextCacheTimeM", &manager()), Some("contextCacheTimeMs"));
        // Two edits from both contextCacheTimeMs and contextCacheSize: the one it begins, or that begins it, wins.
        assert_eq!(closest_name("contextCacheTime", &manager()), Some("contextCacheTimeMs"));
        assert_eq!(closest_name("contextCacheSizeMs", &manager()), Some("contextCacheSize"));
    }
}
