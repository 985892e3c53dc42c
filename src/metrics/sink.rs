//! Where the core's measurements go: a host's metrics pipeline.

use super::attributes::Attributes;
use super::instrument::Instrument;

/// Records measurements. A counter adds `value`; a histogram records it (durations in
/// seconds). Implementations must not fail the caller: a pipeline's error is theirs to log.
pub trait MetricSink {
    fn record(&self, instrument: Instrument, value: f64, attributes: &Attributes<'_>);
}
