// Membership lookup flow and NOT_CONFIGURED — API.md §2, SPEC.md B3 steps 1–5.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BigSegmentStoreManager, hashContextKey } from 'cutover';
import { makeLogger, makeStore, sleep } from './helpers/segments.mjs';

const plain = (o) => (o == null ? o : { ...o });

test('no store → {membership: null, status: NOT_CONFIGURED}, and nothing else happens', async () => {
  for (const options of [{}, { store: null }, { store: undefined }]) {
    const log = makeLogger();
    const m = new BigSegmentStoreManager({ ...options, logger: log.logger });
    try {
      const result = await m.getUserMembership('user-key');
      assert.deepEqual({ ...result }, { membership: null, status: 'NOT_CONFIGURED' });
      const again = await m.getUserMembership('other');
      assert.deepEqual({ ...again }, { membership: null, status: 'NOT_CONFIGURED' });
      const stats = m.stats();
      assert.equal(stats.membershipQueries, 0);
      assert.equal(stats.statusPolls, 0);
      assert.equal(stats.cacheHits, 0, 'nothing is cached');
      assert.equal(m.statusProvider.lastStatus, undefined, 'no status is polled');
      assert.equal(log.texts('error').length, 0);
      assert.equal(log.texts('warn').length, 0);
    } finally {
      await m.close();
    }
  }
});

test('getUserMembership returns a Promise even for NOT_CONFIGURED', async () => {
  const m = new BigSegmentStoreManager({});
  try {
    const p = m.getUserMembership('k');
    assert.ok(p instanceof Promise || typeof p?.then === 'function');
    await p;
  } finally {
    await m.close();
  }
});

test('healthy store: the membership the store returned, status HEALTHY, queried by hash', async (t) => {
  const { store, calls } = makeStore({ membership: () => ({ 'a.g1': true, 'b.g2': false, 'c.g10': true }) });
  const log = makeLogger();
  const m = new BigSegmentStoreManager({ store, logger: log.logger });
  t.after(() => m.close());
  const { membership, status } = await m.getUserMembership('user-key');
  assert.equal(status, 'HEALTHY');
  assert.deepEqual(plain(membership), { 'a.g1': true, 'b.g2': false, 'c.g10': true });
  assert.deepEqual(calls.getMembership, ['CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=']);
  assert.equal(calls.getMetadata, 1, 'the very first lookup already polled the status');
  assert.deepEqual({ ...m.statusProvider.lastStatus }, { available: true, stale: false });
  assert.equal(log.texts('error').length, 0);
});

test('membership is resolved first, then the status is polled (B3)', async (t) => {
  const { store, calls } = makeStore({
    membership: () => sleep(30).then(() => ({ 'x.g1': true })),
    metadata: () => sleep(5).then(() => ({ lastUpToDate: Date.now() })),
  });
  const m = new BigSegmentStoreManager({ store });
  t.after(() => m.close());
  const result = await m.getUserMembership('k');
  assert.equal(result.status, 'HEALTHY');
  assert.deepEqual(calls.events, ['getMembership:start', 'getMembership:end', 'getMetadata:start', 'getMetadata:end']);
});

test('status unavailable (getMetadata rejects) → STORE_ERROR, membership still returned', async (t) => {
  const { store } = makeStore({
    metadata: () => Promise.reject(new Error('metadata down')),
    membership: () => ({ 'seg.g3': true }),
  });
  const log = makeLogger();
  const m = new BigSegmentStoreManager({ store, logger: log.logger });
  t.after(() => m.close());
  const { membership, status } = await m.getUserMembership('k');
  assert.equal(status, 'STORE_ERROR');
  assert.deepEqual(plain(membership), { 'seg.g3': true });
  assert.deepEqual({ ...m.statusProvider.lastStatus }, { available: false, stale: false });
  assert.ok(
    log.texts('error').some((s) => s.startsWith('Big Segment store status query returned error: ') && s.includes('metadata down')),
    `status error logged, got ${JSON.stringify(log.calls)}`,
  );
});

test('stale store → STALE, membership still returned', async (t) => {
  const { store } = makeStore({ metadata: () => ({ lastUpToDate: Date.now() - 10_000 }) });
  const m = new BigSegmentStoreManager({ store, staleAfterMs: 1000 });
  t.after(() => m.close());
  const { membership, status } = await m.getUserMembership('k');
  assert.equal(status, 'STALE');
  assert.deepEqual(plain(membership), { 'seg.g1': true });
});

test('membership query failure → exactly {membership: null, status: STORE_ERROR}', async (t) => {
  const { store } = makeStore({ membership: () => Promise.reject(new Error('query failed')) });
  const log = makeLogger();
  const m = new BigSegmentStoreManager({ store, logger: log.logger });
  t.after(() => m.close());
  const result = await m.getUserMembership('k');
  assert.deepEqual({ ...result }, { membership: null, status: 'STORE_ERROR' });
  assert.ok(log.texts('error').some((s) => s.startsWith('Big Segment store membership query returned error: ')));
});

test('different contexts are resolved independently', async (t) => {
  const { store, calls } = makeStore({
    membership: (hash) => (hash === hashContextKey('alice') ? { 'a.g1': true } : { 'b.g1': false }),
  });
  const m = new BigSegmentStoreManager({ store });
  t.after(() => m.close());
  const [a, b] = await Promise.all([m.getUserMembership('alice'), m.getUserMembership('bob')]);
  assert.deepEqual(plain(a.membership), { 'a.g1': true });
  assert.deepEqual(plain(b.membership), { 'b.g1': false });
  assert.equal(calls.getMembership.length, 2);
  const stats = m.stats();
  assert.equal(stats.lookups, 2);
  assert.equal(stats.membershipQueries, 2);
});

test('stats count lookups, hits and misses', async (t) => {
  const { store } = makeStore();
  const m = new BigSegmentStoreManager({ store });
  t.after(() => m.close());
  await m.getUserMembership('a');
  await m.getUserMembership('a');
  await m.getUserMembership('b');
  const s = m.stats();
  assert.equal(s.lookups, 3);
  assert.equal(s.cacheHits, 1);
  assert.equal(s.cacheMisses, 2);
  assert.equal(s.membershipQueries, 2);
  assert.equal(s.membershipErrors, 0);
  assert.equal(s.statusErrors, 0);
  assert.ok(s.statusPolls >= 1);
});
