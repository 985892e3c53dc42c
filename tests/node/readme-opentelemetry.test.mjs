// README.md's OpenTelemetry example runs as written (against the packed package and the real
// @opentelemetry/sdk-metrics), and records what the section says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');

test("README's OpenTelemetry example runs, and its migrator and manager record with the meter", async (t) => {
  const section = readme.slice(readme.indexOf('## OpenTelemetry'));
  const code = section.match(/```js\n([\s\S]*?)```/)?.[1];
  assert.ok(code && code.includes('.meter(meter)'), 'the section has a js example');
  // Kept beside this file, so that 'cutover' resolves to the packed build; the example's meter
  // is swapped for one with a reader, to read back what it recorded.
  const file = fileURLToPath(new URL(`./readme-otel-${process.pid}.mjs`, import.meta.url));
  const instrumented = code.replace(
    "const meter = new MeterProvider().getMeter('checkout');",
    "import { InMemoryMetricExporter, PeriodicExportingMetricReader, AggregationTemporality } from '@opentelemetry/sdk-metrics';\n" +
      'export const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);\n' +
      'export const provider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3600000 })] });\n' +
      "const meter = provider.getMeter('checkout');",
  );
  assert.notEqual(instrumented, code, 'the example creates its meter as this test expects');
  writeFileSync(file, instrumented);
  t.after(() => rmSync(file, { force: true }));
  const { exporter, provider } = await import(file);
  await provider.forceFlush();
  const names = exporter.getMetrics().flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics.map((m) => m.descriptor.name)));
  await provider.shutdown();
  for (const name of ['cutover.migration.operations', 'cutover.migration.origin.duration', 'cutover.migration.consistency.checks', 'cutover.big_segments.lookups', 'cutover.big_segments.store_queries']) {
    assert.ok(names.includes(name), `${name} in ${names}`);
  }
});
