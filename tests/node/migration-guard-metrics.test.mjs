// guard()'s metrics (issue 30, API.md §1 "Guardrails"): the counter
// cutover.migration.guard.changes, one per change, with feature_flag.key and cutover.guard.state
// (the new state); the observable gauge cutover.migration.guard.state (0 closed, 1 probing,
// 2 tripped) per flag key, observed only when the meter makes observable gauges. A fake meter,
// then OpenTelemetry's SDK.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeMeter, guardSetup, sleep, trip } from './helpers/guard.mjs';
import { otel, points, valueAt } from './helpers/otel.mjs';

const CHANGES = 'cutover.migration.guard.changes';
const STATE = 'cutover.migration.guard.state';
const SMALL = { maxConsecutiveErrors: 2, cooldownMs: 30, minCalls: 2, probeRatio: 1 };

test('a fake meter: one counter add per change, with the new state; the gauge reports each flag key', async () => {
  const fake = fakeMeter();
  const g = guardSetup({ meter: fake.meter, guard: SMALL });
  assert.deepEqual(fake.observe(STATE), [], 'nothing before any operation');
  await g.reads(1);
  assert.deepEqual(fake.observe(STATE), [[0, { 'feature_flag.key': 'guarded' }]], 'closed: 0');
  await trip(g, 2);
  assert.deepEqual(fake.counted(CHANGES), [[1, { 'feature_flag.key': 'guarded', 'cutover.guard.state': 'tripped' }]]);
  assert.deepEqual(fake.observe(STATE), [[2, { 'feature_flag.key': 'guarded' }]], 'tripped: 2');
  await sleep(40);
  await g.reads(1);
  assert.deepEqual(fake.observe(STATE), [[1, { 'feature_flag.key': 'guarded' }]], 'probing: 1');
  await g.reads(1);
  assert.deepEqual(fake.observe(STATE), [[0, { 'feature_flag.key': 'guarded' }]], 'closed again: 0');
  assert.deepEqual(
    fake.counted(CHANGES).map(([n, a]) => [n, a['cutover.guard.state']]),
    [
      [1, 'tripped'],
      [1, 'probing'],
      [1, 'closed'],
    ],
  );
  await g.reads(1, 'second-flag');
  const observed = fake.observe(STATE).sort((a, b) => a[1]['feature_flag.key'].localeCompare(b[1]['feature_flag.key']));
  assert.deepEqual(observed, [
    [0, { 'feature_flag.key': 'guarded' }],
    [0, { 'feature_flag.key': 'second-flag' }],
  ]);
});

test('the gauge callback is registered only with guard(); one per migrator', () => {
  const fake = fakeMeter();
  guardSetup({ meter: fake.meter, guard: null });
  assert.equal(fake.callbacks.get(STATE)?.size ?? 0, 0, 'no guard(): no callback');
  guardSetup({ meter: fake.meter, guard: {} });
  guardSetup({ meter: fake.meter, guard: {} });
  assert.equal(fake.callbacks.get(STATE).size, 2);
});

test('a meter without createObservableGauge: the migrator builds, trips, and still counts the changes', async () => {
  const fake = fakeMeter({ gauges: false });
  const g = guardSetup({ meter: fake.meter, guard: { maxConsecutiveErrors: 2 } });
  await trip(g, 2);
  assert.deepEqual((await g.run('read')).called, ['old']);
  assert.deepEqual(fake.counted(CHANGES), [[1, { 'feature_flag.key': 'guarded', 'cutover.guard.state': 'tripped' }]]);
  assert.equal(fake.counted('cutover.migration.operations').length, 3);
});

test('OpenTelemetry’s SDK: the changes counter and the state gauge as exported', async (t) => {
  const { meter, collect } = otel(t);
  const g = guardSetup({ meter, guard: { maxConsecutiveErrors: 2 } });
  await trip(g, 2);
  await trip(g, 2, 'other');
  const metrics = await collect();
  const changes = metrics.get(CHANGES);
  assert.equal(valueAt(changes, { 'feature_flag.key': 'guarded', 'cutover.guard.state': 'tripped' }), 1);
  assert.equal(valueAt(changes, { 'feature_flag.key': 'other', 'cutover.guard.state': 'tripped' }), 1);
  const state = points(metrics.get(STATE)).sort((a, b) => a[0]['feature_flag.key'].localeCompare(b[0]['feature_flag.key']));
  assert.deepEqual(state, [
    [{ 'feature_flag.key': 'guarded' }, 2],
    [{ 'feature_flag.key': 'other' }, 2],
  ]);
});
