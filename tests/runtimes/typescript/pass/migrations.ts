// cutover/migrations from ESM (import condition: dist/migrations/migrations.d.mts): the migrations
// API with the full entry's types, and none of Big Segments'.
import { MigratorBuilder, fixedStage, sameStructure, beaconSink, type Migrator } from 'cutover/migrations';
import * as migrations from 'cutover/migrations';

const migrator: Migrator<number, { id: number }> = new MigratorBuilder<number, { id: number }>(fixedStage('shadow'))
  .read(async (n) => ({ id: n ?? 0 }), async (n) => ({ id: n ?? 0 }), sameStructure())
  .write(() => undefined, () => undefined)
  .build();

export async function readOne(): Promise<number | undefined> {
  // @ts-expect-error the payload is a number
  await migrator.read('f', { key: 'k' }, 'off', 'one');
  return (await migrator.read('f', { key: 'k' }, 'off', 1)).value?.id;
}
export const sink = beaconSink('/events');
// @ts-expect-error Big Segments are not in cutover/migrations
export const manager = migrations.BigSegmentStoreManager;
