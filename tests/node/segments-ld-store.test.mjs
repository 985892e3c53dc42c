// A store shaped exactly like LaunchDarkly's JS BigSegmentStore plugs in unchanged —
// API.md §2 (getUserMembership alias), SPEC.md B5.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BigSegmentStoreManager, hashContextKey } from 'cutover';
import { sleep } from './helpers/segments.mjs';

/**
 * The shape of LaunchDarkly's `interfaces.BigSegmentStore` (node-server-sdk):
 *   getMetadata(): Promise<{ lastUpToDate?: number } | undefined>
 *   getUserMembership(userHash: string): Promise<Record<string, boolean> | undefined>
 *   close(): void
 * Implemented as a class with state on `this`, like LaunchDarkly's Redis/DynamoDB stores.
 */
class LDStyleBigSegmentStore {
  constructor(data, lastUpToDate) {
    this._data = data; // hash → { ref: boolean }
    this._lastUpToDate = lastUpToDate;
    this._closed = false;
    this.log = [];
  }

  async getMetadata() {
    this.log.push('getMetadata');
    if (this._closed) throw new Error('store closed');
    await sleep(1);
    return this._lastUpToDate === undefined ? undefined : { lastUpToDate: this._lastUpToDate };
  }

  async getUserMembership(userHash) {
    this.log.push(`getUserMembership:${userHash}`);
    if (this._closed) throw new Error('store closed');
    await sleep(1);
    return this._data[userHash]; // undefined when there is no data
  }

  close() {
    this.log.push('close');
    this._closed = true;
  }
}

test('an LD-style store (getUserMembership, methods using `this`) works as is', async (t) => {
  const store = new LDStyleBigSegmentStore(
    { [hashContextKey('alice')]: { 'beta.g2': true, 'blocked.g1': false } },
    Date.now(),
  );
  const errors = [];
  const logger = { debug() {}, info() {}, warn() {}, error: (...a) => errors.push(a.map(String).join(' ')) };
  const m = new BigSegmentStoreManager({ store, logger });
  t.after(() => m.close());
  const alice = await m.getUserMembership('alice');
  assert.deepEqual(errors, [], 'no error: methods were called with the store as `this`');
  assert.equal(alice.status, 'HEALTHY');
  assert.deepEqual({ ...alice.membership }, { 'beta.g2': true, 'blocked.g1': false });
  assert.ok(store.log.includes(`getUserMembership:${hashContextKey('alice')}`));

  const bob = await m.getUserMembership('bob'); // undefined from the store → {}
  assert.equal(bob.status, 'HEALTHY');
  assert.deepEqual(Object.keys(bob.membership), []);
  assert.deepEqual({ ...(await m.statusProvider.getStatus()) }, { available: true, stale: false });
});

test('an LD-style store that was never synchronized (metadata undefined) → STALE', async (t) => {
  const store = new LDStyleBigSegmentStore({}, undefined);
  const m = new BigSegmentStoreManager({ store });
  t.after(() => m.close());
  assert.equal((await m.getUserMembership('alice')).status, 'STALE');
});

test('close() calls the LD-style store’s synchronous close() once, with `this` bound', async () => {
  const store = new LDStyleBigSegmentStore({}, Date.now());
  const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 20 });
  m.start();
  await m.getUserMembership('alice');
  await m.close();
  await m.close();
  assert.equal(store._closed, true, 'close ran with `this` = the store');
  assert.equal(store.log.filter((e) => e === 'close').length, 1);
  const polls = store.log.filter((e) => e === 'getMetadata').length;
  await sleep(100);
  assert.equal(store.log.filter((e) => e === 'getMetadata').length, polls, 'no polling after close');
});

test('a plain-object LD-style store (object literal with getUserMembership) works too', async (t) => {
  const hashes = [];
  const store = {
    getMetadata: () => Promise.resolve({ lastUpToDate: Date.now() }),
    getUserMembership: (hash) => {
      hashes.push(hash);
      return Promise.resolve({ 'seg.g5': true });
    },
    close: () => {},
  };
  const m = new BigSegmentStoreManager({ store });
  t.after(() => m.close());
  const r = await m.getUserMembership('user-key');
  assert.equal(r.status, 'HEALTHY');
  assert.deepEqual({ ...r.membership }, { 'seg.g5': true });
  assert.deepEqual(hashes, ['CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=']);
});

test('an LD-style store whose getUserMembership rejects → STORE_ERROR with the exact log prefix', async (t) => {
  const store = new LDStyleBigSegmentStore({}, Date.now());
  store.getUserMembership = async function () {
    throw new Error('redis connection lost');
  };
  const errors = [];
  const logger = { debug() {}, info() {}, warn() {}, error: (...a) => errors.push(a.map(String).join(' ')) };
  const m = new BigSegmentStoreManager({ store, logger });
  t.after(() => m.close());
  const r = await m.getUserMembership('alice');
  assert.deepEqual({ ...r }, { membership: null, status: 'STORE_ERROR' });
  assert.ok(errors.some((e) => e.startsWith('Big Segment store membership query returned error: ') && e.includes('redis connection lost')), JSON.stringify(errors));
});
