//! An in-place heapsort, for its size: the standard library's `sort_unstable_by` was 4.9 KB of
//! wasm (quicksort, small-sorts, pivot choice) for the one sort in the package, a membership's
//! refs once per store read (tarball 115,081 → 112,754 B).

use std::cmp::Ordering;

/// Sorts `v` by `cmp`, not stably (elements `cmp` calls equal may end up in any order).
pub fn sort_unstable_by<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let less = |v: &[T], a: usize, b: usize| match (v.get(a), v.get(b)) {
        (Some(x), Some(y)) => cmp(x, y) == Ordering::Less,
        _ => false,
    };
    // Moves v[node] down the max-heap v[..len] until neither child is greater.
    let sift_down = |v: &mut [T], mut node: usize, len: usize| loop {
        let mut child = 2 * node + 1;
        if child >= len {
            break;
        }
        if child + 1 < len && less(v, child, child + 1) {
            child += 1;
        }
        if !less(v, node, child) {
            break;
        }
        v.swap(node, child);
        node = child;
    };
    let len = v.len();
    for node in (0..len / 2).rev() {
        sift_down(v, node, len);
    }
    for end in (1..len).rev() {
        v.swap(0, end);
        sift_down(v, 0, end);
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sorts_as_the_standard_library_does(mut v in proptest::collection::vec((any::<u8>(), any::<bool>()), 0..200)) {
            let mut expected = v.clone();
            expected.sort_unstable();
            super::sort_unstable_by(&mut v, |a, b| a.cmp(b));
            prop_assert_eq!(v, expected);
        }
    }
}
