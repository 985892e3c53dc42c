// OpenTelemetry metrics (issue 14 item 3): MigratorBuilder#meter and BigSegmentStoreManager's
// `meter` option, recorded into @opentelemetry/sdk-metrics 2.12 and read back from its
// in-memory exporter: names, units, bucket advice, attributes, and values against stats().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BigSegmentStoreManager, createMigration, failure, fixedStage, LDConcurrentExecution, MigratorBuilder } from 'cutover';
import { ALLOWED_ATTRIBUTES, otel, points, total, valueAt } from './helpers/otel.mjs';
import { makeLogger, makeStore, sleep } from './helpers/segments.mjs';

const SECRET = 'context-key-that-must-not-appear';
const CTX = { kind: 'user', key: SECRET };
const attrs = (stage, operation, extra = {}) => ({
  'feature_flag.key': 'mig',
  'cutover.migration.stage': stage,
  'cutover.migration.operation': operation,
  ...extra,
});

/** A client serving `stage` for every flag. */
const serving = (stage) => ({ migrationVariation: () => ({ value: stage }) });

function assertOnlyAllowedAttributes(metrics) {
  for (const [name, metric] of metrics) {
    for (const [a] of points(metric)) {
      for (const key of Object.keys(a)) assert.ok(ALLOWED_ATTRIBUTES.has(key), `${name} has attribute ${key}`);
    }
  }
  assert.ok(!JSON.stringify([...metrics.values()]).includes(SECRET), 'no context key in any metric');
}

test('migration instruments: names, kinds, units, bucket advice', async (t) => {
  const { meter, collect } = otel(t);
  const m = new MigratorBuilder(fixedStage('shadow'))
    .read(async () => 1, async () => 1, (a, b) => a === b)
    .write(async () => 'o', async () => 'n')
    .originTimeout(1000)
    .meter(meter)
    .build();
  await m.read('mig', CTX, 'off');
  const metrics = await collect();
  const d = (n) => metrics.get(n)?.descriptor;
  assert.deepEqual(
    [...metrics.keys()].sort(),
    ['cutover.migration.consistency.checks', 'cutover.migration.operations', 'cutover.migration.origin.duration'],
    'only instruments with measurements are exported',
  );
  assert.equal(d('cutover.migration.operations').unit, '{operation}');
  assert.equal(d('cutover.migration.operations').type, 'COUNTER');
  assert.equal(d('cutover.migration.origin.duration').unit, 's');
  assert.equal(d('cutover.migration.origin.duration').type, 'HISTOGRAM');
  const hist = metrics.get('cutover.migration.origin.duration').dataPoints[0].value;
  assert.deepEqual(hist.buckets.boundaries, [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  assert.match(d('cutover.migration.origin.duration').description, /origin call/);
});

test('migration metrics agree with stats(): operations, durations, errors, timeouts, consistency', async (t) => {
  const { meter, collect } = otel(t);
  let stage = 'shadow';
  const client = { migrationVariation: () => ({ value: stage }) };
  let n = 0;
  const m = new MigratorBuilder(client)
    .readExecutionOrder('serial')
    .read(
      async () => 'same',
      async () => {
        n++;
        if (n % 3 === 0) throw new TypeError('bad read');
        if (n % 3 === 1) await sleep(60);
        return n % 2 ? 'same' : 'different';
      },
      (a, b) => a === b,
    )
    .write(async () => failure(new RangeError('no write')), async () => 'n')
    .originTimeout(40)
    .meter(meter)
    .build();
  for (let i = 0; i < 9; i++) await m.read('mig', CTX, 'off');
  stage = 'live';
  for (let i = 0; i < 2; i++) await m.read('mig', CTX, 'off');
  stage = 'dualwrite';
  await m.write('mig', CTX, 'off', { p: 1 });
  const s = m.stats();
  const metrics = await collect();
  assertOnlyAllowedAttributes(metrics);
  const ops = metrics.get('cutover.migration.operations');
  assert.equal(valueAt(ops, attrs('shadow', 'read')), s.read.byStage.shadow);
  assert.equal(valueAt(ops, attrs('live', 'read')), s.read.byStage.live);
  assert.equal(valueAt(ops, attrs('dualwrite', 'write')), s.write.count);
  assert.equal(total(ops), s.read.count + s.write.count);

  const duration = metrics.get('cutover.migration.origin.duration');
  const calls = (stg, op, origin) => valueAt(duration, attrs(stg, op, { 'cutover.migration.origin': origin }))?.count ?? 0;
  assert.equal(calls('shadow', 'read', 'old') + calls('live', 'read', 'old'), s.read.old.invoked);
  assert.equal(calls('shadow', 'read', 'new') + calls('live', 'read', 'new'), s.read.new.invoked);
  assert.equal(total(duration), s.read.old.invoked + s.read.new.invoked + s.write.old.invoked + s.write.new.invoked);
  const slowest = Math.max(...duration.dataPoints.map((p) => p.value.max));
  assert.ok(slowest >= 0.035 && slowest < 1, `durations are in seconds (max ${slowest})`);

  const errors = metrics.get('cutover.migration.origin.errors');
  assert.equal(total(errors), s.read.new.errors + s.read.old.errors + s.write.old.errors + s.write.new.errors);
  const types = new Set(points(errors).map(([a]) => a['error.type']));
  assert.deepEqual([...types].sort(), ['RangeError', 'TypeError', 'timeout']);
  assert.equal(valueAt(errors, attrs('dualwrite', 'write', { 'cutover.migration.origin': 'old', 'error.type': 'RangeError' })), 1);
  const timeouts = metrics.get('cutover.migration.origin.timeouts');
  assert.equal(total(timeouts), s.read.new.timeouts);
  assert.ok(s.read.new.timeouts >= 3, 'the slow reads timed out');
  for (const [a] of points(timeouts)) assert.equal(a['cutover.migration.origin'], 'new');

  const checks = metrics.get('cutover.migration.consistency.checks');
  const mismatches = metrics.get('cutover.migration.consistency.mismatches');
  assert.equal(total(checks), s.read.consistency.checked);
  assert.equal(total(mismatches), s.read.consistency.checked - s.read.consistency.consistent);
  assert.ok(total(mismatches) > 0 && total(mismatches) < total(checks));
});

test('createMigration takes a meter too (LaunchDarkly-shaped options)', async (t) => {
  const { meter, collect } = otel(t);
  const ld = {
    migrationVariation: async () => ({ value: 'live', tracker: undefined }),
    trackMigration() {},
  };
  const migration = createMigration(ld, {
    execution: new LDConcurrentExecution(),
    readOld: async () => ({ success: true, result: 'o' }),
    readNew: async () => ({ success: true, result: 'n' }),
    writeOld: async () => ({ success: true, result: 'o' }),
    writeNew: async () => ({ success: true, result: 'n' }),
    meter,
  });
  await migration.read('mig', CTX, 'off');
  const metrics = await collect();
  assert.equal(valueAt(metrics.get('cutover.migration.operations'), attrs('live', 'read')), 1);
});

test('a meter is validated when it is given; without one nothing is recorded', async () => {
  const b = new MigratorBuilder(fixedStage('off'));
  assert.throws(() => b.meter(null), { name: 'TypeError', message: /^meter: meter must be an OpenTelemetry Meter, got null/ });
  assert.throws(() => b.meter({ createCounter() {} }), {
    name: 'TypeError',
    message: /createCounter\('cutover\.migration\.operations'\) must return an instrument, got undefined/,
  });
  assert.throws(() => b.meter({ createCounter: () => ({ add() {} }) }), { name: 'TypeError', message: /meter: meter\.createHistogram must be a function/ });
  assert.throws(() => new BigSegmentStoreManager({ meter: 5 }), { name: 'TypeError', message: /options\.meter must be an OpenTelemetry Meter, got number 5/ });
  const noGauge = { createCounter: () => ({ add() {} }), createHistogram: () => ({ record() {} }) };
  assert.throws(() => new BigSegmentStoreManager({ meter: noGauge }), { name: 'TypeError', message: /options\.meter\.createObservableGauge must be a function/ });
});

test('instruments are read live; a failing one never fails the operation and is logged once', async () => {
  const adds = [];
  const counter = { add: (v, a) => adds.push([v, a]) };
  const meter = { createCounter: () => counter, createHistogram: () => ({ record() {} }) };
  const log = makeLogger();
  const m = new MigratorBuilder(serving('off'), { logger: log.logger }).read(async () => 1, async () => 2).write(async () => 1, async () => 2).meter(meter).build();
  await m.read('mig', CTX, 'off');
  assert.deepEqual(adds, [[1, attrs('off', 'read')]]);
  assert.ok(Object.isFrozen(adds[0][1]), 'attribute objects are frozen (and reused)');
  const later = [];
  counter.add = (v) => later.push(v); // installed after build(): takes effect
  await m.read('mig', CTX, 'off');
  assert.deepEqual(later, [1]);
  counter.add = () => {
    throw new Error('exporter down');
  };
  assert.deepEqual((await m.read('mig', CTX, 'off')).value, 1);
  await m.read('mig', CTX, 'off');
  const warnings = log.texts('warn').filter((w) => w.includes('exporter down'));
  assert.equal(warnings.length, 1, log.texts('warn').join('\n'));
  assert.match(warnings[0], /cutover\.migration\.operations add\(\) failed/);
});

test('a meter callback may call back into cutover (migrations and Big Segments)', async (t) => {
  const { store } = makeStore();
  let manager;
  let nested = 0;
  const meter = {
    createCounter: (name) => ({
      add() {
        if (nested > 20) return;
        nested++;
        if (name === 'cutover.big_segments.lookups') manager.getUserMembership('inner').then(() => {});
        if (name === 'cutover.migration.operations') m.read('mig', CTX, 'off').then(() => {});
      },
    }),
    createHistogram: () => ({ record() {} }),
    createObservableGauge: () => ({ addCallback() {}, removeCallback() {} }),
  };
  manager = new BigSegmentStoreManager({ store, meter });
  t.after(() => manager.close());
  const m = new MigratorBuilder(serving('live')).read(async () => 1, async () => 2).write(async () => 1, async () => 2).meter(meter).build();
  assert.equal((await m.read('mig', CTX, 'off')).value, 2);
  for (const key of ['a', 'a', 'b', 'a']) assert.equal((await manager.getUserMembership(key)).status, 'HEALTHY');
  await sleep(20);
  assert.ok(nested > 2);
  assert.equal((await manager.getUserMembership('a')).membership['seg.g1'], true, 'the warm key is still right after nested lookups');
});

test('big segments metrics agree with stats(): lookups, cache hits, store queries, durations', async (t) => {
  const { meter, collect } = otel(t);
  let failing = false;
  const { store } = makeStore({
    membership: async (hash) => {
      await sleep(5);
      if (failing) throw new TypeError('store down');
      return { [`seg.${hash.length}`]: true };
    },
  });
  const manager = new BigSegmentStoreManager({ store, meter, logger: makeLogger().logger });
  t.after(() => manager.close());
  for (const key of ['a', 'b', 'a', 'a', 'c', 'b']) await manager.getUserMembership(key);
  await Promise.all([manager.getUserMembership('d'), manager.getUserMembership('d')]); // one query for both
  failing = true;
  assert.equal((await manager.getUserMembership('e')).status, 'STORE_ERROR');
  const s = manager.stats();
  const metrics = await collect();
  assertOnlyAllowedAttributes(metrics);
  assert.equal(total(metrics.get('cutover.big_segments.lookups')), s.lookups);
  assert.equal(total(metrics.get('cutover.big_segments.cache_hits')), s.cacheHits);
  assert.equal(total(metrics.get('cutover.big_segments.store_queries')), s.membershipQueries);
  assert.deepEqual([s.lookups, s.cacheHits, s.membershipQueries], [9, 3, 5]);
  assert.equal(valueAt(metrics.get('cutover.big_segments.store_queries'), { 'error.type': 'TypeError' }), 1);
  const duration = metrics.get('cutover.big_segments.store.duration');
  assert.equal(duration.descriptor.unit, 's');
  assert.equal(total(duration), s.membershipQueries);
  assert.ok(valueAt(duration, {}).min >= 0.004, 'seconds');
  const gauge = metrics.get('cutover.big_segments.status');
  assert.equal(gauge.descriptor.type, 'OBSERVABLE_GAUGE');
  assert.deepEqual(points(gauge), [[{}, 0]], 'available and fresh');
});

test('big segments status gauge: stale 1, unavailable 2, nothing before a poll', async (t) => {
  const { meter, collect } = otel(t);
  let metadata = () => ({ lastUpToDate: Date.now() - 60_000 });
  const { store } = makeStore({ metadata: () => metadata() });
  const manager = new BigSegmentStoreManager({ store, meter, staleAfterMs: 1000, logger: makeLogger().logger });
  assert.equal((await collect()).get('cutover.big_segments.status'), undefined, 'no status yet');
  await manager.statusProvider.getStatus();
  assert.deepEqual(points((await collect()).get('cutover.big_segments.status')), [[{}, 1]]);
  // Another manager reports on its own meter (on one meter, the two would share one series).
  const second = otel(t);
  const down = makeStore({ metadata: () => { throw new Error('down'); } }).store;
  const other = new BigSegmentStoreManager({ store: down, meter: second.meter, logger: makeLogger().logger });
  await other.statusProvider.getStatus();
  assert.deepEqual(points((await second.collect()).get('cutover.big_segments.status')), [[{}, 2]]);
  assert.deepEqual(points((await collect()).get('cutover.big_segments.status')), [[{}, 1]]);
  await other.close();
  await manager.close();
});

test('big segments status gauge: its callback is removed at close() (the meter no longer holds the manager)', async () => {
  const callbacks = new Set();
  const meter = {
    createCounter: () => ({ add() {} }),
    createHistogram: () => ({ record() {} }),
    createObservableGauge: () => ({ addCallback: (cb) => callbacks.add(cb), removeCallback: (cb) => callbacks.delete(cb) }),
  };
  const manager = new BigSegmentStoreManager({ store: makeStore().store, meter });
  assert.equal(callbacks.size, 1);
  const seen = [];
  const result = { observe: (v, a) => seen.push([v, a]) };
  for (const cb of callbacks) cb(result);
  assert.deepEqual(seen, [], 'nothing before the first poll');
  await manager.statusProvider.getStatus();
  for (const cb of callbacks) cb(result);
  assert.deepEqual(seen, [[0, undefined]]);
  await manager.close();
  await manager.close();
  assert.equal(callbacks.size, 0);
});
