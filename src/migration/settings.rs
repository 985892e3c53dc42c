//! The settings a builder collects besides the origins, with the defaults of SPEC A1.

use super::stage::ExecutionOrder;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MigratorSettings {
    pub read_order: ExecutionOrder,
    pub track_latency: bool,
    pub track_errors: bool,
    pub origin_timeout_ms: Option<f64>,
    /// `background({ maxInFlight })`: the caller gets the authoritative result as soon as it
    /// settles and the rest of the operation goes on in the background, at most this many
    /// operations at once (`None`: off, LaunchDarkly's semantics).
    pub background_max_in_flight: Option<u32>,
}

impl Default for MigratorSettings {
    fn default() -> Self {
        MigratorSettings {
            read_order: ExecutionOrder::Parallel,
            track_latency: true,
            track_errors: true,
            origin_timeout_ms: None,
            background_max_in_flight: None,
        }
    }
}
