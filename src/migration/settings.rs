//! The settings a builder collects besides the origins, with the defaults of SPEC A1.

use super::stage::ExecutionOrder;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MigratorSettings {
    pub read_order: ExecutionOrder,
    pub track_latency: bool,
    pub track_errors: bool,
    pub origin_timeout_ms: Option<f64>,
}

impl Default for MigratorSettings {
    fn default() -> Self {
        MigratorSettings {
            read_order: ExecutionOrder::Parallel,
            track_latency: true,
            track_errors: true,
            origin_timeout_ms: None,
        }
    }
}
