// OpenTelemetry's own Meter type (@opentelemetry/api) and the SDK's meter fit cutover's MeterLike.
import { metrics, type Meter } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BigSegmentStoreManager, MigratorBuilder, createMigration, fixedStage, type MeterLike, type MetricAttributes, type OperationResult } from 'cutover';

declare const apiMeter: Meter;
const sdkMeter = new MeterProvider().getMeter('checkout');
const asLike: MeterLike = apiMeter;

export const migrator = new MigratorBuilder(fixedStage('shadow'))
  .read(async () => 1, async () => 1)
  .write(async () => 2, async () => 2)
  .meter(metrics.getMeter('checkout'))
  .meter(sdkMeter)
  .meter(asLike)
  .build();
export const manager = new BigSegmentStoreManager({ meter: apiMeter });
declare const ld: Parameters<typeof createMigration>[0];
export const migration = createMigration(ld, {
  readOld: async () => ({ success: true, result: 1 }),
  readNew: async () => ({ success: true, result: 1 }),
  writeOld: async () => ({ success: true, result: 1 }),
  writeNew: async () => ({ success: true, result: 1 }),
  meter: sdkMeter,
});
// README's OpenTelemetry example, unannotated: `a` and `b` are the origins' values (TS18046 before:
// 'a' is of type 'unknown'); the payload, never annotated, is unknown.
export async function readmeExample(): Promise<void> {
  const meter = new MeterProvider().getMeter('checkout');
  const migrator = new MigratorBuilder(fixedStage('shadow'))
    .read(async (id) => ({ id, total: 5 }), async (id) => ({ id, total: 5 }), (a, b) => a.total === b.total)
    .write(async (order) => order, async (order) => order)
    .meter(meter)
    .build();
  const result = await migrator.read('orders-db', { key: 'user-1' }, 'off', 42);
  result satisfies OperationResult<{ id: unknown; total: number }>;
  if (result.success) {
    const total: number = result.value.total;
    void total;
  }
  const store = { getMetadata: async () => ({ lastUpToDate: Date.now() }), getMembership: async () => null };
  const segments = new BigSegmentStoreManager({ store, meter });
  await segments.getUserMembership('user-1');
  await segments.close();
}
export const attributes: MetricAttributes = { 'feature_flag.key': 'f', 'cutover.migration.stage': 'live', 'error.type': 'timeout' };
// @ts-expect-error only cutover's attributes
export const wrong: MetricAttributes = { 'context.key': 'u1' };
// @ts-expect-error a meter is an object with createCounter/createHistogram
new MigratorBuilder(fixedStage('off')).meter({ createCounter() {} });
// @ts-expect-error Big Segments also need createObservableGauge (the status gauge)
new BigSegmentStoreManager({ meter: asLike });
