// Status polling: on demand without start(), background with start(), never overlapping —
// API.md §2 (start, "Without start() …"), SPEC.md B3 step 4, B4.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BigSegmentStoreManager } from 'cutover';
import { freshMetadata, makeLogger, metadataDownWhen, sleep } from './helpers/segments.mjs';

/** A store counting status polls and how many of them are in flight at once. */
function makeStore({ metadataDelayMs = 0, metadata = freshMetadata } = {}) {
  const calls = { getMetadata: 0, getMembership: 0, inFlight: 0, maxInFlight: 0 };
  const store = {
    async getMetadata() {
      calls.getMetadata++;
      calls.inFlight++;
      calls.maxInFlight = Math.max(calls.maxInFlight, calls.inFlight);
      try {
        if (metadataDelayMs) await sleep(metadataDelayMs);
        return metadata();
      } finally {
        calls.inFlight--;
      }
    },
    async getMembership() {
      calls.getMembership++;
      return { 'seg.g1': true };
    },
  };
  return { store, calls };
}

test('without start(): no background polling; a lookup re-polls inline once the status is older than the interval', { timeout: 10_000 }, async (t) => {
  const { store, calls } = makeStore();
  const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 100, contextCacheTimeMs: 60_000 });
  t.after(() => m.close());
  await m.getUserMembership('k');
  assert.equal(calls.getMetadata, 1, 'the first lookup polls inline');
  await m.getUserMembership('k');
  await sleep(20);
  await m.getUserMembership('k');
  assert.equal(calls.getMetadata, 1, 'a fresh status is reused');
  await sleep(400);
  assert.equal(calls.getMetadata, 1, 'nothing polls while idle without start()');
  await m.getUserMembership('k'); // cache hit, but the status is old
  assert.equal(calls.getMetadata, 2, 're-polled inline by a lookup (even a cache hit)');
  assert.equal(calls.getMembership, 1, 'the membership itself was still cached');
});

test('without start(): a hot context re-polls about once per interval', { timeout: 10_000 }, async (t) => {
  const { store, calls } = makeStore();
  const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 100, contextCacheTimeMs: 60_000 });
  t.after(() => m.close());
  const t0 = performance.now();
  while (performance.now() - t0 < 1000) {
    await m.getUserMembership('k');
    await sleep(10);
  }
  assert.ok(calls.getMetadata >= 4 && calls.getMetadata <= 14, `expected ~10 polls in 1 s, got ${calls.getMetadata}`);
});

test('without start(): the inline re-poll result is what the lookup reports', { timeout: 10_000 }, async (t) => {
  let down = false;
  const { store } = makeStore({ metadata: metadataDownWhen(() => down, 'down now') });
  const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 50, logger: makeLogger().logger });
  t.after(() => m.close());
  assert.equal((await m.getUserMembership('k')).status, 'HEALTHY');
  down = true;
  await sleep(100);
  assert.equal((await m.getUserMembership('k')).status, 'STORE_ERROR', 'this lookup already sees the new status');
});

test('with start(): background polling every statusPollIntervalMs, without lookups', { timeout: 10_000 }, async (t) => {
  const { store, calls } = makeStore();
  const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 50 });
  t.after(() => m.close());
  m.start();
  await sleep(700);
  assert.ok(calls.getMetadata >= 4 && calls.getMetadata <= 18, `expected ~14 polls in 700 ms, got ${calls.getMetadata}`);
  assert.equal(calls.getMembership, 0);
  assert.deepEqual({ ...m.statusProvider.lastStatus }, { available: true, stale: false });
});

test('with start(): status changes reach listeners without any lookup', { timeout: 10_000 }, async (t) => {
  let down = false;
  const { store } = makeStore({ metadata: metadataDownWhen(() => down, 'down') });
  const log = makeLogger();
  const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 30, logger: log.logger });
  t.after(() => m.close());
  const seen = [];
  let resolveChange;
  const changed = new Promise((resolve) => (resolveChange = resolve));
  m.statusProvider.addListener((s) => {
    seen.push({ ...s });
    resolveChange();
  });
  m.start();
  await sleep(150);
  assert.notEqual(m.statusProvider.lastStatus, undefined, 'the poller produced a status');
  assert.deepEqual(seen, [], 'the first status is silent');
  down = true;
  const timer = setTimeout(() => resolveChange('timeout'), 3000);
  await changed;
  clearTimeout(timer);
  assert.deepEqual(seen, [{ available: false, stale: false }]);
  assert.ok(log.texts('error').some((s) => s.startsWith('Big Segment store status query returned error: ')));
});

test('start() is idempotent: calling it three times does not triple the polling', { timeout: 10_000 }, async (t) => {
  const { store, calls } = makeStore();
  const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 50 });
  t.after(() => m.close());
  m.start();
  m.start();
  m.start();
  await sleep(700);
  assert.ok(calls.getMetadata >= 4 && calls.getMetadata <= 18, `expected ~14 polls in 700 ms, got ${calls.getMetadata}`);
  assert.equal(calls.maxInFlight, 1);
});

test('with start(): polls never overlap when getMetadata is slower than the interval', { timeout: 10_000 }, async (t) => {
  const { store, calls } = makeStore({ metadataDelayMs: 120 });
  const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 20, contextCacheTimeMs: 10 });
  t.after(() => m.close());
  m.start();
  const lookups = [];
  const t0 = performance.now();
  while (performance.now() - t0 < 800) {
    lookups.push(m.getUserMembership(`k${lookups.length % 3}`));
    lookups.push(m.statusProvider.getStatus());
    await sleep(15);
  }
  await Promise.all(lookups);
  assert.equal(calls.maxInFlight, 1, `getMetadata calls overlapped (max ${calls.maxInFlight} in flight)`);
  assert.ok(calls.getMetadata >= 3, `the poller kept polling (${calls.getMetadata} polls)`);
  assert.ok(calls.getMetadata <= 12, `at most ~one poll per 120 ms, got ${calls.getMetadata}`);
});

test('without start(): concurrent first lookups and getStatus() calls share one poll', { timeout: 10_000 }, async (t) => {
  const { store, calls } = makeStore({ metadataDelayMs: 80 });
  const m = new BigSegmentStoreManager({ store });
  t.after(() => m.close());
  const results = await Promise.all([
    ...Array.from({ length: 10 }, (_, i) => m.getUserMembership(`user-${i}`)),
    ...Array.from({ length: 5 }, () => m.statusProvider.getStatus()),
  ]);
  assert.equal(calls.maxInFlight, 1, 'status polls never overlap');
  assert.equal(calls.getMetadata, 1, `one poll serves everyone waiting for the first status, got ${calls.getMetadata}`);
  for (const r of results.slice(0, 10)) assert.equal(r.status, 'HEALTHY');
  for (const s of results.slice(10)) assert.deepEqual({ ...s }, { available: true, stale: false });
});

test('without start(): slow inline re-polls never overlap either', { timeout: 10_000 }, async (t) => {
  const { store, calls } = makeStore({ metadataDelayMs: 100 });
  const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 20, contextCacheTimeMs: 60_000 });
  t.after(() => m.close());
  const pending = [];
  const t0 = performance.now();
  while (performance.now() - t0 < 700) {
    pending.push(m.getUserMembership('k'));
    await sleep(10);
  }
  await Promise.all(pending);
  assert.equal(calls.maxInFlight, 1, `getMetadata calls overlapped (max ${calls.maxInFlight})`);
  assert.ok(calls.getMetadata >= 2);
});
