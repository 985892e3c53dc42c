// Single flight: concurrent misses for one context share one store query — SPEC.md B3 (beyond).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BigSegmentStoreManager, hashContextKey } from 'cutover';
import { sleep } from './helpers/segments.mjs';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function makeStore({ membership, delayMs = 50 } = {}) {
  const calls = { getMetadata: 0, getMembership: [], inFlight: 0, maxInFlight: 0 };
  const store = {
    async getMetadata() {
      calls.getMetadata++;
      return { lastUpToDate: Date.now() };
    },
    async getMembership(hash) {
      calls.getMembership.push(hash);
      calls.inFlight++;
      calls.maxInFlight = Math.max(calls.maxInFlight, calls.inFlight);
      try {
        await sleep(delayMs);
        return membership ? membership(hash, calls.getMembership.length) : { 'seg.g1': true };
      } finally {
        calls.inFlight--;
      }
    },
  };
  return { store, calls };
}

test('20 concurrent lookups of one uncached context → 1 store query, all get the membership', async (t) => {
  const { store, calls } = makeStore();
  const m = new BigSegmentStoreManager({ store });
  t.after(() => m.close());
  const results = await Promise.all(Array.from({ length: 20 }, () => m.getUserMembership('same')));
  assert.equal(calls.getMembership.length, 1, `store queried ${calls.getMembership.length} times`);
  assert.deepEqual(calls.getMembership, [hashContextKey('same')]);
  for (const r of results) {
    assert.equal(r.status, 'HEALTHY');
    assert.deepEqual({ ...r.membership }, { 'seg.g1': true });
  }
  const s = m.stats();
  assert.equal(s.lookups, 20);
  assert.equal(s.membershipQueries, 1);
  assert.equal(s.coalescedLookups, 19);
  // Afterwards it is an ordinary cache hit.
  await m.getUserMembership('same');
  assert.equal(calls.getMembership.length, 1);
});

test('lookups joining an in-flight query later (not in the same tick) also share it', async (t) => {
  const { store, calls } = makeStore({ delayMs: 120 });
  const m = new BigSegmentStoreManager({ store });
  t.after(() => m.close());
  const pending = [m.getUserMembership('k')];
  for (let i = 0; i < 4; i++) {
    await sleep(15);
    pending.push(m.getUserMembership('k'));
  }
  const results = await Promise.all(pending);
  assert.equal(calls.getMembership.length, 1);
  for (const r of results) assert.deepEqual({ ...r.membership }, { 'seg.g1': true });
});

test('concurrent lookups of different contexts are not merged', async (t) => {
  const { store, calls } = makeStore({ membership: (hash) => ({ [hash]: true }) });
  const m = new BigSegmentStoreManager({ store });
  t.after(() => m.close());
  const keys = ['a', 'b', 'c', 'd', 'e'];
  const results = await Promise.all(keys.flatMap((k) => [m.getUserMembership(k), m.getUserMembership(k)]));
  assert.equal(calls.getMembership.length, 5);
  assert.deepEqual(new Set(calls.getMembership), new Set(keys.map(hashContextKey)));
  results.forEach((r, i) => {
    assert.deepEqual(Object.keys(r.membership), [hashContextKey(keys[Math.floor(i / 2)])], 'each context gets its own answer');
  });
  assert.ok(calls.maxInFlight > 1, 'different contexts are queried concurrently');
});

test('a failed shared query fails every waiter, and the error is not cached', async (t) => {
  let fail = true;
  const { store, calls } = makeStore({
    membership: () => {
      if (fail) throw new Error('shared failure');
      return { 'seg.g2': false };
    },
  });
  const errors = [];
  const logger = { ...quiet, error: (...a) => errors.push(a.map(String).join(' ')) };
  const m = new BigSegmentStoreManager({ store, logger });
  t.after(() => m.close());
  const results = await Promise.all(Array.from({ length: 10 }, () => m.getUserMembership('k')));
  assert.equal(calls.getMembership.length, 1);
  for (const r of results) assert.deepEqual({ ...r }, { membership: null, status: 'STORE_ERROR' });
  assert.ok(errors.some((e) => e.startsWith('Big Segment store membership query returned error: ')));

  fail = false;
  const again = await Promise.all(Array.from({ length: 5 }, () => m.getUserMembership('k')));
  assert.equal(calls.getMembership.length, 2, 'a new lookup after the failure queries the store again, once');
  for (const r of again) {
    assert.equal(r.status, 'HEALTHY');
    assert.deepEqual({ ...r.membership }, { 'seg.g2': false });
  }
});

test('after an in-flight query settles, a later miss (expired entry) starts a new one', { timeout: 10_000 }, async (t) => {
  const { store, calls } = makeStore({ delayMs: 20 });
  const m = new BigSegmentStoreManager({ store, contextCacheTimeMs: 50 });
  t.after(() => m.close());
  await Promise.all([m.getUserMembership('k'), m.getUserMembership('k')]);
  assert.equal(calls.getMembership.length, 1);
  await sleep(120);
  await Promise.all([m.getUserMembership('k'), m.getUserMembership('k'), m.getUserMembership('k')]);
  assert.equal(calls.getMembership.length, 2);
});
