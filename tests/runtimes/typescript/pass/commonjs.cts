// A CommonJS consumer (require condition: dist/index.d.cts).
import cutover = require('cutover');

const migrator = new cutover.MigratorBuilder<number, string>(cutover.fixedStage('rampdown'))
  .read(async (n) => String(n ?? 0), () => cutover.failure(new Error('new store down')))
  .write(() => 'w', () => 'w')
  .build();

export async function run(): Promise<string | undefined> {
  const manager = new cutover.BigSegmentStoreManager({});
  const { status } = await manager.getUserMembership('k');
  const s: cutover.BigSegmentsStatus = status;
  await manager.close();
  // @ts-expect-error the payload is a number
  await migrator.read('f', { key: 'k' }, 'off', 'one');
  return (await migrator.read('f', { key: 'k' }, 'off', 1)).value + s;
}
