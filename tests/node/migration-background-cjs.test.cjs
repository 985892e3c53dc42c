// Background mode from the CommonJS build (issue 21): require('cutover') has background(),
// settled(), the shed count and createMigration's background option, and behaves as the ESM build.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');

const turns = async (n = 10) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};
const CONTEXT = { kind: 'user', key: 'cjs-user' };

test('CommonJS: a background shadow read resolves before its shadow, the event and stats follow', async () => {
  const { MigratorBuilder } = require('cutover');
  const events = [];
  const client = { migrationVariation: () => ({ value: 'shadow' }), trackMigrationOp: (e) => events.push(e) };
  let releaseShadow;
  const waited = [];
  const migrator = new MigratorBuilder(client)
    .background({ maxInFlight: 1, waitUntil: (p) => waited.push(p) })
    .read(async () => 'v', () => new Promise((resolve) => (releaseShadow = resolve)), (a, b) => a === b)
    .write(async () => 'o', async () => 'n')
    .build();
  const r = await migrator.read('flag', CONTEXT, 'off');
  assert.deepEqual([r.origin, r.value], ['old', 'v']);
  await turns();
  assert.equal(typeof releaseShadow, 'function', 'the shadow runs');
  assert.equal(events.length, 0);
  assert.equal(waited.length, 1);
  const shed = await migrator.read('flag', CONTEXT, 'off');
  assert.equal(shed.value, 'v');
  assert.equal(migrator.stats().read.shed, 1);
  releaseShadow('v');
  await migrator.settled();
  await waited[0];
  assert.equal(events.length, 2);
  const full = events.find((e) => e.measurements.some((m) => m.key === 'consistent'));
  assert.deepEqual(full.measurements.find((m) => m.key === 'consistent').value, true);
  assert.equal(migrator.stats().read.count, 2);
});

test('CommonJS: background() checks its options with the same errors', () => {
  const { MigratorBuilder, fixedStage } = require('cutover');
  const b = new MigratorBuilder(fixedStage('off'));
  assert.throws(() => b.background({ maxInFlight: 0 }), (e) => e instanceof RangeError && e.message.startsWith('background: maxInFlight must be a positive integer'));
  assert.throws(() => b.background({ maxInFlight: '5' }), (e) => e instanceof TypeError && e.message.startsWith('background: maxInFlight must be a number'));
  assert.throws(() => b.background({ waitUntil: 1 }), (e) => e instanceof TypeError && e.message.startsWith('background: waitUntil must be a function'));
});

test('CommonJS: createMigration with background: true resolves before the other method and has settled()', async () => {
  const { createMigration, LDMigrationSuccess, LDConcurrentExecution } = require('cutover');
  const tracked = [];
  const ld = { migrationVariation: async () => ({ value: 'live' }), trackMigration: (e) => tracked.push(e) };
  let releaseOld;
  const migration = createMigration(ld, {
    execution: new LDConcurrentExecution(),
    readOld: () => new Promise((resolve) => (releaseOld = () => resolve(LDMigrationSuccess('o')))),
    readNew: async () => LDMigrationSuccess('n'),
    writeOld: async () => LDMigrationSuccess('o'),
    writeNew: async () => LDMigrationSuccess('n'),
    background: true,
  });
  const r = await migration.read('flag', CONTEXT, 'off');
  assert.deepEqual(r, { origin: 'new', success: true, result: 'n' });
  await turns();
  releaseOld();
  await migration.settled();
  assert.equal(migration.stats().read.count, 1);
});
