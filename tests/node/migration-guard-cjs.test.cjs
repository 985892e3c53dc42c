// guard() from CommonJS (issue 30; API.md §3 "Runtimes"): require('cutover') trips a guard,
// answers from the old origin while tripped and reports it in stats().guard.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');

test("require('cutover'): guard() trips in live and the old origin answers", async () => {
  const { MigratorBuilder, fixedStage, failure } = require('cutover');
  const changes = [];
  const calls = [];
  const migrator = new MigratorBuilder(fixedStage('live'), { logger: { debug() {}, info() {}, warn() {}, error() {} } })
    .guard({ maxConsecutiveErrors: 2, onChange: (c) => changes.push(`${c.from} -> ${c.to}: ${c.reason}`) })
    .read(() => (calls.push('old'), 'old'), () => (calls.push('new'), failure(new Error('new down'))))
    .write(() => 'o', () => 'n')
    .build();
  for (let i = 0; i < 2; i++) assert.equal((await migrator.read('cjs', { key: 'u' }, 'off')).success, false);
  calls.length = 0;
  const r = await migrator.read('cjs', { key: 'u' }, 'off');
  assert.deepEqual([r.origin, r.value, calls], ['old', 'old', ['old']]);
  assert.deepEqual(changes, ['closed -> tripped: 2 consecutive errors']);
  const { guard } = migrator.stats();
  assert.deepEqual([guard.trips, guard.fallbacks.read, guard.flags.cjs.state], [1, 1, 'tripped']);
  assert.throws(() => new MigratorBuilder(fixedStage('live')).guard({ probeRatio: 0 }), RangeError);
});
