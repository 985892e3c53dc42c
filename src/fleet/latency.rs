//! Latency figures over histograms in their wire form: a fleet's (many processes' histograms
//! merged) and a window's (what one histogram recorded since an earlier copy of it).

use crate::util::histogram::{Histogram, LatencySummary};

/// The summary of every histogram in `wires` merged, with how many wires were unreadable (left
/// out: another process's data is outside data). `None` when nothing was recorded.
pub fn merged<'w>(wires: impl IntoIterator<Item = &'w [f64]>) -> (Option<LatencySummary>, usize) {
    let mut all = Histogram::default();
    let mut unreadable = 0;
    for wire in wires {
        match Histogram::from_wire(wire) {
            Some(h) => all.merge(&h),
            None => unreadable += 1,
        }
    }
    (all.summary(), unreadable)
}

/// The summary of what `current` recorded since `previous` (both wire forms of one histogram,
/// `previous` the older); `None` when nothing new was recorded or a wire is unreadable.
pub fn window(current: &[f64], previous: &[f64]) -> Option<LatencySummary> {
    let now = Histogram::from_wire(current)?;
    let before = Histogram::from_wire(previous)?;
    now.since(&before).summary()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(values: &[f64]) -> Vec<f64> {
        let mut h = Histogram::default();
        values.iter().for_each(|v| h.record(*v));
        h.to_wire()
    }

    #[test]
    fn three_processes_merge_to_the_percentiles_of_all_their_calls() {
        let a = wire(&[10.0; 50]);
        let b = wire(&[20.0; 30]);
        let c = wire(&[400.0; 20]);
        let (summary, unreadable) = merged([a.as_slice(), b.as_slice(), c.as_slice()]);
        let s = summary.unwrap();
        assert_eq!((s.count, unreadable), (100, 0));
        assert!((s.p50 - 10.0).abs() / 10.0 <= 0.02, "{s:?}");
        assert!((s.p90 - 400.0).abs() / 400.0 <= 0.02, "{s:?}");
        assert_eq!(s.max, 400.0);
        assert!((s.mean - (500.0 + 600.0 + 8000.0) / 100.0).abs() < 1e-9);
    }

    #[test]
    fn an_unreadable_wire_is_left_out_and_counted() {
        let a = wire(&[5.0]);
        let junk = [1.0, 2.0, 3.0];
        let (summary, unreadable) = merged([a.as_slice(), &junk[..]]);
        assert_eq!((summary.map(|s| s.count), unreadable), (Some(1), 1));
        assert_eq!(merged(std::iter::empty()), (None, 0));
    }

    #[test]
    fn a_window_is_what_was_recorded_in_between() {
        let before = wire(&[1.0; 100]);
        let mut values = vec![1.0; 100];
        values.extend([30.0; 5]);
        let s = window(&wire(&values), &before).unwrap();
        assert_eq!(s.count, 5);
        assert!((s.p99 - 30.0).abs() / 30.0 <= 0.02, "{s:?}");
        assert_eq!(window(&before, &before), None);
        assert_eq!(window(&[9.0], &before), None);
    }
}
