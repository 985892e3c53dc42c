//! The fleet: what the console (`migrationConsole`, `redisFleet`) shows of many processes at once.
//! Each process publishes its counts and its latency histograms in their wire form
//! (`crate::util::histogram`); the readers decide here which instances are still alive
//! (`roster`) and what the percentiles of all of them are (`latency`: merged bucket by bucket,
//! never averaged). Also the console's per-second percentiles of one process (`latency::window`).
//! Below `migration` and `segments`: it imports only `util`.

pub mod latency;
pub mod roster;
