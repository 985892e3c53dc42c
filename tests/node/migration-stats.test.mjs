// In-process statistics — API.md §1 "In-process statistics".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failure } from 'cutover';
import { CTX, setup, sleep, makeFakeTracker } from './helpers/migration.mjs';

const EMPTY_ORIGIN = { invoked: 0, errors: 0, timeouts: 0, latencyMs: null };
const EMPTY_OP = { count: 0, byStage: {}, old: EMPTY_ORIGIN, new: EMPTY_ORIGIN, consistency: { checked: 0, consistent: 0, paths: {} }, shed: 0 };

test('a fresh migrator has empty stats', () => {
  const { migrator } = setup();
  assert.deepEqual(migrator.stats(), { read: EMPTY_OP, write: EMPTY_OP, guard: null });
});

test('stats() returns a fresh plain object each time', async () => {
  const { migrator } = setup({ stage: 'off' });
  await migrator.read('m', CTX, 'off');
  const a = migrator.stats();
  const b = migrator.stats();
  assert.notEqual(a, b);
  assert.notEqual(a.read, b.read);
  assert.deepEqual(a, b);
  assert.equal(Object.getPrototypeOf(a), Object.prototype);
  assert.equal(Object.getPrototypeOf(a.read.byStage), Object.prototype);
  a.read.count = 999;
  a.read.old.invoked = 999;
  a.read.byStage.off = 999;
  assert.equal(migrator.stats().read.count, 1);
  assert.equal(migrator.stats().read.old.invoked, 1);
  assert.equal(migrator.stats().read.byStage.off, 1);
  assert.deepEqual(JSON.parse(JSON.stringify(b)), b);
});

test('counts, byStage and invoked per origin across stages', async () => {
  const { migrator } = setup({ stage: 'off' });
  await migrator.read('m', CTX, 'off');
  const sc = setup({ stage: 'shadow' });
  await sc.migrator.read('m', CTX, 'off');
  await sc.migrator.read('m', CTX, 'off');
  sc.client.evaluation = 'complete';
  await sc.migrator.read('m', CTX, 'off');
  sc.client.evaluation = 'live';
  await sc.migrator.write('m', CTX, 'off');
  sc.client.evaluation = 'off';
  await sc.migrator.write('m', CTX, 'off');
  const s = sc.migrator.stats();
  assert.equal(s.read.count, 3);
  assert.deepEqual(s.read.byStage, { shadow: 2, complete: 1 });
  assert.equal(s.read.old.invoked, 2);
  assert.equal(s.read.new.invoked, 3);
  assert.equal(s.read.old.errors, 0);
  assert.equal(s.write.count, 2);
  assert.deepEqual(s.write.byStage, { live: 1, off: 1 });
  assert.equal(s.write.old.invoked, 2);
  assert.equal(s.write.new.invoked, 1);
  assert.deepEqual(s.write.consistency, { checked: 0, consistent: 0, paths: {} });
  assert.equal(migrator.stats().read.count, 1);
});

test('errors are counted for throws, rejections and failure() values', async () => {
  const { migrator } = setup({
    stage: 'shadow',
    readOld: (p, s, n) => {
      if (n === 0) throw new Error('sync');
      if (n === 1) return Promise.reject('async');
      if (n === 2) return failure({ code: 1 });
      return 'ok';
    },
    readNew: () => 'n',
  });
  for (let i = 0; i < 4; i++) await migrator.read('m', CTX, 'off');
  const s = migrator.stats().read;
  assert.equal(s.old.invoked, 4);
  assert.equal(s.old.errors, 3);
  assert.equal(s.old.timeouts, 0);
  assert.equal(s.new.errors, 0);
  assert.equal(s.count, 4);
});

test('latency statistics: one sample per invocation, ordered percentiles, plausible values', async () => {
  const { migrator } = setup({
    stage: 'off',
    readOld: async (p, s, n) => {
      if (n === 9) await sleep(60);
      return 'o';
    },
  });
  for (let i = 0; i < 10; i++) await migrator.read('m', CTX, 'off');
  const l = migrator.stats().read.old.latencyMs;
  assert.notEqual(l, null);
  assert.equal(l.count, 10);
  for (const k of ['mean', 'p50', 'p90', 'p99', 'max']) {
    assert.equal(typeof l[k], 'number', k);
    assert.ok(Number.isFinite(l[k]) && l[k] >= 0, k);
  }
  assert.ok(l.p50 <= l.p90 && l.p90 <= l.p99 && l.p99 <= l.max, JSON.stringify(l));
  assert.ok(l.max >= 58 && l.max < 1000, `max ${l.max}`);
  assert.ok(l.p50 < 30, `p50 ${l.p50}`);
  assert.ok(l.mean >= 5.5 && l.mean < 40, `mean ${l.mean}`);
  assert.equal(migrator.stats().read.new.latencyMs, null);
});

test('latency percentiles track uniform delays within a few ms', async () => {
  const { migrator } = setup({ stage: 'complete', readNew: () => sleep(25).then(() => 'n') });
  for (let i = 0; i < 8; i++) await migrator.read('m', CTX, 'off');
  const l = migrator.stats().read.new.latencyMs;
  assert.equal(l.count, 8);
  assert.ok(l.p50 >= 23 && l.p50 < 200, `p50 ${l.p50}`);
  assert.ok(l.mean >= 23 && l.mean < 200, `mean ${l.mean}`);
});

test('failures get a latency too', async () => {
  const { migrator } = setup({ stage: 'off', readOld: () => { throw new Error('x'); } });
  await migrator.read('m', CTX, 'off');
  assert.equal(migrator.stats().read.old.latencyMs.count, 1);
});

test('statistics count what ran even with trackLatency(false) and trackErrors(false)', async () => {
  const { migrator, events } = setup({
    stage: 'live',
    trackLatency: false,
    trackErrors: false,
    readNew: () => { throw new Error('x'); },
  });
  await migrator.read('m', CTX, 'off');
  await migrator.read('m', CTX, 'off');
  const s = migrator.stats().read;
  assert.equal(s.new.errors, 2);
  assert.equal(s.new.latencyMs.count, 2);
  assert.equal(s.old.latencyMs.count, 2);
  assert.ok(!events[0].measurements.some((m) => m.key === 'latency_ms' || m.key === 'error'));
});

test('consistency: checked counts comparisons that ran, consistent those that returned true', async () => {
  let n = 0;
  const { migrator } = setup({
    stage: 'shadow',
    comparison: () => {
      n++;
      if (n === 3) throw new Error('cmp failed');
      return n % 2 === 1;
    },
  });
  for (let i = 0; i < 5; i++) await migrator.read('m', CTX, 'off');
  // n=1 true, n=2 false, n=3 throws (neither), n=4 false, n=5 true
  assert.deepEqual(migrator.stats().read.consistency, { checked: 4, consistent: 2, paths: {} });
});

test('consistency: not counted when an origin failed or sampling skipped it', async () => {
  const a = setup({ stage: 'shadow', readNew: () => { throw 1; }, comparison: () => true });
  await a.migrator.read('m', CTX, 'off');
  assert.deepEqual(a.migrator.stats().read.consistency, { checked: 0, consistent: 0, paths: {} });
  const b = setup({ evaluation: { value: 'live', checkRatio: 0 }, comparison: () => true });
  await b.migrator.read('m', CTX, 'off');
  assert.deepEqual(b.migrator.stats().read.consistency, { checked: 0, consistent: 0, paths: {} });
});

test('statistics are independent of event sampling', async () => {
  const { migrator, events } = setup({ evaluation: { value: 'shadow', samplingRatio: 0 }, comparison: () => true });
  for (let i = 0; i < 5; i++) await migrator.read('m', CTX, 'off');
  assert.equal(events.length, 0);
  const s = migrator.stats().read;
  assert.equal(s.count, 5);
  assert.equal(s.old.invoked, 5);
  assert.deepEqual(s.consistency, { checked: 5, consistent: 5, paths: {} });
});

test('consistency checks sampled by an external tracker are counted too', async () => {
  const tracker = makeFakeTracker({ sample: true });
  const { migrator } = setup({ evaluation: () => ({ value: 'shadow', tracker }), comparison: () => false });
  await migrator.read('m', CTX, 'off');
  assert.deepEqual(migrator.stats().read.consistency, { checked: 1, consistent: 0, paths: {} });
  const skipping = makeFakeTracker({ sample: false });
  const s2 = setup({ evaluation: () => ({ value: 'shadow', tracker: skipping }), comparison: () => true });
  await s2.migrator.read('m', CTX, 'off');
  assert.deepEqual(s2.migrator.stats().read.consistency, { checked: 0, consistent: 0, paths: {} });
  assert.equal(s2.migrator.stats().read.count, 1);
});

test('resetStats() zeroes everything', async () => {
  const { migrator } = setup({ stage: 'shadow', comparison: () => true, readNew: () => { throw 1; } });
  await migrator.read('m', CTX, 'off');
  await migrator.write('m', CTX, 'off');
  assert.notDeepEqual(migrator.stats(), { read: EMPTY_OP, write: EMPTY_OP, guard: null });
  assert.equal(migrator.resetStats(), undefined);
  assert.deepEqual(migrator.stats(), { read: EMPTY_OP, write: EMPTY_OP, guard: null });
  await migrator.read('m', CTX, 'off');
  assert.equal(migrator.stats().read.count, 1);
  assert.equal(migrator.stats().read.old.latencyMs.count, 1);
});

test('write stats: non-authoritative not run is not invoked', async () => {
  const { migrator } = setup({ stage: 'dualwrite', writeOld: () => failure('nope') });
  await migrator.write('m', CTX, 'off');
  const s = migrator.stats().write;
  assert.equal(s.count, 1);
  assert.equal(s.old.invoked, 1);
  assert.equal(s.old.errors, 1);
  assert.equal(s.new.invoked, 0);
  assert.equal(s.new.latencyMs, null);
});

test('many operations: histogram percentiles stay ordered and count is exact', async () => {
  const { migrator } = setup({ stage: 'rampdown' });
  for (let i = 0; i < 500; i++) await migrator.read('m', CTX, 'off');
  const l = migrator.stats().read.new.latencyMs;
  assert.equal(l.count, 500);
  assert.ok(l.p50 <= l.p90 && l.p90 <= l.p99 && l.p99 <= l.max);
  assert.ok(l.mean <= l.max);
});

test('histogram percentiles are within 2% of the measured latency (single sample)', async () => {
  const { migrator, events } = setup({ stage: 'off', readOld: () => sleep(30).then(() => 'o') });
  await migrator.read('m', CTX, 'off');
  const measured = events[0].measurements.find((m) => m.key === 'latency_ms').values.old;
  const l = migrator.stats().read.old.latencyMs;
  assert.equal(l.count, 1);
  for (const k of ['mean', 'p50', 'p90', 'p99', 'max']) {
    assert.ok(Math.abs(l[k] - measured) <= measured * 0.02 + 1e-9, `${k}=${l[k]} vs measured ${measured}`);
  }
});

test('timeouts are counted even with trackErrors(false) and trackLatency(false)', async () => {
  const { migrator, events } = setup({
    stage: 'off',
    originTimeout: 20,
    trackErrors: false,
    trackLatency: false,
    readOld: () => sleep(300),
  });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.success, false);
  const s = migrator.stats().read.old;
  assert.deepEqual([s.invoked, s.errors, s.timeouts], [1, 1, 1]);
  assert.deepEqual(events[0].measurements, [{ key: 'invoked', values: { old: true } }]);
});
