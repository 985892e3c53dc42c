// Shadow read, parallel, with fixedStage('shadow') as in shadow-read-parallel-fixedstage, and the
// migrator recording into a real OpenTelemetry meter (@opentelemetry/sdk-metrics 2.12 with a
// reader): what `.meter(meter)` costs per operation on top of cutover's own work.
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { CONTEXT, FLAG_KEY, PAYLOAD, compare, cutoverOrigin, loadCutover, timeAsync } from '../lib/common.mjs';
import { sanity } from '../lib/migration.mjs';

export const meta = {
  unit: 'µs/op',
  note: "cutover with fixedStage('shadow') and .meter(meter) over @opentelemetry/sdk-metrics; LD has no metrics",
};
export async function cutover() {
  const c = await loadCutover();
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const provider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })] });
  const m = new c.MigratorBuilder(c.fixedStage('shadow'))
    .readExecutionOrder('parallel')
    .read(cutoverOrigin, cutoverOrigin, compare)
    .write(cutoverOrigin, cutoverOrigin)
    .meter(provider.getMeter('bench'))
    .build();
  sanity('read', await m.read(FLAG_KEY, CONTEXT, 'off', PAYLOAD), 'value');
  const r = await timeAsync(() => m.read(FLAG_KEY, CONTEXT, 'off', PAYLOAD), { ops: 40_000 }); // about 0.4 s
  await provider.shutdown();
  return { value: r.usPerOp, info: { ops: r.ops } };
}
