// AsyncLocalStorage propagation through Big Segments: a lookup's store calls (getMembership, and
// getMetadata when the lookup polls inline) run in the async context of the lookup that made them;
// a shared (single-flight) query runs in the context of the lookup that started it; the background
// poller's getMetadata calls run in the context start() was called in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { BigSegmentStoreManager, hashContextKey } from 'cutover';
import { sleep } from './helpers/segments.mjs';

const als = new AsyncLocalStorage();

/**
 * A JS store recording the AsyncLocalStorage store seen by every call. Context keys are
 * `key-<id>`; `membershipDelay(key)` / `metadataDelay` are in ms. Each context's membership names it.
 */
function makeStore({ membershipDelay = () => 0, metadataDelay = 0 } = {}) {
  const keyOfHash = new Map();
  const calls = { getMetadata: [], getMembership: [] };
  const store = {
    async getMetadata() {
      calls.getMetadata.push(als.getStore());
      if (metadataDelay) await sleep(metadataDelay);
      return { lastUpToDate: Date.now() };
    },
    async getMembership(hash) {
      const key = keyOfHash.get(hash) ?? `unknown hash ${hash}`;
      calls.getMembership.push({ key, store: als.getStore() });
      const ms = membershipDelay(key);
      if (ms) await sleep(ms);
      return { [`seg-${key}.g1`]: true };
    },
  };
  const known = (key) => {
    keyOfHash.set(hashContextKey(key), key);
    return key;
  };
  return { store, calls, known };
}

function managerFor(t, options) {
  const manager = new BigSegmentStoreManager(options);
  t.after(() => manager.close());
  return manager;
}

/** `manager.getUserMembership(key)` started inside `als.run(store, …)`. */
const lookupIn = (manager, alsStore, key) => als.run(alsStore, () => manager.getUserMembership(key));

function assertOwnMembership(result, key) {
  assert.equal(result.status, 'HEALTHY');
  assert.deepEqual({ ...result.membership }, { [`seg-${key}.g1`]: true }, `the answer for ${key}`);
}

test('the first lookup polls inline: its getMetadata and getMembership run in its context', async (t) => {
  const { store, calls, known } = makeStore({ membershipDelay: () => 10, metadataDelay: 10 });
  const m = managerFor(t, { store });
  const r = await lookupIn(m, 'first', known('key-first'));
  assertOwnMembership(r, 'key-first');
  assert.deepEqual(calls.getMembership, [{ key: 'key-first', store: 'first' }]);
  assert.deepEqual(calls.getMetadata, ['first']);
  await m.close();
});

test('without start(): each inline re-poll runs in the context of the lookup that triggered it', async (t) => {
  const { store, calls, known } = makeStore({ membershipDelay: () => 5, metadataDelay: 5 });
  const m = managerFor(t, { store, statusPollIntervalMs: 20 });
  const ids = ['L0', 'L1', 'L2', 'L3'];
  for (const id of ids) {
    assertOwnMembership(await lookupIn(m, id, known(`key-${id}`)), `key-${id}`);
    await sleep(40); // the status is older than the interval again: the next lookup re-polls
  }
  // a cache hit re-polls too
  assertOwnMembership(await lookupIn(m, 'hit', 'key-L0'), 'key-L0');
  assert.deepEqual(calls.getMembership, ids.map((id) => ({ key: `key-${id}`, store: id })));
  assert.deepEqual(calls.getMetadata, [...ids, 'hit']);
  await m.close();
});

test('concurrent lookups of different uncached keys under different contexts each query in their own', async (t) => {
  const { store, calls, known } = makeStore({
    membershipDelay: (key) => ({ 'key-A': 30, 'key-B': 5, 'key-C': 20, 'key-D': 10, 'key-E': 0 })[key] ?? 0,
  });
  const m = managerFor(t, { store });
  await lookupIn(m, 'warm', known('key-warm')); // the status is known from here on
  const ids = ['A', 'B', 'C', 'D', 'E'];
  const results = await Promise.all(ids.map((id) => lookupIn(m, id, known(`key-${id}`))));
  ids.forEach((id, i) => assertOwnMembership(results[i], `key-${id}`));
  const byKey = Object.fromEntries(calls.getMembership.map((c) => [c.key, c.store]));
  assert.equal(calls.getMembership.length, 6);
  assert.deepEqual(byKey, { 'key-warm': 'warm', 'key-A': 'A', 'key-B': 'B', 'key-C': 'C', 'key-D': 'D', 'key-E': 'E' });
  assert.deepEqual(calls.getMetadata, ['warm'], 'no more polls within the interval');
  await m.close();
});

test('concurrent first lookups (no status yet): the one shared inline poll runs in one caller\'s context', async (t) => {
  const { store, calls, known } = makeStore({
    membershipDelay: (key) => ({ 'key-A': 15, 'key-B': 5, 'key-C': 25 })[key],
    metadataDelay: 20,
  });
  const m = managerFor(t, { store });
  const ids = ['A', 'B', 'C'];
  const results = await Promise.all(ids.map((id) => lookupIn(m, id, known(`key-${id}`))));
  ids.forEach((id, i) => assertOwnMembership(results[i], `key-${id}`));
  assert.deepEqual(
    Object.fromEntries(calls.getMembership.map((c) => [c.key, c.store])),
    { 'key-A': 'A', 'key-B': 'B', 'key-C': 'C' },
  );
  assert.equal(calls.getMetadata.length, 1, 'one poll serves every waiting lookup');
  assert.ok(ids.includes(calls.getMetadata[0]), `the poll ran in ${JSON.stringify(calls.getMetadata[0])}, not in a caller's context`);
  await m.close();
});

test('single flight: concurrent lookups of one uncached key share one getMembership, run in the first caller\'s context', async (t) => {
  const { store, calls, known } = makeStore({ membershipDelay: () => 50 });
  const m = managerFor(t, { store });
  await lookupIn(m, 'warm', known('key-warm'));
  known('key-one');
  known('key-two');
  // key-one is first asked for by A, key-two by C; later callers join (one of them a tick later)
  const pending = [
    lookupIn(m, 'A', 'key-one'),
    lookupIn(m, 'C', 'key-two'),
    lookupIn(m, 'B', 'key-one'),
    lookupIn(m, 'A', 'key-two'),
    lookupIn(m, 'C', 'key-one'),
    lookupIn(m, 'B', 'key-two'),
  ];
  await sleep(15);
  pending.push(lookupIn(m, 'D', 'key-one'), lookupIn(m, 'D', 'key-two'));
  const results = await Promise.all(pending);
  assert.deepEqual(
    calls.getMembership.filter((c) => c.key !== 'key-warm').map((c) => c.key).sort(),
    ['key-one', 'key-two'],
    'one store query per key',
  );
  results.forEach((r, i) => assertOwnMembership(r, i % 2 === 0 ? 'key-one' : 'key-two'));
  const byKey = Object.fromEntries(calls.getMembership.map((c) => [c.key, c.store]));
  assert.deepEqual(byKey, { 'key-warm': 'warm', 'key-one': 'A', 'key-two': 'C' });
  await m.close();
});

test('background poller: getMetadata calls after start() inside als.run("poller") see "poller"', async (t) => {
  const { store, calls, known } = makeStore({ membershipDelay: (key) => (key === 'key-L1' ? 15 : 5), metadataDelay: 3 });
  const m = managerFor(t, { store, statusPollIntervalMs: 20 });
  als.run('poller', () => m.start());
  await sleep(50); // the poller has a status by now, so lookups do not poll
  // lookups from other contexts overlap the background polls (and each other, a few ms apart)
  const results = await Promise.all([
    lookupIn(m, 'L1', known('key-L1')),
    sleep(8).then(() => lookupIn(m, 'L2', known('key-L2'))),
    sleep(30).then(() => lookupIn(m, 'L3', known('key-L3'))),
  ]);
  ['key-L1', 'key-L2', 'key-L3'].forEach((key, i) => assertOwnMembership(results[i], key));
  await sleep(60);
  await m.close();
  const polls = calls.getMetadata.length;
  assert.ok(polls >= 4, `the poller kept polling (${polls} polls)`);
  assert.deepEqual(calls.getMetadata, Array(polls).fill('poller'), 'every background poll ran in the context of start()');
  assert.deepEqual(
    Object.fromEntries(calls.getMembership.map((c) => [c.key, c.store])),
    { 'key-L1': 'L1', 'key-L2': 'L2', 'key-L3': 'L3' },
    'lookups made while the poller runs query in their own context',
  );
  await sleep(50);
  assert.equal(calls.getMetadata.length, polls, 'no polls after close()');
});
