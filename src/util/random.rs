//! The crate's one random generator: xorshift64*, for sampling and random execution order
//! (speed, not secrecy). A host-wide generator seeds itself from the platform's entropy source
//! (`getrandom`: `crypto.getRandomValues` in JavaScript hosts) on its first draw, so a cold start
//! that never samples never pays for it; tests use a fixed seed.

use std::cell::Cell;

use crate::host::Random;

/// xorshift64*. The state 0 means "not seeded yet" (xorshift never reaches 0 from a non-zero
/// state).
pub struct Xorshift64Star {
    state: Cell<u64>,
}

/// Used when the platform has no entropy source to offer (the generator must still draw).
const FALLBACK_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

impl Xorshift64Star {
    /// A reproducible sequence (seed 0 is taken as 1).
    pub fn with_seed(seed: u64) -> Self {
        Xorshift64Star { state: Cell::new(seed.max(1)) }
    }

    /// Seeded from the platform's entropy source at the first draw.
    pub fn from_entropy() -> Self {
        Xorshift64Star { state: Cell::new(0) }
    }

    fn entropy_seed() -> u64 {
        getrandom::u64().unwrap_or(FALLBACK_SEED).max(1)
    }
}

impl Random for Xorshift64Star {
    fn next_f64(&self) -> f64 {
        let mut x = self.state.get();
        if x == 0 {
            x = Self::entropy_seed();
        }
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state.set(x);
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_sequence_in_range() {
        let (a, b) = (Xorshift64Star::with_seed(7), Xorshift64Star::with_seed(7));
        for _ in 0..1000 {
            let x = a.next_f64();
            assert_eq!(x, b.next_f64());
            assert!((0.0..1.0).contains(&x));
        }
        assert_eq!(Xorshift64Star::with_seed(0).next_f64(), Xorshift64Star::with_seed(1).next_f64());
    }

    #[test]
    fn an_entropy_seeded_generator_seeds_at_its_first_draw() {
        let g = Xorshift64Star::from_entropy();
        assert_eq!(g.state.get(), 0, "nothing drawn at construction");
        let draws: Vec<f64> = (0..100).map(|_| g.next_f64()).collect();
        assert_ne!(g.state.get(), 0);
        assert!(draws.iter().all(|x| (0.0..1.0).contains(x)));
        assert!(draws.windows(2).any(|w| w[0] != w[1]));
    }
}
