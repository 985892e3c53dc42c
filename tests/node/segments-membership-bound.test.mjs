// The membership bound (issue 32; docs/STORES.md "How wide a membership may be"): a store's
// membership answer of more than 10,000 entries is a store error, refused before any entry is
// read, logged once with what happened (who answered, the bound, how many entries); one at the
// bound is a membership.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BigSegmentStoreManager, dynamoDbBigSegmentStore, launchDarklyBigSegmentStore, redisBigSegmentStore } from 'cutover';
import { makeLogger } from './helpers/segments.mjs';

const BOUND = 10_000;
const PREFIX = 'Big Segment store membership query returned error: ';

function entries(n) {
  const o = {};
  for (let i = 0; i < n; i++) o[`seg${i}.g1`] = i % 2 === 0;
  return o;
}

/** A manager over `store`, closed after `t`, with a recording logger. */
function managerOver(t, store, options = {}) {
  const log = makeLogger();
  const m = new BigSegmentStoreManager({ store, logger: log.logger, ...options });
  t.after(() => m.close());
  return { m, log };
}

const membershipErrors = (log) => log.texts('error').filter((s) => s.startsWith(PREFIX));

/** An array whose items count their reads (a Proxy: Array.isArray still says it is one). */
function countingArray(n) {
  const reads = { items: 0 };
  const array = new Proxy(Array.from({ length: n }, (_, i) => `seg${i}.g1`), {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads.items++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { array, reads };
}

for (const method of ['getMembership', 'getUserMembership']) {
  test(`a JS store's ${method} answering ${BOUND + 1} entries → STORE_ERROR, one line naming owner, bound and value, nothing cached`, async (t) => {
    let calls = 0;
    const wide = entries(BOUND + 1);
    const store = { getMetadata: async () => ({ lastUpToDate: Date.now() }), [method]: async () => (calls++, wide) };
    const { m, log } = managerOver(t, store);
    assert.deepEqual({ ...(await m.getUserMembership('k')) }, { membership: null, status: 'STORE_ERROR' });
    const lines = membershipErrors(log);
    assert.deepEqual(lines, [
      `${PREFIX}RangeError: store.${method} answered a membership of ${BOUND + 1} entries, more than the bound of ${BOUND}; refused unread`,
    ]);
    assert.equal(m.stats().membershipErrors, 1);
    await m.getUserMembership('k');
    assert.equal(calls, 2, 'a refused answer is not cached: the next lookup asks again');
  });
}

test(`a JS store's answer of exactly ${BOUND} entries is a membership`, async (t) => {
  const store = { getMetadata: async () => ({ lastUpToDate: Date.now() }), getMembership: async () => entries(BOUND) };
  const { m, log } = managerOver(t, store);
  const { membership, status } = await m.getUserMembership('k');
  assert.equal(status, 'HEALTHY');
  assert.equal(Object.keys(membership).length, BOUND);
  assert.equal(membership['seg0.g1'], true);
  assert.equal(membership['seg1.g1'], false);
  assert.deepEqual(membershipErrors(log), []);
});

test('100,000 entries with queryTimeoutMs 1 (the fuzz family that hung): STORE_ERROR, the count logged', async (t) => {
  const wide = Object.freeze(entries(100_000));
  const store = { getMetadata: async () => ({ lastUpToDate: Date.now() }), getMembership: () => Promise.resolve(wide) };
  const { m, log } = managerOver(t, store, { queryTimeoutMs: 1 });
  assert.equal((await m.getUserMembership('k')).status, 'STORE_ERROR');
  const [line] = membershipErrors(log);
  assert.ok(/100000 entries, more than the bound of 10000/.test(line) || /timed out after 1 ms/.test(line), line);
});

test('Redis: an SMEMBERS reply wider than the bound is refused without reading its members', async (t) => {
  const { array, reads } = countingArray(BOUND + 1);
  const command = async ([name, key]) => {
    if (name === 'GET') return String(Date.now());
    return key.includes(':big_segment_include:') ? array : [];
  };
  const { m, log } = managerOver(t, redisBigSegmentStore(command));
  assert.deepEqual({ ...(await m.getUserMembership('k')) }, { membership: null, status: 'STORE_ERROR' });
  assert.equal(reads.items, 0, 'no member was read');
  assert.deepEqual(membershipErrors(log), [
    `${PREFIX}RangeError: Redis: SMEMBERS of the include set answered a membership of ${BOUND + 1} entries, more than the bound of ${BOUND}; refused unread`,
  ]);
});

test('Redis: each set within the bound but both together over it → STORE_ERROR', async (t) => {
  const half = Array.from({ length: BOUND / 2 + 1 }, (_, i) => `seg${i}.g1`);
  const command = async ([name]) => (name === 'GET' ? String(Date.now()) : half);
  const { m, log } = managerOver(t, redisBigSegmentStore(command));
  assert.equal((await m.getUserMembership('k')).status, 'STORE_ERROR');
  assert.match(membershipErrors(log)[0] ?? '', /Redis: SMEMBERS of the include and exclude sets answered a membership of 10002 entries/);
});

test('DynamoDB: a string set wider than the bound is refused without reading its members', async (t) => {
  const { array, reads } = countingArray(BOUND + 1);
  const host = {
    async getItem(input) {
      if (input.Key.key.S.endsWith('big_segments_metadata')) return { Item: { synchronizedOn: { N: String(Date.now()) } } };
      return { Item: { included: { SS: array } } };
    },
  };
  const { m, log } = managerOver(t, dynamoDbBigSegmentStore(host, { tableName: 'bigsegs' }));
  assert.deepEqual({ ...(await m.getUserMembership('k')) }, { membership: null, status: 'STORE_ERROR' });
  assert.equal(reads.items, 0, 'no member was read');
  assert.match(membershipErrors(log)[0] ?? '', /RangeError: DynamoDB: the included string set answered a membership of 10001 entries, more than the bound of 10000; refused unread/);
});

test("launchDarklyBigSegmentStore over a JS store: an answer wider than the bound rejects (a store error for LaunchDarkly's SDK)", async () => {
  let answer = entries(BOUND + 1);
  const store = { getMetadata: async () => ({ lastUpToDate: Date.now() }), getMembership: async () => answer };
  const adapter = launchDarklyBigSegmentStore(store)({});
  await assert.rejects(adapter.getUserMembership('h'), {
    name: 'RangeError',
    message: `launchDarklyBigSegmentStore: the store answered a membership of ${BOUND + 1} entries, more than the bound of ${BOUND}; refused unread`,
  });
  answer = entries(BOUND);
  assert.equal(Object.keys(await adapter.getUserMembership('h')).length, BOUND);
  adapter.close();
});
