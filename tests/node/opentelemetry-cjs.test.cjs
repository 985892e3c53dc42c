// OpenTelemetry metrics through require('cutover') and require('@opentelemetry/sdk-metrics').
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { MigratorBuilder, fixedStage } = require('cutover');
const { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics');

test('CommonJS: a migrator records its operations with an OpenTelemetry meter', async (t) => {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const provider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })] });
  t.after(() => provider.shutdown());
  const m = new MigratorBuilder(fixedStage('live'))
    .read(async () => 'old', async () => 'new')
    .write(async () => 1, async () => 2)
    .meter(provider.getMeter('cjs'))
    .build();
  await m.read('flag', { key: 'u' }, 'off');
  await m.read('flag', { key: 'u' }, 'off');
  await provider.forceFlush();
  const metrics = exporter.getMetrics().flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics));
  const ops = metrics.find((x) => x.descriptor.name === 'cutover.migration.operations');
  assert.deepEqual(ops.dataPoints.map((p) => [p.attributes, p.value]), [
    [{ 'feature_flag.key': 'flag', 'cutover.migration.stage': 'live', 'cutover.migration.operation': 'read' }, 2],
  ]);
  assert.equal(m.stats().read.count, 2);
});
