// CommonJS entry — API.md §3 "Runtimes" (Node ≥ 20, ESM import and CommonJS require).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');

const MIGRATION_EXPORTS = [
  'MigratorBuilder',
  'MigratorConfigError',
  'OpTracker',
  'migrationVariation',
  'launchDarklyClient',
  'fixedStage',
  'failure',
];

test("require('cutover') exposes the migration API as functions", () => {
  const cutover = require('cutover');
  for (const name of MIGRATION_EXPORTS) {
    assert.equal(typeof cutover[name], 'function', name);
  }
});

test("require('cutover') and import('cutover') export the same names with the same kinds", async () => {
  const cjs = require('cutover');
  const esm = await import('cutover');
  const names = (mod) =>
    Object.keys(mod)
      .filter((k) => k !== 'default' && k !== '__esModule')
      .sort();
  assert.deepEqual(names(cjs), names(esm));
  for (const name of names(esm)) assert.equal(typeof cjs[name], typeof esm[name], name);
});

test('CommonJS build: a full read/write round trip with events', async () => {
  const { MigratorBuilder } = require('cutover');
  const events = [];
  const client = { migrationVariation: () => ({ value: 'shadow', flagVersion: 2 }), trackMigrationOp: (e) => events.push(e) };
  const payload = { id: 1 };
  const seen = [];
  const m = new MigratorBuilder(client, { logger: { debug() {}, info() {}, warn() {}, error() {} } })
    .read((p, s) => (seen.push([p, s instanceof AbortSignal]), 'o'), (p) => (seen.push([p, true]), 'n'), (a, b) => a !== b)
    .write(() => 'wo', () => 'wn')
    .build();
  const r = await m.read('flag', { kind: 'user', key: 'u' }, 'off', payload);
  assert.equal(r.origin, 'old');
  assert.equal(r.value, 'o');
  for (const [p, ok] of seen) {
    assert.equal(p, payload);
    assert.ok(ok);
  }
  const w = await m.write('flag', { kind: 'user', key: 'u' }, 'off');
  assert.equal(w.authoritative.value, 'wo');
  assert.equal(w.nonAuthoritative.value, 'wn');
  assert.equal(events.length, 2);
  assert.equal(events[0].kind, 'migration_op');
  assert.deepEqual(events[0].evaluation, { key: 'flag', value: 'shadow', default: 'off', version: 2 });
  assert.deepEqual(events[0].measurements.find((x) => x.key === 'consistent'), { key: 'consistent', value: true });
  assert.equal(m.stats().read.count, 1);
});

test('CommonJS build: build() errors are MigratorConfigError with the exact messages', () => {
  const { MigratorBuilder, MigratorConfigError } = require('cutover');
  const b = new MigratorBuilder({ migrationVariation: () => 'off' });
  assert.throws(() => b.build(), (e) => e instanceof MigratorConfigError && e instanceof Error && e.message === 'read configuration not provided');
  b.read(() => 1, () => 2);
  assert.throws(() => b.build(), (e) => e instanceof MigratorConfigError && e.message === 'write configuration not provided');
});

test('CommonJS build: validation errors are TypeErrors', async () => {
  const { MigratorBuilder, fixedStage, failure, OpTracker } = require('cutover');
  assert.throws(() => fixedStage('bogus'), TypeError);
  const b = new MigratorBuilder(fixedStage('off'));
  assert.throws(() => b.readExecutionOrder('sideways'), TypeError);
  assert.throws(() => b.read('x', () => 1), TypeError);
  const m = b.read(() => failure('f'), () => 1).write(() => 1, () => 1).build();
  const r = await m.read('k', { key: 'u' }, 'off');
  assert.equal(r.success, false);
  assert.equal(r.error, 'f');
  await assert.rejects(() => m.read(5, { key: 'u' }, 'off'), TypeError);
  assert.throws(() => new OpTracker('k', { key: 'u' }, { value: 'off' }, 'off').build(), { message: 'operation not provided' });
});

test('CommonJS require returns the same module object on repeated require', () => {
  assert.equal(require('cutover'), require('cutover'));
});
