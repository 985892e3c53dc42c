//! A guard's sliding window: `SLOTS` buckets of `windowMs / SLOTS` each, with running totals, so
//! that its memory is fixed whatever the traffic (never a list of calls). A bucket's counts leave
//! the totals when time moves past it: the window covers the last `windowMs` to within one
//! bucket.
//!
//! The window reads the clock at every `CLOCK_EVERY`th outcome, not at each: a clock read costs
//! about 50 ns in Node 20 (`performance.now()` and `Date.now()` alike), which was half of what a
//! closed guard added to a fixed-stage shadow read (1.28 → 1.39 µs; 1.26 without the read, same
//! process, interleaved). Which outcomes read it depends on their count, not on what they were,
//! so the counts stay unbiased; an outcome may be counted in the bucket of up to
//! `CLOCK_EVERY - 1` outcomes before it, which only matters where a bucket (5 s by default) sees
//! fewer outcomes than that.
//!
//! Latencies are kept only when the guard judges `maxLatencyRatio`, as bucket counts in the
//! buckets of `histogram.rs` taken `MERGED` at a time (about ±8 % for a p99, plenty for a ratio
//! bound): 180 counts per origin and bucket, allocated when first used — at most about 18 KB
//! per flag key against 75 KB at the statistics' resolution.

use crate::host::Clock;
use crate::migration::histogram::{bucket_of, middle_of, BUCKETS};

/// Buckets per window.
pub const SLOTS: usize = 12;
/// Outcomes per clock read.
const CLOCK_EVERY: u32 = 8;
/// Histogram buckets per latency count.
const MERGED: usize = 4;
const LATENCY_COUNTS: usize = BUCKETS / MERGED;

/// What one operation brought the guard, noted as its origins settled.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Note {
    /// The new origin was called: whether it failed.
    pub new_failed: Option<bool>,
    pub old_ms: Option<f64>,
    pub new_ms: Option<f64>,
    /// A consistency check ran: whether the reads were consistent.
    pub consistent: Option<bool>,
}

/// What a window (or one of its buckets) counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub new_calls: u32,
    pub new_errors: u32,
    pub checked: u32,
    pub inconsistent: u32,
}

impl Counts {
    fn add(&mut self, note: &Note) {
        if let Some(failed) = note.new_failed {
            self.new_calls = self.new_calls.saturating_add(1);
            self.new_errors = self.new_errors.saturating_add(u32::from(failed));
        }
        if let Some(consistent) = note.consistent {
            self.checked = self.checked.saturating_add(1);
            self.inconsistent = self.inconsistent.saturating_add(u32::from(!consistent));
        }
    }

    fn remove(&mut self, other: &Counts) {
        self.new_calls = self.new_calls.saturating_sub(other.new_calls);
        self.new_errors = self.new_errors.saturating_sub(other.new_errors);
        self.checked = self.checked.saturating_sub(other.checked);
        self.inconsistent = self.inconsistent.saturating_sub(other.inconsistent);
    }
}

/// One origin's latencies as bucket counts (empty until the first).
#[derive(Clone, Debug, Default)]
struct Latencies {
    counts: Vec<u32>,
    total: u32,
}

impl Latencies {
    fn record(&mut self, ms: f64) {
        if !ms.is_finite() || ms < 0.0 {
            return;
        }
        if self.counts.is_empty() {
            self.counts = vec![0; LATENCY_COUNTS];
        }
        if let Some(c) = self.counts.get_mut(bucket_of(ms) / MERGED) {
            *c = c.saturating_add(1);
            self.total = self.total.saturating_add(1);
        }
    }

    fn remove(&mut self, other: &Latencies) {
        if other.total == 0 {
            return;
        }
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            *mine = mine.saturating_sub(*theirs);
        }
        self.total = self.total.saturating_sub(other.total);
    }

    fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.total = 0;
    }

    /// The 99th percentile, from the top down (a p99 is near it); `None` with no latency.
    fn p99(&self) -> Option<f64> {
        if self.total == 0 {
            return None;
        }
        // The rank of the p99 counted from the top: the 1 % above it, at least one.
        let above = (self.total as u64).div_ceil(100).max(1);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate().rev() {
            seen += u64::from(c);
            if seen >= above {
                return Some(middle_of(i * MERGED + MERGED / 2));
            }
        }
        None
    }
}

#[derive(Clone, Debug)]
struct Slot {
    /// Which bucket of time this is (`now / slot_ms`, floored).
    number: i64,
    counts: Counts,
    old: Latencies,
    new: Latencies,
}

/// The window of one flag key.
#[derive(Clone, Debug)]
pub struct Window {
    slot_ms: f64,
    /// Latencies are kept (the guard judges `maxLatencyRatio`).
    latencies: bool,
    head: i64,
    /// Where `head` is in `slots` (kept: a division less per outcome).
    head_index: usize,
    /// Outcomes counted since the clock was last read.
    unclocked: u32,
    slots: Vec<Slot>,
    total: Counts,
    old: Latencies,
    new: Latencies,
}

impl Window {
    pub fn new(window_ms: f64, latencies: bool) -> Self {
        let empty =
            Slot { number: i64::MIN, counts: Counts::default(), old: Latencies::default(), new: Latencies::default() };
        Window {
            slot_ms: window_ms / SLOTS as f64,
            latencies,
            head: i64::MIN,
            head_index: 0,
            unclocked: 0,
            slots: vec![empty; SLOTS],
            total: Counts::default(),
            old: Latencies::default(),
            new: Latencies::default(),
        }
    }

    /// Moves the window to `now_ms` (monotonic): the buckets it has passed leave the totals.
    pub fn advance(&mut self, now_ms: f64) {
        let number = (now_ms / self.slot_ms).floor();
        let number = if number.is_finite() { number as i64 } else { self.head };
        if number <= self.head {
            return;
        }
        let passed = number.saturating_sub(self.head).min(SLOTS as i64);
        for k in 0..passed {
            let n = number - k;
            let Some(slot) = self.slots.get_mut(n.rem_euclid(SLOTS as i64) as usize) else {
                continue;
            };
            self.total.remove(&slot.counts);
            self.old.remove(&slot.old);
            self.new.remove(&slot.new);
            slot.counts = Counts::default();
            slot.old.clear();
            slot.new.clear();
            slot.number = n;
        }
        self.head = number;
        self.head_index = number.rem_euclid(SLOTS as i64) as usize;
    }

    /// Counts one operation's note, reading the clock for it at every `CLOCK_EVERY`th.
    pub fn record(&mut self, clock: &dyn Clock, note: &Note) {
        if self.unclocked == 0 || self.head == i64::MIN {
            self.advance(clock.monotonic_ms());
        }
        self.unclocked = (self.unclocked + 1) % CLOCK_EVERY;
        let latencies = self.latencies;
        let Some(slot) = self.slots.get_mut(self.head_index) else {
            return;
        };
        slot.counts.add(note);
        self.total.add(note);
        if let (true, Some(old), Some(new)) = (latencies, note.old_ms, note.new_ms) {
            slot.old.record(old);
            slot.new.record(new);
            self.old.record(old);
            self.new.record(new);
        }
    }

    /// What the window holds (as of its last `advance` or `record`).
    pub fn counts(&self) -> Counts {
        self.total
    }

    /// The old and the new origin's p99 over the operations where both ran.
    pub fn p99s(&self) -> (Option<f64>, Option<f64>) {
        (self.old.p99(), self.new.p99())
    }

    /// Operations with both latencies in the window.
    pub fn pairs(&self) -> u32 {
        self.new.total
    }

    /// Forgets everything (a trip, or probing starting afresh); the next outcome reads the clock.
    pub fn clear(&mut self) {
        self.unclocked = 0;
        for slot in &mut self.slots {
            slot.counts = Counts::default();
            slot.old.clear();
            slot.new.clear();
        }
        self.total = Counts::default();
        self.old.clear();
        self.new.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock standing at one time.
    struct At(f64);
    impl Clock for At {
        fn monotonic_ms(&self) -> f64 {
            self.0
        }
        fn epoch_ms(&self) -> f64 {
            self.0
        }
    }

    /// Records at `ms`, the clock read for it (as at every `CLOCK_EVERY`th).
    fn at(w: &mut Window, ms: f64, note: &Note) {
        w.unclocked = 0;
        w.record(&At(ms), note);
    }

    fn call(failed: bool) -> Note {
        Note { new_failed: Some(failed), ..Note::default() }
    }

    #[test]
    fn counts_leave_the_window_as_time_passes_their_bucket() {
        let mut w = Window::new(60_000.0, false);
        at(&mut w, 0.0, &call(true));
        at(&mut w, 4_999.0, &call(false));
        at(&mut w, 5_000.0, &call(true));
        assert_eq!((w.counts().new_calls, w.counts().new_errors), (3, 2));
        w.advance(59_999.0);
        assert_eq!(w.counts().new_calls, 3, "still inside the window");
        w.advance(60_000.0);
        assert_eq!((w.counts().new_calls, w.counts().new_errors), (1, 1), "the first bucket left");
        w.advance(65_000.0);
        assert_eq!(w.counts(), Counts::default());
    }

    #[test]
    fn a_long_pause_empties_it_at_once_and_memory_stays_fixed() {
        let mut w = Window::new(1_000.0, false);
        for i in 0..100_000 {
            at(&mut w, f64::from(i) * 0.01, &call(i % 50 == 0));
        }
        assert_eq!(w.slots.len(), SLOTS);
        w.advance(1e12);
        assert_eq!(w.counts(), Counts::default());
        at(&mut w, 1e12 + 1.0, &call(false));
        assert_eq!(w.counts().new_calls, 1);
    }

    #[test]
    fn checks_are_counted_with_the_inconsistent_ones() {
        let mut w = Window::new(1_000.0, false);
        at(&mut w, 1.0, &Note { consistent: Some(true), ..Note::default() });
        at(&mut w, 2.0, &Note { consistent: Some(false), new_failed: Some(false), ..Note::default() });
        assert_eq!(w.counts(), Counts { new_calls: 1, new_errors: 0, checked: 2, inconsistent: 1 });
    }

    #[test]
    fn latencies_are_kept_only_when_judged_and_only_in_pairs() {
        let pair = |old, new| Note { new_failed: Some(false), old_ms: Some(old), new_ms: Some(new), consistent: None };
        let mut off = Window::new(1_000.0, false);
        at(&mut off, 0.0, &pair(1.0, 2.0));
        assert_eq!(off.p99s(), (None, None));
        let mut on = Window::new(1_000.0, true);
        at(&mut on, 0.0, &Note { new_failed: Some(false), new_ms: Some(5.0), ..Note::default() });
        assert_eq!(on.p99s(), (None, None), "the new origin alone is no pair");
        for i in 0..1000 {
            at(&mut on, 0.0, &pair(10.0, if i < 985 { 10.0 } else { 100.0 }));
        }
        let (old, new) = on.p99s();
        let (old, new) = (old.unwrap(), new.unwrap());
        assert!((old / 10.0 - 1.0).abs() < 0.1, "{old}");
        assert!((new / 100.0 - 1.0).abs() < 0.1, "{new}: the top 1.5 % are 100 ms");
        on.advance(2_000.0);
        assert_eq!((on.p99s(), on.pairs()), ((None, None), 0));
    }

    #[test]
    fn the_clock_is_read_at_every_eighth_outcome() {
        let mut w = Window::new(1_000.0, false);
        for i in 0..16 {
            // The clock says 0 ms for the first of each eight, 10 s for the others: those are
            // counted in the bucket of the first.
            let ms = if i % CLOCK_EVERY == 0 { 0.0 } else { 10_000.0 };
            w.record(&At(ms), &call(false));
        }
        assert_eq!(w.counts().new_calls, 16, "all in one bucket, none moved the window");
        w.record(&At(10_000.0), &call(false));
        assert_eq!(w.counts().new_calls, 1, "the seventeenth read the clock: the others left");
    }

    #[test]
    fn clearing_forgets_everything() {
        let mut w = Window::new(1_000.0, true);
        at(
            &mut w,
            0.0,
            &Note { new_failed: Some(true), old_ms: Some(1.0), new_ms: Some(1.0), consistent: Some(false) },
        );
        w.clear();
        assert_eq!((w.counts(), w.p99s()), (Counts::default(), (None, None)));
    }
}
