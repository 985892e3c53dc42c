// close(): stops polling, then awaits store.close() once; idempotent; later lookups reject —
// API.md §2, SPEC.md B4 (last sentence).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BigSegmentStoreManager } from 'cutover';
import { sleep } from './helpers/segments.mjs';

function makeStore({ closeDelayMs = 0 } = {}) {
  const calls = { getMetadata: 0, getMembership: 0, close: 0, closeDone: false, metadataAtClose: undefined, events: [] };
  const store = {
    async getMetadata() {
      calls.getMetadata++;
      calls.events.push('getMetadata');
      return { lastUpToDate: Date.now() };
    },
    async getMembership() {
      calls.getMembership++;
      return { 'seg.g1': true };
    },
    async close() {
      calls.close++;
      calls.events.push('close');
      calls.metadataAtClose = calls.getMetadata;
      if (closeDelayMs) await sleep(closeDelayMs);
      calls.closeDone = true;
    },
  };
  return { store, calls };
}

test('close() stops background polling before closing the store', { timeout: 10_000 }, async () => {
  const { store, calls } = makeStore();
  const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 20 });
  m.start();
  await sleep(200);
  assert.ok(calls.getMetadata >= 2, `the poller ran (${calls.getMetadata} polls)`);
  await m.close();
  const afterClose = calls.getMetadata;
  assert.equal(calls.metadataAtClose, afterClose, 'no poll after store.close() was called');
  await sleep(250);
  assert.equal(calls.getMetadata, afterClose, 'no polls after close()');
  assert.equal(calls.close, 1);
});

test('close() awaits store.close()', { timeout: 10_000 }, async () => {
  const { store, calls } = makeStore({ closeDelayMs: 150 });
  const m = new BigSegmentStoreManager({ store });
  await m.getUserMembership('k');
  const started = performance.now();
  const p = m.close();
  assert.equal(typeof p?.then, 'function', 'close() returns a Promise');
  await p;
  assert.equal(calls.closeDone, true, 'close() resolved only after store.close() finished');
  assert.ok(performance.now() - started >= 100);
});

test('close() is idempotent: store.close() runs once for concurrent and repeated calls', { timeout: 10_000 }, async () => {
  const { store, calls } = makeStore({ closeDelayMs: 50 });
  const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 20 });
  m.start();
  await Promise.all([m.close(), m.close(), m.close()]);
  await m.close();
  await m.close();
  assert.equal(calls.close, 1);
  assert.equal(calls.closeDone, true);
});

test('a second concurrent close() also waits for store.close()', { timeout: 10_000 }, async () => {
  const { store, calls } = makeStore({ closeDelayMs: 120 });
  const m = new BigSegmentStoreManager({ store });
  const first = m.close();
  await sleep(10);
  await m.close();
  assert.equal(calls.closeDone, true, 'the second close() did not resolve before the store was closed');
  await first;
});

test('close() on an unused manager still closes the store', async () => {
  const { store, calls } = makeStore();
  const m = new BigSegmentStoreManager({ store });
  await m.close();
  assert.equal(calls.close, 1);
  assert.equal(calls.getMetadata, 0);
});

test('a store without close() and a manager without store close cleanly', async () => {
  const store = {
    async getMetadata() {
      return { lastUpToDate: Date.now() };
    },
    async getMembership() {
      return {};
    },
  };
  const m = new BigSegmentStoreManager({ store });
  await m.getUserMembership('k');
  await m.close();
  await m.close();
  const none = new BigSegmentStoreManager({});
  await none.close();
  await none.close();
});

test('a synchronous store.close() (returning undefined) is supported', async () => {
  let closed = 0;
  const store = {
    async getMetadata() {
      return { lastUpToDate: Date.now() };
    },
    async getMembership() {
      return {};
    },
    close() {
      closed++;
    },
  };
  const m = new BigSegmentStoreManager({ store });
  await m.close();
  assert.equal(closed, 1);
});

test('lookups after close() reject with an Error and do not touch the store', async () => {
  const { store, calls } = makeStore();
  const m = new BigSegmentStoreManager({ store, contextCacheTimeMs: 60_000 });
  await m.getUserMembership('cached');
  const before = { ...calls };
  await m.close();
  for (const key of ['cached', 'new-key']) {
    await assert.rejects(m.getUserMembership(key), (err) => {
      assert.ok(err instanceof Error, `rejects with an Error, got ${String(err)}`);
      return true;
    });
  }
  assert.equal(calls.getMembership, before.getMembership);
  assert.equal(calls.getMetadata, before.getMetadata);
});

test('lookups after close() reject for a manager without a store too', async () => {
  const m = new BigSegmentStoreManager({});
  await m.close();
  await assert.rejects(m.getUserMembership('k'), Error);
});

test('close() stops on-demand polling', { timeout: 10_000 }, async () => {
  const { store, calls } = makeStore();
  const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 20 });
  await m.getUserMembership('k');
  await m.close();
  const polls = calls.getMetadata;
  await sleep(60);
  await m.getUserMembership('k').catch(() => {});
  await m.statusProvider.getStatus().catch(() => {});
  assert.equal(calls.getMetadata, polls, 'no poll after close()');
});
