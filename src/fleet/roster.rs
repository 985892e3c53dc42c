//! Which published instances of a fleet are alive: an instance that has not published for
//! `ttl_ms` is gone, and at most `MAX_INSTANCES` (the most recent publishers) are shown.

use crate::util::sort::sort_unstable_by;

/// The most instances a fleet shows (API §2d).
pub const MAX_INSTANCES: usize = 256;

/// What the reader makes of one published instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Published within `ttl_ms`: shown and counted in the totals.
    Live,
    /// Silent for longer than `ttl_ms`, or its time is unreadable: gone (the reader may delete it).
    Expired,
    /// Alive, but beyond the `MAX_INSTANCES` most recent: neither shown nor counted.
    Dropped,
}

/// The standing of each instance, given when each last published (epoch ms, `at`), the
/// reader's clock (`now`, epoch ms) and the time to live. A time in the future (another host's
/// clock ahead of this one) counts as now.
pub fn standings(at: &[f64], now: f64, ttl_ms: f64) -> Vec<Standing> {
    let alive = |t: f64| t.is_finite() && now - t <= ttl_ms;
    // The live ones, most recent first (ties: first listed first); the first MAX_INSTANCES stay.
    let mut live: Vec<(usize, f64)> = at.iter().copied().enumerate().filter(|(_, t)| alive(*t)).collect();
    // The crate's small heapsort (util/sort.rs: the standard sorts cost kilobytes of wasm); the
    // order is total, so an unstable sort is exact.
    sort_unstable_by(&mut live, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut out: Vec<Standing> = at.iter().map(|_| Standing::Expired).collect();
    for (rank, (index, _)) in live.iter().enumerate() {
        if let Some(slot) = out.get_mut(*index) {
            *slot = if rank < MAX_INSTANCES { Standing::Live } else { Standing::Dropped };
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Clock;
    use crate::testing::FakeClock;

    #[test]
    fn an_instance_that_stops_publishing_is_gone_after_the_ttl() {
        let clock = FakeClock::new(1_700_000_000_000.0);
        let ttl = 30_000.0;
        let mut at = [clock.epoch_ms(); 3];
        for _ in 0..10 {
            clock.advance(5_000.0);
            at[0] = clock.epoch_ms(); // a and b keep publishing; c was killed at the start
            at[1] = clock.epoch_ms();
        }
        // 50 s later: c last published 50 s ago.
        assert_eq!(standings(&at, clock.epoch_ms(), ttl), [Standing::Live, Standing::Live, Standing::Expired]);
        // Exactly at the ttl it is still there; a millisecond later it is gone.
        let c = clock.epoch_ms();
        clock.advance(ttl);
        assert_eq!(standings(&[c], clock.epoch_ms(), ttl), [Standing::Live]);
        clock.advance(1.0);
        assert_eq!(standings(&[c], clock.epoch_ms(), ttl), [Standing::Expired]);
    }

    #[test]
    fn unreadable_times_are_expired_and_a_clock_ahead_counts_as_now() {
        let clock = FakeClock::new(1_000_000.0);
        let now = clock.epoch_ms();
        let got = standings(&[f64::NAN, f64::INFINITY, now + 60_000.0], now, 1_000.0);
        assert_eq!(got, [Standing::Expired, Standing::Expired, Standing::Live]);
    }

    #[test]
    fn at_most_256_are_shown_the_most_recent_publishers_first() {
        let clock = FakeClock::new(5_000_000.0);
        let mut at = Vec::new();
        for _ in 0..300 {
            at.push(clock.epoch_ms());
            clock.advance(10.0);
        }
        let got = standings(&at, clock.epoch_ms(), 60_000.0);
        assert_eq!(got.iter().filter(|s| **s == Standing::Live).count(), MAX_INSTANCES);
        // The 44 oldest are dropped, not expired.
        assert!(got[..44].iter().all(|s| *s == Standing::Dropped));
        assert!(got[44..].iter().all(|s| *s == Standing::Live));
    }
}
