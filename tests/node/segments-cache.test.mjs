// Context membership cache: LRU eviction, absolute TTL, null answers — SPEC.md B3 step 2 and "Cache".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BigSegmentStoreManager } from 'cutover';
import { makeStore as makeFakeStore, sleep } from './helpers/segments.mjs';

/** The shared fake store, answering a membership of its own for every context by default. */
const makeStore = (options) => makeFakeStore({ membership: (hash) => ({ [`seg-${hash.slice(0, 6)}.g1`]: true }), ...options });

test('LRU eviction with contextCacheSize 3: a recently used entry survives, the least recently used goes', async (t) => {
  const { store, calls, queriesFor } = makeStore();
  const m = new BigSegmentStoreManager({ store, contextCacheSize: 3, contextCacheTimeMs: 60_000 });
  t.after(() => m.close());
  await m.getUserMembership('a');
  await m.getUserMembership('b');
  await m.getUserMembership('c');
  assert.equal(calls.getMembership.length, 3);
  await m.getUserMembership('a'); // hit: recency is now b, c, a
  assert.equal(calls.getMembership.length, 3, 'a is cached');
  await m.getUserMembership('d'); // evicts b (least recently used), not a (oldest inserted)
  assert.equal(calls.getMembership.length, 4);

  await m.getUserMembership('a');
  assert.equal(queriesFor('a'), 1, 'a was used recently and survives (LRU, not insertion order)');
  await m.getUserMembership('c');
  await m.getUserMembership('d');
  assert.equal(calls.getMembership.length, 4, 'c and d are still cached');
  // recency: a, c, d
  await m.getUserMembership('b');
  assert.equal(queriesFor('b'), 2, 'b was evicted and is queried again');
  // b's insertion evicted a (least recently used); c, d, b remain
  await m.getUserMembership('c');
  await m.getUserMembership('d');
  await m.getUserMembership('b');
  assert.equal(calls.getMembership.length, 5, 'c, d, b are cached');
  await m.getUserMembership('a');
  assert.equal(queriesFor('a'), 2, 'a was evicted by b');
});

test('contextCacheSize 1 holds exactly one context', async (t) => {
  const { store, calls } = makeStore();
  const m = new BigSegmentStoreManager({ store, contextCacheSize: 1, contextCacheTimeMs: 60_000 });
  t.after(() => m.close());
  await m.getUserMembership('a');
  await m.getUserMembership('a');
  assert.equal(calls.getMembership.length, 1);
  await m.getUserMembership('b');
  await m.getUserMembership('b');
  assert.equal(calls.getMembership.length, 2);
  await m.getUserMembership('a');
  assert.equal(calls.getMembership.length, 3, 'a was evicted by b');
});

test('a cache hit returns the cached membership without calling the store', async (t) => {
  let answer = { 'x.g1': true };
  const { store, calls } = makeStore({ membership: () => answer });
  const m = new BigSegmentStoreManager({ store, contextCacheTimeMs: 60_000 });
  t.after(() => m.close());
  const first = await m.getUserMembership('k');
  answer = { 'x.g1': false };
  const second = await m.getUserMembership('k');
  assert.equal(calls.getMembership.length, 1);
  assert.deepEqual({ ...second.membership }, { 'x.g1': true }, 'the cached answer, not the store’s new one');
  assert.deepEqual({ ...first.membership }, { ...second.membership });
  assert.equal(second.status, 'HEALTHY');
});

test('TTL is absolute from insertion: a hot context (every ~20 ms) with a 100 ms TTL is re-queried about every 100 ms', { timeout: 15_000 }, async (t) => {
  const { store, calls } = makeStore();
  const m = new BigSegmentStoreManager({ store, contextCacheTimeMs: 100, statusPollIntervalMs: 60_000 });
  t.after(() => m.close());
  const started = performance.now();
  let lookups = 0;
  while (performance.now() - started < 1000) {
    await m.getUserMembership('hot');
    lookups++;
    await sleep(20);
  }
  const n = calls.getMembership.length;
  assert.ok(lookups >= 15, `enough lookups were made (${lookups})`);
  assert.ok(n >= 4 && n <= 15, `expected ~10 store queries in 1 s with a 100 ms TTL, got ${n} for ${lookups} lookups`);
  const gaps = calls.times.slice(1).map((time, i) => time - calls.times[i]);
  for (const gap of gaps) {
    assert.ok(gap >= 80, `re-queried after ${Math.round(gap)} ms: an entry must live ~100 ms (gaps ${gaps.map(Math.round)})`);
    assert.ok(gap <= 450, `a hot entry must still expire ~100 ms after insertion, gap ${Math.round(gap)} ms`);
  }
});

test('an entry is not refreshed on read: it expires on schedule even while hot', { timeout: 10_000 }, async (t) => {
  const { store, calls } = makeStore();
  const m = new BigSegmentStoreManager({ store, contextCacheTimeMs: 300, statusPollIntervalMs: 60_000 });
  t.after(() => m.close());
  await m.getUserMembership('k');
  const t0 = performance.now();
  while (performance.now() - t0 < 150) {
    await m.getUserMembership('k');
    await sleep(10);
  }
  assert.equal(calls.getMembership.length, 1, 'still cached at ~150 ms');
  while (performance.now() - t0 < 700) {
    await m.getUserMembership('k');
    await sleep(10);
  }
  assert.ok(calls.getMembership.length >= 2, 'expired by ~700 ms despite being read every 10 ms');
});

test('a null or undefined store answer is cached as the empty membership {}', async (t) => {
  for (const answer of [null, undefined]) {
    const { store, calls } = makeStore({ membership: () => answer });
    const m = new BigSegmentStoreManager({ store, contextCacheTimeMs: 60_000 });
    t.after(() => m.close());
    const first = await m.getUserMembership('nobody');
    const second = await m.getUserMembership('nobody');
    assert.equal(calls.getMembership.length, 1, `${answer}: the second lookup is a cache hit`);
    for (const r of [first, second]) {
      assert.equal(r.status, 'HEALTHY');
      assert.notEqual(r.membership, null, `${answer}: cached as {}, not null`);
      assert.equal(typeof r.membership, 'object');
      assert.deepEqual(Object.keys(r.membership), []);
    }
    assert.equal(m.stats().cacheHits, 1);
  }
});

test('a cached empty membership also expires after the TTL', { timeout: 10_000 }, async (t) => {
  const { store, calls } = makeStore({ membership: () => null });
  const m = new BigSegmentStoreManager({ store, contextCacheTimeMs: 80, statusPollIntervalMs: 60_000 });
  t.after(() => m.close());
  await m.getUserMembership('k');
  await m.getUserMembership('k');
  assert.equal(calls.getMembership.length, 1);
  await sleep(250);
  await m.getUserMembership('k');
  assert.equal(calls.getMembership.length, 2);
});

test('store errors are not cached', async (t) => {
  let fail = true;
  const { store, calls } = makeStore({
    membership: () => (fail ? Promise.reject(new Error('transient')) : { 'seg.g1': true }),
  });
  const m = new BigSegmentStoreManager({ store, contextCacheTimeMs: 60_000, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  t.after(() => m.close());
  const r1 = await m.getUserMembership('k');
  assert.equal(r1.status, 'STORE_ERROR');
  assert.equal(r1.membership, null);
  fail = false;
  const r2 = await m.getUserMembership('k');
  assert.equal(calls.getMembership.length, 2, 'queried again after an error');
  assert.equal(r2.status, 'HEALTHY');
  assert.deepEqual({ ...r2.membership }, { 'seg.g1': true });
  const r3 = await m.getUserMembership('k');
  assert.equal(calls.getMembership.length, 2, 'the success is cached');
  assert.deepEqual({ ...r3.membership }, { 'seg.g1': true });
});

test('the cache is keyed by the raw context key', async (t) => {
  const { store, calls } = makeStore();
  const m = new BigSegmentStoreManager({ store, contextCacheTimeMs: 60_000 });
  t.after(() => m.close());
  for (const key of ['k', 'K', 'k ', 'é', 'e\u0301', '']) await m.getUserMembership(key);
  assert.equal(calls.getMembership.length, 6, 'distinct keys are distinct entries');
  for (const key of ['k', 'K', 'k ', 'é', 'e\u0301', '']) await m.getUserMembership(key);
  assert.equal(calls.getMembership.length, 6, 'each is a hit the second time');
});
