// Re-entrancy: store methods, listeners and the logger may call back into the same manager,
// synchronously — API.md §3 "Re-entrancy".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BigSegmentStoreManager, hashContextKey, bigSegmentRef } from 'cutover';
import { sleep } from './helpers/segments.mjs';

function withTimeout(promise, ms, label) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${label}: did not settle within ${ms} ms (deadlock?)`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

test('store methods call back into the same manager synchronously', { timeout: 10_000 }, async (t) => {
  let m;
  const seenInside = [];
  const nested = [];
  const store = {
    getMetadata() {
      // synchronous calls into the manager that is calling us
      seenInside.push(['getMetadata', m.stats().statusPolls, m.statusProvider.lastStatus]);
      m.statusProvider.addListener(() => {});
      return Promise.resolve({ lastUpToDate: Date.now() });
    },
    getMembership(hash) {
      seenInside.push(['getMembership', m.stats().lookups, hashContextKey('x'), bigSegmentRef('s', 1)]);
      if (hash === hashContextKey('outer')) {
        // a nested lookup for another context, started synchronously from inside the store call
        nested.push(m.getUserMembership('inner'));
      }
      return Promise.resolve({ [`seg-${hash.slice(0, 4)}.g1`]: true });
    },
  };
  const errors = [];
  m = new BigSegmentStoreManager({
    store,
    logger: { debug() {}, info() {}, warn() {}, error: (...a) => errors.push(a.map(String).join(' ')) },
  });
  t.after(() => m.close());
  const outer = await withTimeout(m.getUserMembership('outer'), 3000, 'outer lookup');
  assert.equal(outer.status, 'HEALTHY');
  assert.equal(nested.length, 1);
  const inner = await withTimeout(nested[0], 3000, 'nested lookup');
  assert.equal(inner.status, 'HEALTHY');
  assert.deepEqual(Object.keys(inner.membership), [`seg-${hashContextKey('inner').slice(0, 4)}.g1`]);
  assert.ok(seenInside.some(([name]) => name === 'getMetadata'));
  assert.ok(seenInside.filter(([name]) => name === 'getMembership').length >= 2);
  assert.deepEqual(errors, []);
});

test('getMetadata calling getStatus() and getUserMembership() synchronously does not break', { timeout: 10_000 }, async (t) => {
  let m;
  const fromInside = [];
  let depth = 0;
  const store = {
    async getMetadata() {
      if (depth++ === 0) {
        // Not awaited here (awaiting our own poll would wait for ourselves); they must settle later.
        fromInside.push(m.statusProvider.getStatus(), m.getUserMembership('from-metadata'));
      }
      return { lastUpToDate: Date.now() };
    },
    async getMembership() {
      return { 'seg.g1': true };
    },
  };
  m = new BigSegmentStoreManager({ store, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  t.after(() => m.close());
  const status = await withTimeout(m.statusProvider.getStatus(), 3000, 'outer getStatus');
  assert.deepEqual({ ...status }, { available: true, stale: false });
  const [innerStatus, innerLookup] = await withTimeout(Promise.all(fromInside), 3000, 'calls made inside getMetadata');
  assert.equal(typeof innerStatus.available, 'boolean');
  assert.deepEqual({ ...innerLookup.membership }, { 'seg.g1': true });
});

test('listeners call back into the manager: lookups, lastStatus, getStatus, add/removeListener', { timeout: 10_000 }, async (t) => {
  let down = false;
  const store = {
    async getMetadata() {
      if (down) throw new Error('down');
      return { lastUpToDate: Date.now() };
    },
    async getMembership() {
      return { 'seg.g1': true };
    },
  };
  const errors = [];
  const m = new BigSegmentStoreManager({
    store,
    statusPollIntervalMs: 30,
    logger: { debug() {}, info() {}, warn() {}, error: (...a) => errors.push(a.map(String).join(' ')) },
  });
  t.after(() => m.close());
  const fromListener = [];
  const listener = (s) => {
    fromListener.push({
      status: { ...s },
      last: { ...m.statusProvider.lastStatus },
      stats: m.stats().statusPolls,
      lookup: m.getUserMembership('from-listener'),
      getStatus: m.statusProvider.getStatus(),
    });
    m.statusProvider.removeListener(listener);
    m.statusProvider.addListener(() => {});
  };
  m.statusProvider.addListener(listener);
  await m.getUserMembership('k');
  down = true;
  await sleep(60);
  const r = await withTimeout(m.getUserMembership('k'), 3000, 'lookup that notified the listener');
  assert.equal(r.status, 'STORE_ERROR');
  assert.equal(fromListener.length, 1);
  assert.deepEqual(fromListener[0].status, { available: false, stale: false });
  assert.deepEqual(fromListener[0].last, { available: false, stale: false });
  const inner = await withTimeout(fromListener[0].lookup, 3000, 'lookup started in the listener');
  assert.deepEqual({ ...inner.membership }, { 'seg.g1': true });
  const innerStatus = await withTimeout(fromListener[0].getStatus, 3000, 'getStatus started in the listener');
  assert.equal(innerStatus.available, false);
  assert.ok(errors.every((e) => e.startsWith('Big Segment store status query returned error: ')), JSON.stringify(errors));
});

test('a logger that calls back into the manager while it logs', { timeout: 10_000 }, async (t) => {
  let m;
  const inside = [];
  const logger = {
    debug: () => inside.push(m?.stats().lookups),
    info: () => inside.push(m?.stats().lookups),
    warn: () => inside.push(m?.stats().lookups),
    error: (...args) => {
      inside.push({ stats: m.stats(), last: m.statusProvider.lastStatus, text: args.map(String).join(' ') });
      m.getUserMembership('from-logger').catch(() => {});
    },
  };
  const store = {
    async getMetadata() {
      throw new Error('metadata fails');
    },
    async getMembership(hash) {
      if (hash === hashContextKey('bad')) throw new Error('membership fails');
      return {};
    },
  };
  m = new BigSegmentStoreManager({ store, logger });
  t.after(() => m.close());
  const r = await withTimeout(m.getUserMembership('bad'), 3000, 'lookup with logging');
  assert.deepEqual({ ...r }, { membership: null, status: 'STORE_ERROR' });
  await sleep(50);
  assert.ok(inside.some((e) => typeof e === 'object' && e.text.startsWith('Big Segment store membership query returned error: ')));
});

test('close() called from inside a listener and from inside store.close()', { timeout: 10_000 }, async () => {
  let m;
  let down = false;
  let innerClose;
  let storeClosed = 0;
  const store = {
    async getMetadata() {
      if (down) throw new Error('down');
      return { lastUpToDate: Date.now() };
    },
    async getMembership() {
      return {};
    },
    close() {
      storeClosed++;
      innerClose = m.close(); // re-entrant close: must not deadlock or close twice
    },
  };
  let closeFromListener;
  m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 20, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  m.statusProvider.addListener(() => {
    closeFromListener = m.close();
  });
  m.start();
  await m.getUserMembership('k');
  down = true;
  const t0 = performance.now();
  while (!closeFromListener && performance.now() - t0 < 3000) await sleep(10);
  assert.ok(closeFromListener, 'the listener ran');
  await withTimeout(closeFromListener, 3000, 'close() from a listener');
  assert.ok(innerClose, 'store.close() ran');
  await withTimeout(innerClose, 3000, 'close() from store.close()');
  await withTimeout(m.close(), 3000, 'close() afterwards');
  assert.equal(storeClosed, 1);
  await assert.rejects(m.getUserMembership('k'));
});
