//! A fixed-memory latency histogram: log-spaced buckets 4% wide, so any percentile it reports
//! is within 2% of a value that was recorded.
//!
//! Mergeable: its wire form (`to_wire`, `from_wire`) is the fleet's (src/fleet), where the
//! histograms of many processes are added bucket by bucket, so a fleet's percentiles are those
//! of all its calls, not an average of each process's. `since` is the histogram of what was
//! recorded between two copies (the console's per-second percentiles).

/// Smallest resolved latency (1 µs); anything below lands in the first bucket.
const FLOOR_MS: f64 = 0.001;
/// Bucket growth factor; reporting the geometric middle bounds the relative error by
/// sqrt(1.04) - 1 < 2%.
const GROWTH: f64 = 1.04;
/// 0.001 ms × 1.04^720 is about 19 days: everything realistic fits.
pub(crate) const BUCKETS: usize = 720;

#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u32>,
    count: u64,
    sum: f64,
    min: f64,
    max: f64,
}

/// The summary `stats()` reports.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

/// The bucket `ms` falls in.
pub(crate) fn bucket_of(ms: f64) -> usize {
    if ms < FLOOR_MS {
        return 0;
    }
    let i = ((ms / FLOOR_MS).ln() / GROWTH.ln()).floor() + 1.0;
    if i.is_finite() && i < (BUCKETS - 1) as f64 {
        i as usize
    } else {
        BUCKETS - 1
    }
}

/// What a bucket reports: its geometric middle.
pub(crate) fn middle_of(bucket: usize) -> f64 {
    FLOOR_MS * GROWTH.powf(bucket as f64 - 0.5)
}

/// The smallest value bucket `bucket` holds (0 for the first).
fn lower_of(bucket: usize) -> f64 {
    if bucket == 0 {
        0.0
    } else {
        FLOOR_MS * GROWTH.powf(bucket as f64 - 1.0)
    }
}

/// The head of the wire form: count, sum, min, max; then (bucket, count) pairs.
const WIRE_HEAD: usize = 4;

/// A whole number in `0..=max`, or `None`.
fn whole(x: f64, max: f64) -> Option<f64> {
    (x.is_finite() && x >= 0.0 && x <= max && x.fract() == 0.0).then_some(x)
}

impl Histogram {
    pub fn record(&mut self, ms: f64) {
        if !ms.is_finite() || ms < 0.0 {
            return;
        }
        if self.counts.is_empty() {
            self.counts = vec![0; BUCKETS];
            self.min = ms;
            self.max = ms;
        }
        if let Some(c) = self.counts.get_mut(bucket_of(ms)) {
            *c = c.saturating_add(1);
        }
        self.count += 1;
        self.sum += ms;
        self.min = self.min.min(ms);
        self.max = self.max.max(ms);
    }

    fn percentile(&self, p: f64) -> f64 {
        let rank = ((p * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0u64;
        for (bucket, &c) in self.counts.iter().enumerate() {
            seen += u64::from(c);
            if seen >= rank {
                if bucket == 0 {
                    return self.min;
                }
                // max/min rather than f64::clamp: clamp's assertion would pull float
                // formatting into the wasm binary.
                return middle_of(bucket).max(self.min).min(self.max);
            }
        }
        self.max
    }

    /// The wire form: `[count, sum, min, max]`, then `bucket, count` for each bucket that holds
    /// anything, in ascending order (`[0, 0, 0, 0]` when nothing was recorded). Typically a few
    /// dozen numbers: latencies of one origin span few buckets.
    pub fn to_wire(&self) -> Vec<f64> {
        let mut wire = vec![self.count as f64, self.sum, self.min, self.max];
        for (bucket, &n) in self.counts.iter().enumerate() {
            if n > 0 {
                wire.push(bucket as f64);
                wire.push(f64::from(n));
            }
        }
        wire
    }

    /// Reads a wire form back; `None` for anything `to_wire` could not have written (another
    /// process's data is outside data): a bucket out of range or out of order, a count that is
    /// not a whole number or does not add up, a non-finite or negative figure.
    pub fn from_wire(wire: &[f64]) -> Option<Histogram> {
        let (head, pairs) = (wire.get(..WIRE_HEAD)?, wire.get(WIRE_HEAD..)?);
        let &[count, sum, min, max] = head else { return None };
        let count = whole(count, 9_007_199_254_740_991.0)?;
        if pairs.len() % 2 != 0 || !(sum.is_finite() && min.is_finite() && max.is_finite()) {
            return None;
        }
        if count == 0.0 {
            return (pairs.is_empty() && sum == 0.0).then(Histogram::default);
        }
        if sum < 0.0 || min < 0.0 || min > max {
            return None;
        }
        let mut counts = vec![0u32; BUCKETS];
        let (mut total, mut last) = (0u64, None);
        for pair in pairs.chunks_exact(2) {
            let &[bucket, n] = pair else { return None };
            let bucket = whole(bucket, (BUCKETS - 1) as f64)? as usize;
            let n = whole(n, f64::from(u32::MAX))? as u32;
            if n == 0 || last.is_some_and(|l| l >= bucket) {
                return None;
            }
            last = Some(bucket);
            *counts.get_mut(bucket)? = n;
            total += u64::from(n);
        }
        (total as f64 == count).then_some(Histogram { counts, count: total, sum, min, max })
    }

    /// Adds `other`'s recordings to these, bucket by bucket: percentiles of the merge are those
    /// of every value either recorded (within the same 2%).
    pub fn merge(&mut self, other: &Histogram) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = other.clone();
            return;
        }
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts.iter()) {
            *mine = mine.saturating_add(*theirs);
        }
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// What was recorded after `earlier`, a copy of this histogram taken before: the buckets'
    /// differences, the window's smallest and largest values known to the bucket. When
    /// `earlier` holds something this does not (the statistics were reset in between), the
    /// window is all of this histogram.
    pub fn since(&self, earlier: &Histogram) -> Histogram {
        let reset = earlier.count > self.count
            || (earlier.count > 0 && earlier.counts.iter().zip(self.counts.iter()).any(|(e, n)| e > n));
        if reset || earlier.count == 0 {
            return self.clone();
        }
        let counts: Vec<u32> =
            self.counts.iter().zip(earlier.counts.iter()).map(|(n, e)| n.saturating_sub(*e)).collect();
        let count: u64 = counts.iter().map(|&n| u64::from(n)).sum();
        if count == 0 {
            return Histogram::default();
        }
        let first = counts.iter().position(|&n| n > 0).unwrap_or(0);
        let last = counts.iter().rposition(|&n| n > 0).unwrap_or(0);
        let min = lower_of(first).max(self.min);
        let max = lower_of(last + 1).min(self.max);
        Histogram { counts, count, sum: (self.sum - earlier.sum).max(0.0), min, max }
    }

    /// `None` when nothing was recorded.
    pub fn summary(&self) -> Option<LatencySummary> {
        if self.count == 0 {
            return None;
        }
        Some(LatencySummary {
            count: self.count,
            mean: self.sum / self.count as f64,
            p50: self.percentile(0.50),
            p90: self.percentile(0.90),
            p99: self.percentile(0.99),
            max: self.max,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_reports_nothing() {
        assert_eq!(Histogram::default().summary(), None);
    }

    #[test]
    fn percentiles_within_two_percent() {
        let mut h = Histogram::default();
        for i in 1..=10_000 {
            h.record(i as f64 * 0.01);
        }
        let s = h.summary().unwrap();
        assert_eq!(s.count, 10_000);
        assert!((s.mean - 50.005).abs() < 1e-9);
        for (got, want) in [(s.p50, 50.0), (s.p90, 90.0), (s.p99, 99.0)] {
            assert!((got - want).abs() / want <= 0.02, "{got} vs {want}");
        }
        assert_eq!(s.max, 100.0);
    }

    #[test]
    fn single_value_is_exact_and_junk_is_ignored() {
        let mut h = Histogram::default();
        h.record(3.3);
        h.record(f64::NAN);
        h.record(-1.0);
        let s = h.summary().unwrap();
        assert_eq!((s.count, s.p50, s.p99, s.max), (1, 3.3, 3.3, 3.3));
    }

    #[test]
    fn extremes_stay_in_range() {
        let mut h = Histogram::default();
        h.record(0.0);
        h.record(1e12);
        let s = h.summary().unwrap();
        assert_eq!(s.p50, 0.0);
        assert_eq!(s.max, 1e12);
    }

    fn recorded(values: impl IntoIterator<Item = f64>) -> Histogram {
        let mut h = Histogram::default();
        values.into_iter().for_each(|v| h.record(v));
        h
    }

    #[test]
    fn the_wire_form_round_trips_and_is_sparse() {
        let h = recorded([1.0, 1.0, 2.5, 300.0]);
        let wire = h.to_wire();
        assert_eq!(wire.len(), 4 + 2 * 3, "{wire:?}");
        assert_eq!(wire[..4], [4.0, 304.5, 1.0, 300.0]);
        let back = Histogram::from_wire(&wire).unwrap();
        assert_eq!(back.summary(), h.summary());
        assert_eq!(Histogram::default().to_wire(), vec![0.0; 4]);
        assert_eq!(Histogram::from_wire(&[0.0; 4]).unwrap().summary(), None);
    }

    #[test]
    fn a_wire_form_it_could_not_have_written_is_refused() {
        let good = recorded([1.0, 2.0]).to_wire();
        let mut bad: Vec<Vec<f64>> = vec![vec![], vec![1.0, 1.0, 1.0], good[..5].to_vec()];
        for (at, value) in
            [(0, 3.0), (0, -1.0), (0, 1.5), (1, f64::NAN), (2, 5.0), (4, 720.0), (4, -1.0), (5, 0.0), (5, 0.5)]
        {
            let mut w = good.clone();
            w[at] = value;
            bad.push(w);
        }
        let mut unordered = good.clone();
        unordered.swap(4, 6);
        unordered.swap(5, 7);
        bad.push(unordered);
        bad.push(vec![0.0, 1.0, 0.0, 0.0]);
        for wire in bad {
            assert!(Histogram::from_wire(&wire).is_none(), "{wire:?}");
        }
    }

    #[test]
    fn merged_percentiles_are_those_of_all_values_not_an_average() {
        // One process saw 99 fast calls, another one slow call: the p99 of the fleet is fast, the
        // max slow; averaging each one's p99 would say about 500.
        let fast = recorded((0..99).map(|_| 1.0));
        let slow = recorded([1000.0]);
        let mut fleet = Histogram::default();
        for h in [&fast, &slow] {
            fleet.merge(&Histogram::from_wire(&h.to_wire()).unwrap());
        }
        let s = fleet.summary().unwrap();
        assert_eq!((s.count, s.max), (100, 1000.0));
        assert!(s.p50 <= 1.02 && s.p99 <= 1.02, "{s:?}");
        // Merging equals recording everything in one histogram.
        let mut a = recorded((1..=500).map(|i| i as f64 * 0.1));
        let b = recorded((501..=1000).map(|i| i as f64 * 0.1));
        a.merge(&b);
        assert_eq!(a.summary(), recorded((1..=1000).map(|i| i as f64 * 0.1)).summary());
        let mut empty = Histogram::default();
        empty.merge(&Histogram::default());
        assert_eq!(empty.summary(), None);
    }

    #[test]
    fn since_is_the_window_between_two_copies() {
        let mut h = recorded((0..1000).map(|_| 1.0));
        let earlier = h.clone();
        for _ in 0..10 {
            h.record(50.0);
        }
        let window = h.since(&earlier).summary().unwrap();
        assert_eq!(window.count, 10);
        assert!((window.p50 - 50.0).abs() / 50.0 <= 0.02, "{window:?}");
        assert!((window.mean - 50.0).abs() < 1e-9);
        // Nothing new: nothing in the window.
        assert_eq!(h.since(&h.clone()).summary(), None);
        // After a reset the window is what is there now.
        let reset = recorded([7.0]);
        assert_eq!(reset.since(&earlier).summary(), reset.summary());
        assert_eq!(Histogram::default().since(&earlier).summary(), None);
    }
}
