// OpenTelemetry's metrics SDK (@opentelemetry/sdk-metrics 2.12) with its in-memory exporter: a
// meter, and what it exported, read as plain rows.
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';

/** A real Meter and `collect()`, which flushes and returns the exported metrics by name. */
export function otel(t) {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  t.after(() => provider.shutdown());
  const meter = provider.getMeter('cutover-tests');
  async function collect() {
    exporter.reset();
    await provider.forceFlush();
    const byName = new Map();
    for (const rm of exporter.getMetrics()) {
      for (const sm of rm.scopeMetrics) for (const m of sm.metrics) byName.set(m.descriptor.name, m);
    }
    return byName;
  }
  return { meter, collect };
}

/** A metric's data points as [attributes, value] with attributes as plain objects. */
export const points = (metric) => (metric ? metric.dataPoints.map((p) => [{ ...p.attributes }, p.value]) : []);

/** The value of the point whose attributes are exactly `attributes` (0 when there is none). */
export function valueAt(metric, attributes) {
  const want = JSON.stringify(Object.entries(attributes).sort());
  const p = metric?.dataPoints.find((d) => JSON.stringify(Object.entries(d.attributes).sort()) === want);
  return p === undefined ? 0 : p.value;
}

/** The sum of a counter over every point (a histogram: the sum of its counts). */
export function total(metric) {
  if (!metric) return 0;
  return metric.dataPoints.reduce((n, p) => n + (typeof p.value === 'number' ? p.value : p.value.count), 0);
}

export const ALLOWED_ATTRIBUTES = new Set([
  'feature_flag.key',
  'cutover.migration.stage',
  'cutover.migration.operation',
  'cutover.migration.origin',
  'error.type',
]);
