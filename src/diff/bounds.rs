//! The limits of one walk, and what hitting one reports.
//!
//! Defaults:
//! - **depth 64**: positions nested more than 64 levels under the root are not compared. JSON
//!   documents and API responses rarely nest past 10–20 levels; a deeper value is most likely a
//!   linked list or a graph, where the comparison would only be slow. The walk keeps its own
//!   stack (one frame per level, no recursion), so the limit bounds memory and time, not the
//!   thread's stack.
//! - **10,000 nodes**: at most 10,000 positions (pairs of values, or one side's value for an
//!   added or removed key) are compared; about 200 KB of JSON-like data (some 20 bytes a
//!   position), against the 1 KB values of the `mismatch-explain` benchmark (about 50
//!   positions). Not yet measured in wasm: at the 5 µs an explained 1 KB mismatch may add, a
//!   full walk would be about 1 ms; the benchmark's figure belongs here once it runs. A plain
//!   object with more keys than the walk has positions left (keys held by the objects still
//!   open count as positions to come) is a bound hit at once, before its keys are handed over,
//!   even if `ignore` would skip some of them.
//!
//! A walk that hits a bound has not found the values equal, nor different: it reports the hit
//! ([`BoundHit`]: which limit, and where), and stops.

/// How far one walk may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The deepest position compared: the root is depth 0, its children depth 1, …
    pub max_depth: usize,
    /// How many positions may be compared, the root included.
    pub max_nodes: usize,
}

pub const DEFAULT_MAX_DEPTH: usize = 64;
pub const DEFAULT_MAX_NODES: usize = 10_000;

impl Default for Bounds {
    fn default() -> Self {
        Bounds { max_depth: DEFAULT_MAX_DEPTH, max_nodes: DEFAULT_MAX_NODES }
    }
}

/// Which limit a walk hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Depth,
    Nodes,
}

impl Limit {
    /// The limit's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Limit::Depth => "depth",
            Limit::Nodes => "nodes",
        }
    }
}

/// A walk stopped by one of its limits: the limit, and the JSON Pointer of the position it
/// would have compared next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundHit {
    pub limit: Limit,
    pub path: String,
}
