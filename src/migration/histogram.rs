//! A fixed-memory latency histogram: log-spaced buckets 4% wide, so any percentile it reports
//! is within 2% of a value that was recorded.

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
}
