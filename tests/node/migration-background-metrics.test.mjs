// Background mode and OpenTelemetry (issue 21): shed operations are counted by
// `cutover.migration.shed` (unit {operation}, the attributes of cutover.migration.operations), and
// the other instruments record the whole operation once its background part has ended. Recorded
// into the real @opentelemetry/sdk-metrics and read back from its in-memory exporter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALLOWED_ATTRIBUTES, otel, points, total, valueAt } from './helpers/otel.mjs';
import { CTX, bgSetup, turns, watch } from './helpers/background.mjs';

const attrs = (stage, operation) => ({
  'feature_flag.key': 'mig',
  'cutover.migration.stage': stage,
  'cutover.migration.operation': operation,
});

async function pastAuthoritative(migrator, gates, op, origin) {
  const w = watch(migrator[op]('mig', CTX, 'off'));
  await turns();
  gates.resolveLatest(origin);
  await w.done;
  assert.equal(w.fulfilled, true);
}

test('shed reads and writes count in cutover.migration.shed, by flag, stage and operation', async (t) => {
  const { meter, collect } = otel(t);
  const { migrator, reads, writes, client } = bgSetup({ stage: 'shadow', order: 'parallel', meter, background: { maxInFlight: 2 } });
  // two shadows hang, three shadow reads are shed
  for (let i = 0; i < 5; i++) await pastAuthoritative(migrator, reads, 'read', 'old');
  client.evaluation = 'live';
  await pastAuthoritative(migrator, reads, 'read', 'new'); // shed at live
  client.evaluation = 'dualwrite';
  await pastAuthoritative(migrator, writes, 'write', 'old'); // shed write
  await pastAuthoritative(migrator, writes, 'write', 'old');
  const s = migrator.stats();
  assert.deepEqual([s.read.shed, s.write.shed], [4, 2]);

  let metrics = await collect();
  const shed = metrics.get('cutover.migration.shed');
  assert.ok(shed, `exported: ${[...metrics.keys()].join(', ')}`);
  assert.equal(shed.descriptor.type, 'COUNTER');
  assert.equal(shed.descriptor.unit, '{operation}');
  assert.equal(valueAt(shed, attrs('shadow', 'read')), 3);
  assert.equal(valueAt(shed, attrs('live', 'read')), 1);
  assert.equal(valueAt(shed, attrs('dualwrite', 'write')), 2);
  assert.equal(total(shed), s.read.shed + s.write.shed);
  for (const [a] of points(shed)) {
    assert.deepEqual(Object.keys(a).sort(), Object.keys(attrs('x', 'y')).sort(), 'the attributes of cutover.migration.operations');
  }

  reads.resolve('new');
  reads.resolve('new');
  await migrator.settled();
  metrics = await collect();
  for (const [name, metric] of metrics) {
    for (const [a] of points(metric)) for (const key of Object.keys(a)) assert.ok(ALLOWED_ATTRIBUTES.has(key), `${name}: ${key}`);
  }
  const after = migrator.stats();
  const ops = metrics.get('cutover.migration.operations');
  assert.equal(total(ops), after.read.count + after.write.count, 'every operation, shed or not, once');
  assert.equal(valueAt(ops, attrs('shadow', 'read')), 5);
  assert.equal(total(metrics.get('cutover.migration.consistency.checks')), after.read.consistency.checked);
  assert.equal(after.read.consistency.checked, 2);
  assert.equal(total(metrics.get('cutover.migration.shed')), 6, 'unchanged by the background parts ending');
});

test('the background part\'s measurements reach the meter when it ends', async (t) => {
  const { meter, collect } = otel(t);
  const { migrator, reads } = bgSetup({ stage: 'shadow', order: 'serial', meter });
  await pastAuthoritative(migrator, reads, 'read', 'old');
  await turns();
  let metrics = await collect();
  assert.equal(total(metrics.get('cutover.migration.consistency.checks')), 0, 'not compared yet');
  reads.resolve('new');
  await migrator.settled();
  metrics = await collect();
  assert.equal(valueAt(metrics.get('cutover.migration.operations'), attrs('shadow', 'read')), 1);
  assert.equal(total(metrics.get('cutover.migration.origin.duration')), 2, 'both origins timed');
  assert.equal(total(metrics.get('cutover.migration.consistency.checks')), 1);
  assert.equal(total(metrics.get('cutover.migration.shed')), 0);
});

test('a background origin timing out counts as a timeout in the meter', async (t) => {
  const { meter, collect } = otel(t);
  const { migrator } = bgSetup({
    stage: 'shadow',
    order: 'parallel',
    meter,
    originTimeout: 25,
    readOld: () => 'at once', // cannot time out
    readNew: () => new Promise(() => {}),
  });
  assert.equal((await migrator.read('mig', CTX, 'off')).value, 'at once');
  await migrator.settled();
  const metrics = await collect();
  assert.equal(total(metrics.get('cutover.migration.origin.timeouts')), 1);
  assert.equal(migrator.stats().read.new.timeouts, 1);
});
