// The same run as a metrics pipeline sees it: the migrator and the Big Segments manager record
// into an OpenTelemetry meter (`.meter(meter)`, `{ meter }`); here the meter is
// @opentelemetry/sdk-metrics with its in-memory exporter, where a service would export OTLP.

import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { createTable } from './table.mjs';

const fmtInt = (n) => n.toLocaleString('en-US');

/** A meter for the whole demo, and `collect()` for its metrics by name. */
export function createMetrics() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const provider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })] });
  return {
    meter: provider.getMeter('cutover-demo'),
    async collect() {
      await provider.forceFlush();
      const byName = new Map();
      for (const rm of exporter.getMetrics()) for (const sm of rm.scopeMetrics) for (const m of sm.metrics) byName.set(m.descriptor.name, m);
      await provider.shutdown();
      return byName;
    },
  };
}

const valueOf = (p) => (typeof p.value === 'number' ? p.value : p.value.count);

/** Prints every instrument's series and total, and checks operations per stage against stats(). */
export async function runOpenTelemetrySection({ out, style, metrics, results }) {
  const byName = await metrics.collect();
  out.write(`${style.bold('OpenTelemetry')}  ${style.dim('the same run through a Meter (@opentelemetry/sdk-metrics, in-memory exporter)')}\n\n`);
  const table = createTable([
    { title: 'instrument', width: 41, align: 'left' },
    { title: 'unit', width: 11, align: 'left' },
    { title: 'series', width: 6 },
    { title: 'total', width: 9 },
  ], style);
  out.write(`${table.header()}\n${table.rule()}\n`);
  for (const [name, m] of [...byName].sort(([a], [b]) => a.localeCompare(b))) {
    const gauge = m.descriptor.type === 'OBSERVABLE_GAUGE';
    const total = m.dataPoints.reduce((n, p) => n + valueOf(p), 0);
    out.write(table.row([name, m.descriptor.unit, String(m.dataPoints.length), gauge ? `${total} (now)` : fmtInt(total)]) + '\n');
  }
  out.write(`${table.rule()}\n`);
  const ops = byName.get('cutover.migration.operations')?.dataPoints ?? [];
  const perStage = {};
  for (const p of ops) perStage[p.attributes['cutover.migration.stage']] = (perStage[p.attributes['cutover.migration.stage']] ?? 0) + p.value;
  const agree = Object.entries(results.opsByStage).every(([stage, n]) => perStage[stage] === n);
  const mark = agree ? style.green('✓') : style.red('✗');
  out.write(`  ${mark} operations per stage agree with migrator.stats(): ` +
    Object.entries(results.opsByStage).map(([s, n]) => `${s} ${fmtInt(perStage[s] ?? 0)}/${fmtInt(n)}`).join(' · ') + '\n');
  // The Differences section's mismatches carry the path of their first difference.
  const byPath = {};
  for (const p of byName.get('cutover.migration.consistency.mismatches')?.dataPoints ?? []) {
    const path = p.attributes['cutover.mismatch.path'];
    if (path !== undefined) byPath[path] = (byPath[path] ?? 0) + valueOf(p);
  }
  if (Object.keys(byPath).length) {
    out.write(`  cutover.migration.consistency.mismatches by cutover.mismatch.path (first difference): ` +
      Object.entries(byPath).sort(([, a], [, b]) => b - a).map(([path, n]) => `${path} ${fmtInt(n)}`).join(' · ') + '\n');
  }
  out.write(style.dim('  attributes: feature_flag.key, cutover.migration.stage/.operation/.origin, error.type, cutover.guard.state — never a context key') + '\n');
}
