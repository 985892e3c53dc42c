// Store errors and queryTimeoutMs — SPEC.md B3 step 3, B4 (failure), API.md §3 "Timeouts".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BigSegmentStoreManager } from 'cutover';
import { makeLogger, managerFor, sleep } from './helpers/segments.mjs';

// A store promise that never settles holds no handle of its own. A real application has sockets
// that keep Node running; these in-process tests hold a ref'd interval for the same reason, so
// they measure the timeout itself. (Whether a pending lookup alone keeps Node alive until its
// timeout fires is checked in a child process in segments-keepalive.test.mjs.)
function keepAlive(t) {
  const handle = setInterval(() => {}, 1000);
  t.after(() => clearInterval(handle));
}
const MEMBERSHIP_PREFIX = 'Big Segment store membership query returned error: ';
const STATUS_PREFIX = 'Big Segment store status query returned error: ';

function storeWith({ getMetadata, getMembership }) {
  const calls = { getMetadata: 0, getMembership: 0 };
  return {
    calls,
    store: {
      getMetadata() {
        calls.getMetadata++;
        return getMetadata ? getMetadata() : Promise.resolve({ lastUpToDate: Date.now() });
      },
      getMembership(hash) {
        calls.getMembership++;
        return getMembership ? getMembership(hash) : Promise.resolve({ 'seg.g1': true });
      },
    },
  };
}

/**
 * A manager (closed after `t`) with a recording logger, over a store whose `method` never settles;
 * Node is kept alive meanwhile.
 */
function hangingManager(t, method, options) {
  const log = makeLogger();
  keepAlive(t);
  const { store } = storeWith({ [method]: () => new Promise(() => {}) });
  return { m: managerFor(t, { store, logger: log.logger, ...options }), log };
}

const failures = {
  'a rejection with an Error': () => Promise.reject(new Error('boom-rejected')),
  'a synchronous throw': () => {
    throw new Error('boom-thrown');
  },
  'a rejection with a string': () => Promise.reject('boom-string'),
  'an async function that throws': async () => {
    await sleep(5);
    throw new TypeError('boom-async');
  },
};

for (const [name, getMembership] of Object.entries(failures)) {
  test(`membership query failing with ${name} → STORE_ERROR, logged with the exact prefix`, async (t) => {
    const log = makeLogger();
    const { store } = storeWith({ getMembership });
    const m = new BigSegmentStoreManager({ store, logger: log.logger });
    t.after(() => m.close());
    const result = await m.getUserMembership('k');
    assert.deepEqual({ ...result }, { membership: null, status: 'STORE_ERROR' });
    const lines = log.texts('error').filter((s) => s.startsWith(MEMBERSHIP_PREFIX));
    assert.equal(lines.length, 1, `one error line with the prefix, got ${JSON.stringify(log.calls.map((c) => [c.level, c.text]))}`);
    assert.match(lines[0], /boom-/, 'the line carries the error');
    assert.equal(m.stats().membershipErrors, 1);
  });
}

test('a hanging getMembership → STORE_ERROR within about queryTimeoutMs, logged', { timeout: 10_000 }, async (t) => {
  const { m, log } = hangingManager(t, 'getMembership', { queryTimeoutMs: 200 });
  const started = performance.now();
  const result = await m.getUserMembership('k');
  const elapsed = performance.now() - started;
  assert.deepEqual({ ...result }, { membership: null, status: 'STORE_ERROR' });
  assert.ok(elapsed >= 150, `gave up after only ${Math.round(elapsed)} ms`);
  assert.ok(elapsed < 2000, `took ${Math.round(elapsed)} ms with queryTimeoutMs 200`);
  assert.ok(
    log.texts('error').some((s) => s.startsWith(MEMBERSHIP_PREFIX)),
    `timeout logged with the prefix, got ${JSON.stringify(log.calls.map((c) => c.text))}`,
  );
});

test('a late answer after a timeout is not cached: the next lookup queries again', { timeout: 10_000 }, async (t) => {
  let n = 0;
  const { store, calls } = storeWith({
    getMembership: () => {
      n++;
      return n === 1 ? sleep(300).then(() => ({ 'late.g1': true })) : Promise.resolve({ 'fresh.g1': true });
    },
  });
  const m = new BigSegmentStoreManager({ store, logger: makeLogger().logger, queryTimeoutMs: 80, contextCacheTimeMs: 60_000 });
  t.after(() => m.close());
  const r1 = await m.getUserMembership('k');
  assert.equal(r1.status, 'STORE_ERROR');
  await sleep(400); // the first call has resolved by now
  const r2 = await m.getUserMembership('k');
  assert.equal(calls.getMembership, 2, 'queried again');
  assert.deepEqual({ ...r2.membership }, { 'fresh.g1': true });
});

test('a slow-but-in-time store call succeeds', { timeout: 10_000 }, async (t) => {
  const { store } = storeWith({ getMembership: () => sleep(100).then(() => ({ 'seg.g1': true })) });
  const m = new BigSegmentStoreManager({ store, logger: makeLogger().logger, queryTimeoutMs: 1500 });
  t.after(() => m.close());
  const r = await m.getUserMembership('k');
  assert.equal(r.status, 'HEALTHY');
  assert.deepEqual({ ...r.membership }, { 'seg.g1': true });
});

test('a hanging getMetadata → status unavailable within about queryTimeoutMs, logged', { timeout: 10_000 }, async (t) => {
  const { m, log } = hangingManager(t, 'getMetadata', { queryTimeoutMs: 200 });
  const started = performance.now();
  const result = await m.getUserMembership('k');
  const elapsed = performance.now() - started;
  assert.equal(result.status, 'STORE_ERROR');
  assert.deepEqual({ ...result.membership }, { 'seg.g1': true }, 'membership is still returned');
  assert.ok(elapsed >= 150 && elapsed < 2000, `took ${Math.round(elapsed)} ms with queryTimeoutMs 200`);
  assert.deepEqual({ ...m.statusProvider.lastStatus }, { available: false, stale: false });
  assert.ok(log.texts('error').some((s) => s.startsWith(STATUS_PREFIX)), `got ${JSON.stringify(log.calls.map((c) => c.text))}`);
});

test('getStatus() on a hanging getMetadata resolves unavailable within about queryTimeoutMs', { timeout: 10_000 }, async (t) => {
  const { m } = hangingManager(t, 'getMetadata', { queryTimeoutMs: 150 });
  const started = performance.now();
  const status = await m.statusProvider.getStatus();
  const elapsed = performance.now() - started;
  assert.deepEqual({ ...status }, { available: false, stale: false });
  assert.ok(elapsed < 2000, `took ${Math.round(elapsed)} ms`);
});

for (const [name, getMetadata] of Object.entries(failures)) {
  test(`getMetadata failing with ${name} → {available: false, stale: false}, logged with the exact prefix`, async (t) => {
    const log = makeLogger();
    const { store } = storeWith({ getMetadata });
    const m = new BigSegmentStoreManager({ store, logger: log.logger });
    t.after(() => m.close());
    const status = await m.statusProvider.getStatus();
    assert.deepEqual({ ...status }, { available: false, stale: false });
    const lines = log.texts('error').filter((s) => s.startsWith(STATUS_PREFIX));
    assert.equal(lines.length, 1, `got ${JSON.stringify(log.calls.map((c) => [c.level, c.text]))}`);
    assert.match(lines[0], /boom-/);
    assert.equal(m.stats().statusErrors, 1);
  });
}

test('a store error does not reject the lookup and leaves no unhandled rejection', async (t) => {
  const { store } = storeWith({
    getMembership: () => Promise.reject(new Error('x')),
    getMetadata: () => Promise.reject(new Error('y')),
  });
  const m = new BigSegmentStoreManager({ store, logger: makeLogger().logger, queryTimeoutMs: 50 });
  t.after(() => m.close());
  const r = await m.getUserMembership('k');
  assert.equal(r.status, 'STORE_ERROR');
  await sleep(100); // any stray rejection would crash the run (--unhandled-rejections=strict)
});
