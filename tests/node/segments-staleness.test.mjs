// Staleness — SPEC.md B4: stale = no metadata, or no lastUpToDate, or now − lastUpToDate ≥ staleAfterMs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeStore, managerFor, sleep } from './helpers/segments.mjs';

function managerWith(t, metadata, options = {}) {
  const { store, calls } = makeStore({ metadata });
  return { m: managerFor(t, { store, ...options }), calls };
}

test('lastUpToDate older than staleAfterMs → STALE; recent → HEALTHY', async (t) => {
  const cases = [
    [Date.now() - 5_000, 1_000, 'STALE'],
    [Date.now() - 60_000, 30_000, 'STALE'],
    [Date.now() - 500, 60_000, 'HEALTHY'],
    [Date.now() - 20_000, 30_000, 'HEALTHY'],
  ];
  for (const [lastUpToDate, staleAfterMs, expected] of cases) {
    const { m } = managerWith(t, () => ({ lastUpToDate }), { staleAfterMs });
    const r = await m.getUserMembership('k');
    assert.equal(r.status, expected, `age ${Date.now() - lastUpToDate} ms, staleAfterMs ${staleAfterMs}`);
    assert.deepEqual({ ...r.membership }, { 'seg.g1': true }, 'membership is returned either way');
    assert.deepEqual({ ...m.statusProvider.lastStatus }, { available: true, stale: expected === 'STALE' });
  }
});

test('exactly staleAfterMs old is stale (≥)', async (t) => {
  const { m } = managerWith(t, () => ({ lastUpToDate: Date.now() - 1000 }), { staleAfterMs: 1000 });
  assert.equal((await m.getUserMembership('k')).status, 'STALE');
});

test('no metadata → stale (null, undefined, {}, lastUpToDate null/undefined)', async (t) => {
  for (const [label, metadata] of [
    ['null', () => null],
    ['undefined', () => undefined],
    ['{}', () => ({})],
    ['lastUpToDate: null', () => ({ lastUpToDate: null })],
    ['lastUpToDate: undefined', () => ({ lastUpToDate: undefined })],
  ]) {
    const { m } = managerWith(t, metadata);
    const r = await m.getUserMembership('k');
    assert.equal(r.status, 'STALE', label);
    assert.deepEqual({ ...(await m.statusProvider.getStatus()) }, { available: true, stale: true }, label);
  }
});

test('a store becomes stale over time with a fixed lastUpToDate (re-polled on demand)', { timeout: 10_000 }, async (t) => {
  const lastUpToDate = Date.now();
  const { m } = managerWith(t, () => ({ lastUpToDate }), { staleAfterMs: 200, statusPollIntervalMs: 50 });
  const seen = [];
  m.statusProvider.addListener((s) => seen.push({ ...s }));
  assert.equal((await m.getUserMembership('k')).status, 'HEALTHY');
  await sleep(400);
  assert.equal((await m.getUserMembership('k')).status, 'STALE');
  assert.deepEqual(seen, [{ available: true, stale: true }]);
});

test('a store that catches up becomes HEALTHY again', { timeout: 10_000 }, async (t) => {
  let lastUpToDate = Date.now() - 10_000;
  const { m } = managerWith(t, () => ({ lastUpToDate }), { staleAfterMs: 1000, statusPollIntervalMs: 30 });
  assert.equal((await m.getUserMembership('k')).status, 'STALE');
  lastUpToDate = Date.now();
  await sleep(80);
  assert.equal((await m.getUserMembership('k')).status, 'HEALTHY');
});

test('an unavailable store is not stale: STORE_ERROR wins', async (t) => {
  const { m } = managerWith(t, () => Promise.reject(new Error('down')), {
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
  const r = await m.getUserMembership('k');
  assert.equal(r.status, 'STORE_ERROR');
  assert.deepEqual({ ...m.statusProvider.lastStatus }, { available: false, stale: false });
});
