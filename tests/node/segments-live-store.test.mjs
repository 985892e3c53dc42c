// A store's methods are looked up when they are used: a stub installed after the manager was
// made takes effect on the next call (the same rule as for flag clients and trackers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BigSegmentStoreManager, hashContextKey } from 'cutover';
import { makeLogger } from './helpers/segments.mjs';

function plainStore() {
  const calls = [];
  const store = {
    getMetadata() {
      calls.push('getMetadata');
      return { lastUpToDate: Date.now() };
    },
    getMembership(hash) {
      calls.push(`getMembership ${hash}`);
      return { 'seg.g1': true };
    },
  };
  return { store, calls };
}

test('getMembership replaced after construction answers the next miss, with the store as this', async () => {
  const { store } = plainStore();
  const m = new BigSegmentStoreManager({ store, logger: makeLogger().logger });
  try {
    assert.deepEqual({ ...(await m.getUserMembership('a')).membership }, { 'seg.g1': true });
    const seen = [];
    store.getMembership = function (hash) {
      seen.push({ hash, self: this });
      return { 'seg.g2': false };
    };
    const b = await m.getUserMembership('b');
    assert.deepEqual({ ...b.membership }, { 'seg.g2': false });
    assert.deepEqual(seen.map((s) => s.hash), [hashContextKey('b')]);
    assert.equal(seen[0].self, store);
  } finally {
    await m.close();
  }
});

test("LaunchDarkly's getUserMembership name is found at call time too", async () => {
  const { store } = plainStore();
  const m = new BigSegmentStoreManager({ store, logger: makeLogger().logger });
  try {
    delete store.getMembership;
    store.getUserMembership = () => ({ 'ld.g1': true });
    assert.deepEqual({ ...(await m.getUserMembership('c')).membership }, { 'ld.g1': true });
  } finally {
    await m.close();
  }
});

test('getMetadata replaced after construction is what the next poll calls', async () => {
  const { store, calls } = plainStore();
  const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 1, logger: makeLogger().logger });
  try {
    await m.getUserMembership('a');
    assert.ok(calls.includes('getMetadata'));
    store.getMetadata = () => {
      calls.push('replacement');
      return null; // never synchronized: stale
    };
    await new Promise((resolve) => setTimeout(resolve, 5));
    const r = await m.getUserMembership('a');
    assert.ok(calls.includes('replacement'), JSON.stringify(calls));
    assert.equal(r.status, 'STALE');
  } finally {
    await m.close();
  }
});

test('a store method removed after construction makes that call a store error, nothing thrown', async () => {
  const { store } = plainStore();
  const log = makeLogger();
  const m = new BigSegmentStoreManager({ store, logger: log.logger });
  try {
    await m.getUserMembership('a');
    delete store.getMembership;
    const r = await m.getUserMembership('b');
    assert.deepEqual({ ...r }, { membership: null, status: 'STORE_ERROR' });
    assert.ok(log.has('error', 'Big Segment store membership query returned error'), JSON.stringify(log.calls));
  } finally {
    await m.close();
  }
});

test('close() calls the close method the store has at that moment', async () => {
  const { store } = plainStore();
  const m = new BigSegmentStoreManager({ store, logger: makeLogger().logger });
  await m.getUserMembership('a');
  let closed = 0;
  store.close = () => {
    closed += 1;
  };
  await m.close();
  assert.equal(closed, 1);
});

// A manager over a redisBigSegmentStore object queries the Rust store behind it directly; the
// object is frozen, so nothing a caller could install is skipped. An object built on top of it
// is the caller's own store and is called as such.
function fakeRedisHost() {
  const commands = [];
  const host = (args) => {
    commands.push(args.join(' '));
    if (args[0] === 'GET') return String(Date.now());
    if (args[0] === 'SMEMBERS' && args[1].includes('big_segment_include')) return ['seg.g1'];
    return [];
  };
  return { host, commands };
}

test('a manager over a redisBigSegmentStore object answers from Redis as the object does', async () => {
  const { redisBigSegmentStore } = await import('cutover');
  const { host, commands } = fakeRedisHost();
  const store = redisBigSegmentStore(host);
  const m = new BigSegmentStoreManager({ store, logger: makeLogger().logger });
  try {
    const r = await m.getUserMembership('u1');
    assert.equal(r.status, 'HEALTHY');
    assert.deepEqual({ ...r.membership }, { 'seg.g1': true });
    assert.equal(Object.getPrototypeOf(r.membership), null);
    assert.ok(Object.isFrozen(r.membership));
    assert.deepEqual({ ...(await store.getMembership(hashContextKey('u1'))) }, { 'seg.g1': true });
    const h = hashContextKey('u1');
    assert.ok(commands.includes(`SMEMBERS launchdarkly:big_segment_include:${h}`), JSON.stringify(commands));
  } finally {
    await m.close();
  }
});

test('an object built on a redisBigSegmentStore with its own getMembership is called, not bypassed', async () => {
  const { redisBigSegmentStore } = await import('cutover');
  const { host } = fakeRedisHost();
  const base = redisBigSegmentStore(host);
  let calls = 0;
  const store = Object.create(base, {
    getMembership: {
      value(hash) {
        calls += 1;
        return base.getMembership(hash).then((m) => ({ ...m, 'extra.g1': false }));
      },
    },
  });
  const m = new BigSegmentStoreManager({ store, logger: makeLogger().logger });
  try {
    const r = await m.getUserMembership('u2');
    assert.equal(calls, 1);
    assert.deepEqual({ ...r.membership }, { 'seg.g1': true, 'extra.g1': false });
  } finally {
    await m.close();
  }
});
