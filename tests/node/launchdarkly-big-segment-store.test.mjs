// cutover's Big Segment stores inside LaunchDarkly's own server SDK (issue 13 item 3):
// `launchDarklyBigSegmentStore(store)` as `bigSegments.store` of a real `@launchdarkly/node-server-sdk`
// client. The client gets its flag and two unbounded segments from TestData
// (`usePreconfiguredFlag` / `usePreconfiguredSegment`, the SDK's own way to inject segments), and
// evaluates against live Redis in the Relay Proxy schema: every evaluation detail must equal the one
// the same client setup gives over LaunchDarkly's own `RedisBigSegmentStore`
// (@launchdarkly/node-server-sdk-redis) on the same data and prefix. Round trips are counted by a
// loopback proxy in front of Redis per store: 1 per uncached evaluation for cutover (node-redis and
// ioredis), 2 for LaunchDarkly's store (two sequential SMEMBERS), 0 for a cached one.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { init, integrations } from '@launchdarkly/node-server-sdk';
import { RedisBigSegmentStore } from '@launchdarkly/node-server-sdk-redis';
import fc from 'fast-check';
import {
  launchDarklyBigSegmentStore,
  redisBigSegmentStore,
  nodeRedisHost,
  ioredisHost,
  hashContextKey,
  BigSegmentStoreManager,
} from 'cutover';
import { countingProxy } from './helpers/counting-proxy.mjs';
import {
  redisUrl,
  nodeRedis,
  ioredis,
  closeNodeRedis,
  closeIoredis,
  unhandledRejections,
  trackedPrefixes,
  keys,
  writeMembership,
  makeLogger,
  sleep,
} from './helpers/redis-env.mjs';

const unhandled = unhandledRejections();
const prefixes = trackedPrefixes();
const FLAG = 'big-flag';
const VARIATIONS = ['none', 'beta', 'vip'];

// Two unbounded segments: beta (generation 2, no rules), vip (generation 1; its rules match plan
// "gold", so a context without Big Segment data still matches, and an excluded one does not).
const SEGMENTS = [
  { key: 'beta', version: 1, unbounded: true, generation: 2, included: [], excluded: [], rules: [], salt: 'b' },
  {
    key: 'vip',
    version: 1,
    unbounded: true,
    generation: 1,
    included: [],
    excluded: [],
    salt: 'v',
    rules: [{ id: 'vip-gold', clauses: [{ contextKind: 'user', attribute: 'plan', op: 'in', values: ['gold'], negate: false }] }],
  },
];
const segmentRule = (id, segment, variation) => ({
  id,
  variation,
  clauses: [{ contextKind: 'user', attribute: 'key', op: 'segmentMatch', values: [segment], negate: false }],
});
const FLAG_CONFIG = {
  key: FLAG,
  version: 1,
  on: true,
  salt: 'f',
  variations: VARIATIONS,
  offVariation: 0,
  fallthrough: { variation: 0 },
  targets: [],
  contextTargets: [],
  prerequisites: [],
  rules: [segmentRule('in-beta', 'beta', 1), segmentRule('in-vip', 'vip', 2)],
};

async function testData() {
  const td = new integrations.TestData();
  for (const s of SEGMENTS) await td.usePreconfiguredSegment(s);
  await td.usePreconfiguredFlag(FLAG_CONFIG);
  return td;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A LaunchDarkly client over TestData with `store` (a bigSegments.store factory); no events, no polls. */
async function ldClient(td, store, logger = silent) {
  const client = init('sdk-key', {
    updateProcessor: td.getFactory(),
    sendEvents: false,
    diagnosticOptOut: true,
    logger,
    bigSegments: { store, statusPollInterval: 3600, userCacheTime: 3600 },
  });
  await client.waitForInitialization({ timeout: 5 });
  return client;
}

const ctx = (key, attributes = {}) => ({ kind: 'user', key, ...attributes });

// Who is where, per prefix, and the variation LaunchDarkly must serve them.
const DATA = {
  A: {
    alice: { include: ['beta.g2'] },
    bob: { exclude: ['beta.g2'] },
    carol: { include: ['beta.g2'], exclude: ['beta.g2'] }, // include wins
    frank: { exclude: ['vip.g1'] }, // excluded beats vip's rules
    gina: { include: ['beta.g1'] }, // an old generation's ref: no match
    hal: { include: ['vip.g1'], exclude: ['beta.g2'] },
  },
  B: {
    alice: { exclude: ['beta.g2'] },
    dave: { include: ['beta.g2'] },
    erin: { exclude: ['vip.g1'] },
  },
};
const CONTEXTS = [
  ctx('alice'),
  ctx('bob'),
  ctx('carol'),
  ctx('dave'), // A: not in the store
  ctx('erin', { plan: 'gold' }), // A: not in the store, vip's rules match
  ctx('frank', { plan: 'gold' }),
  ctx('gina'),
  ctx('hal'),
];
const EXPECTED = {
  A: { alice: 'beta', bob: 'none', carol: 'beta', dave: 'none', erin: 'vip', frank: 'none', gina: 'none', hal: 'vip' },
  B: { alice: 'none', bob: 'none', carol: 'none', dave: 'beta', erin: 'none', frank: 'vip', gina: 'none', hal: 'none' },
};

let url;
let port;
let writer;
const prefixOf = {};
const cleanups = []; // run last first: a client closes before its proxy

before(async () => {
  unhandled.start();
  url = await redisUrl();
  port = Number(new URL(url).port);
  writer = await nodeRedis(url);
  for (const [name, users] of Object.entries(DATA)) {
    const p = prefixes.next(`ldstore-${name}`);
    prefixOf[name] = p;
    await writer.sendCommand(['SET', keys(p).syncedOn, String(Date.now())]);
    for (const [user, sets] of Object.entries(users)) await writeMembership(writer, p, hashContextKey(user), sets);
  }
});

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await prefixes.deleteAll(writer);
  await closeNodeRedis(writer);
  assert.deepEqual(unhandled.stop(), [], 'no unhandled rejections');
});

/** A store factory over its own Redis connection through its own counting proxy. */
async function setup(kind, prefix) {
  const proxy = await countingProxy(port);
  if (kind === 'launchdarkly') {
    const client = await ioredis(proxy.url);
    cleanups.push(() => proxy.close(), () => closeIoredis(client));
    return { proxy, factory: RedisBigSegmentStore({ client, prefix }) };
  }
  if (kind === 'cutover/node-redis') {
    const client = await nodeRedis(proxy.url);
    cleanups.push(() => proxy.close(), () => closeNodeRedis(client));
    return { proxy, factory: launchDarklyBigSegmentStore(redisBigSegmentStore(nodeRedisHost(client), { prefix })) };
  }
  const client = await ioredis(proxy.url);
  cleanups.push(() => proxy.close(), () => closeIoredis(client));
  return { proxy, factory: launchDarklyBigSegmentStore(redisBigSegmentStore(ioredisHost(client), { prefix })) };
}

/** Evaluates every context twice (uncached, then cached), counting the proxy's writes for each. */
async function evaluateAll(client, proxy) {
  const status = await client.bigSegmentStoreStatusProvider.requireStatus(); // the metadata poll, before counting
  const details = {};
  const trips = { uncached: [], cached: [] };
  for (const pass of ['uncached', 'cached']) {
    for (const c of CONTEXTS) {
      const before = proxy.counts.clientWrites;
      const detail = await client.variationDetail(FLAG, c, 'default');
      await sleep(0); // a stray write would land by now
      trips[pass].push(proxy.counts.clientWrites - before);
      if (pass === 'uncached') details[c.key] = detail;
      else assert.deepEqual(detail, details[c.key], `${c.key}: the cached evaluation is the same`);
    }
  }
  return { status, details, trips };
}

describe('the same evaluations as LaunchDarkly’s RedisBigSegmentStore, live Redis', () => {
  const n = CONTEXTS.length;
  for (const name of Object.keys(DATA)) {
    test(`prefix ${name}: LaunchDarkly's store and cutover's over node-redis and ioredis agree`, async (t) => {
      const td = await testData();
      const results = {};
      for (const kind of ['launchdarkly', 'cutover/node-redis', 'cutover/ioredis']) {
        const { proxy, factory } = await setup(kind, prefixOf[name]);
        const client = await ldClient(td, factory);
        t.after(() => client.close());
        results[kind] = await evaluateAll(client, proxy);
      }
      const reference = results.launchdarkly;
      assert.deepEqual({ ...reference.status }, { available: true, stale: false });
      for (const c of CONTEXTS) {
        const d = reference.details[c.key];
        assert.equal(d.value, EXPECTED[name][c.key], `${c.key}: LaunchDarkly's store serves the expected variation`);
        assert.equal(d.reason.bigSegmentsStatus, 'HEALTHY', `${c.key}: reason ${JSON.stringify(d.reason)}`);
      }
      for (const kind of ['cutover/node-redis', 'cutover/ioredis']) {
        assert.deepEqual(results[kind].status, reference.status, `${kind}: store status`);
        assert.deepEqual(results[kind].details, reference.details, `${kind}: every evaluation detail`);
        assert.deepEqual(results[kind].trips, { uncached: Array(n).fill(1), cached: Array(n).fill(0) }, `${kind}: round trips`);
      }
      assert.deepEqual(reference.trips, { uncached: Array(n).fill(2), cached: Array(n).fill(0) }, 'LaunchDarkly: round trips');
      t.diagnostic(`round trips per uncached evaluation: LaunchDarkly 2, cutover 1 (${n} contexts, prefix ${name})`);
    });
  }

  test('a never-synchronized store is STALE for both', async (t) => {
    const p = prefixes.next('ldstore-stale');
    await writeMembership(writer, p, hashContextKey('alice'), { include: ['beta.g2'] });
    const td = await testData();
    const seen = [];
    for (const kind of ['launchdarkly', 'cutover/node-redis']) {
      const { factory } = await setup(kind, p);
      const client = await ldClient(td, factory);
      t.after(() => client.close());
      const detail = await client.variationDetail(FLAG, ctx('alice'), 'default');
      seen.push({ value: detail.value, status: detail.reason.bigSegmentsStatus, stale: client.bigSegmentStoreStatusProvider.getStatus() });
    }
    assert.deepEqual(seen[0], { value: 'beta', status: 'STALE', stale: { available: true, stale: true } });
    assert.deepEqual(seen[1], seen[0]);
  });
});

describe('stores written in JavaScript', () => {
  test('a cutover JS store: memberships copied as cutover reads them, metadata, live method lookup', async (t) => {
    const calls = [];
    const store = {
      getMetadata: async () => ({ lastUpToDate: Date.now() }),
      async getMembership(hash) {
        calls.push(hash);
        if (hash === hashContextKey('alice')) return { 'beta.g2': true, ['__proto__']: false, 'vip.g1': 'yes' };
        if (hash === hashContextKey('bob')) return JSON.parse('{"__proto__": true, "vip.g1": false}');
        return null;
      },
    };
    const client = await ldClient(await testData(), launchDarklyBigSegmentStore(store));
    t.after(() => client.close());
    const alice = await client.variationDetail(FLAG, ctx('alice', { plan: 'gold' }), 'default');
    assert.deepEqual([alice.value, alice.reason.bigSegmentsStatus], ['beta', 'HEALTHY']);
    const bob = await client.variationDetail(FLAG, ctx('bob', { plan: 'gold' }), 'default');
    assert.deepEqual([bob.value, bob.reason.bigSegmentsStatus], ['none', 'HEALTHY'], 'bob is excluded from vip');
    const erin = await client.variationDetail(FLAG, ctx('erin', { plan: 'gold' }), 'default');
    assert.deepEqual([erin.value, erin.reason.bigSegmentsStatus], ['vip', 'HEALTHY'], 'null: no data, the rules decide');
    assert.deepEqual(calls, ['alice', 'bob', 'erin'].map(hashContextKey));

    // The adapter's own answers, as the SDK sees them.
    const adapter = launchDarklyBigSegmentStore(store)({});
    const m = await adapter.getUserMembership(hashContextKey('alice'));
    assert.equal(Object.getPrototypeOf(m), null);
    assert.ok(Object.isFrozen(m));
    assert.deepEqual(Object.entries(m), [['beta.g2', true], ['__proto__', false]], 'booleans only; __proto__ is data');
    assert.equal(await adapter.getUserMembership(hashContextKey('nobody')), undefined);

    // Methods are looked up at each call: a stub installed later answers.
    store.getMembership = async () => ({ 'beta.g2': true });
    store.getMetadata = async () => undefined;
    assert.deepEqual({ ...(await adapter.getUserMembership('x')) }, { 'beta.g2': true });
    assert.equal(await adapter.getMetadata(), undefined);
    store.getMetadata = async () => ({ lastUpToDate: null });
    assert.deepEqual(await adapter.getMetadata(), {}, 'never synchronized: no lastUpToDate');
    store.getMetadata = () => ({ lastUpToDate: 1234 }); // not even a promise
    assert.deepEqual(await adapter.getMetadata(), { lastUpToDate: 1234 });
  });

  test('a LaunchDarkly-style JS store (getUserMembership, `this`, synchronous close) works through the adapter', async (t) => {
    const store = {
      data: { [hashContextKey('dave')]: { 'beta.g2': true } },
      closed: 0,
      async getMetadata() {
        return { lastUpToDate: Date.now() - 10 * 60_000 }; // older than staleAfter
      },
      async getUserMembership(hash) {
        return this.data[hash];
      },
      close() {
        this.closed++;
      },
    };
    const client = await ldClient(await testData(), launchDarklyBigSegmentStore(store));
    const dave = await client.variationDetail(FLAG, ctx('dave'), 'default');
    assert.deepEqual([dave.value, dave.reason.bigSegmentsStatus], ['beta', 'STALE']);
    client.close();
    assert.equal(store.closed, 1, 'the client’s close() closed the store once');
    t.diagnostic('closed');
  });
});

test('property: for any store answer, the adapter hands LaunchDarkly the membership cutover’s manager reads', async (t) => {
  let answer;
  const store = { getMetadata: async () => ({ lastUpToDate: Date.now() }), getMembership: async () => answer };
  const adapter = launchDarklyBigSegmentStore(store)({});
  const manager = new BigSegmentStoreManager({ store, contextCacheSize: 1 });
  t.after(() => manager.close());
  const ref = fc.oneof(fc.constantFrom('beta.g2', '__proto__', 'constructor', 'toString', '0', '12', ''), fc.string());
  const value = fc.oneof(fc.boolean(), fc.constantFrom(null, undefined, 0, 1, 'true', {}, []));
  const answers = fc.oneof(
    fc.constantFrom(null, undefined, 'beta.g2', 42, true),
    fc.dictionary(ref, value),
    fc.array(fc.oneof(fc.boolean(), fc.string()), { maxLength: 4 }),
  );
  let n = 0;
  await fc.assert(
    fc.asyncProperty(answers, async (a) => {
      answer = a;
      const ours = await adapter.getUserMembership('h');
      const { membership } = await manager.getUserMembership(`context-${n++}`);
      if (a === null || a === undefined) return assert.equal(ours, undefined);
      assert.ok(Object.isFrozen(ours) && Object.getPrototypeOf(ours) === null);
      assert.deepEqual(Object.entries(ours), Object.entries(membership));
    }),
    { numRuns: 300, seed: 0x1d5 },
  );
});

describe('failing stores: rejections reach LaunchDarkly (STORE_ERROR), nothing unhandled', () => {
  const failing = {
    'getMembership rejects': { getMetadata: async () => ({ lastUpToDate: Date.now() }), getMembership: async () => Promise.reject(new Error('boom')) },
    'getMembership throws synchronously': {
      getMetadata: async () => ({ lastUpToDate: Date.now() }),
      getMembership() {
        throw new Error('sync boom');
      },
    },
    'a thenable whose then throws': {
      getMetadata: async () => ({ lastUpToDate: Date.now() }),
      getMembership: () => ({
        then() {
          throw new Error('then boom');
        },
      }),
    },
  };
  for (const [name, store] of Object.entries(failing)) {
    test(name, async (t) => {
      const log = makeLogger();
      const client = await ldClient(await testData(), launchDarklyBigSegmentStore(store), log.logger);
      t.after(() => client.close());
      const d = await client.variationDetail(FLAG, ctx('alice'), 'default');
      assert.deepEqual([d.value, d.reason.bigSegmentsStatus], ['none', 'STORE_ERROR'], JSON.stringify(d));
      assert.ok(log.has('error', 'Big Segment store membership query returned error'), log.texts('error').join('\n'));
    });
  }

  test('rejections with values LaunchDarkly cannot print (`${e}` throws) still reach it as STORE_ERROR', async (t) => {
    const unprintable = [
      Symbol('nope'),
      Object.create(null),
      {
        toString() {
          throw new Error('toString boom');
        },
      },
    ];
    for (const reason of unprintable) {
      const log = makeLogger();
      const store = { getMetadata: async () => Promise.reject(reason), getMembership: async () => Promise.reject(reason) };
      const client = await ldClient(await testData(), launchDarklyBigSegmentStore(store), log.logger);
      t.after(() => client.close());
      const d = await Promise.race([client.variationDetail(FLAG, ctx('alice'), 'default'), sleep(1000).then(() => 'hung')]);
      assert.notEqual(d, 'hung', 'the evaluation finished');
      assert.deepEqual([d.value, d.reason.bigSegmentsStatus], ['none', 'STORE_ERROR']);
      assert.deepEqual(await client.bigSegmentStoreStatusProvider.requireStatus(), { available: false, stale: false });
      assert.ok(log.has('error', 'membership query returned error: TypeError: launchDarklyBigSegmentStore: the store failed with a value that cannot be printed'));
      assert.ok(log.has('error', 'status query returned error: TypeError: launchDarklyBigSegmentStore: the store failed with a value'));
    }
  });

  test('getMetadata rejects: the store is unavailable (status, reason); a method removed later is a rejection', async (t) => {
    const log = makeLogger();
    const store = { getMetadata: async () => Promise.reject(new Error('down')), getMembership: async () => ({ 'beta.g2': true }) };
    const factory = launchDarklyBigSegmentStore(store);
    const client = await ldClient(await testData(), factory, log.logger);
    t.after(() => client.close());
    const d = await client.variationDetail(FLAG, ctx('alice'), 'default');
    assert.deepEqual([d.value, d.reason.bigSegmentsStatus], ['beta', 'STORE_ERROR'], 'membership kept, status STORE_ERROR');
    assert.deepEqual(client.bigSegmentStoreStatusProvider.getStatus(), { available: false, stale: false });
    assert.ok(log.has('error', 'Big Segment store status query returned error: Error: down'));

    const adapter = factory({});
    delete store.getMembership;
    await assert.rejects(adapter.getUserMembership('h'), { name: 'TypeError', message: /no longer has a getMembership or getUserMembership method/ });
    Object.defineProperty(store, 'getMetadata', {
      get() {
        throw new Error('getter boom');
      },
    });
    await assert.rejects(adapter.getMetadata(), TypeError);
  });

  test('a Redis store whose host fails: STORE_ERROR, the host’s error logged', async (t) => {
    const log = makeLogger();
    const host = { command: async () => Promise.reject(new Error('connection lost')) };
    const client = await ldClient(await testData(), launchDarklyBigSegmentStore(redisBigSegmentStore(host)), log.logger);
    t.after(() => client.close());
    const d = await client.variationDetail(FLAG, ctx('alice', { plan: 'gold' }), 'default');
    // No membership: the segments' own rules decide (vip matches plan "gold"), flagged STORE_ERROR.
    assert.deepEqual([d.value, d.reason.bigSegmentsStatus], ['vip', 'STORE_ERROR']);
    assert.ok(log.has('error', 'membership query returned error: Error: connection lost'), log.texts('error').join('\n'));
    assert.deepEqual(await client.bigSegmentStoreStatusProvider.requireStatus(), { available: false, stale: false });
    assert.ok(log.has('error', 'status query returned error: Error: connection lost'), log.texts('error').join('\n'));
  });

  test('close() that throws or rejects is logged through the SDK’s logger, once', async () => {
    for (const close of [
      () => {
        throw new Error('close threw');
      },
      async () => Promise.reject(new Error('close rejected')),
    ]) {
      const log = makeLogger();
      let calls = 0;
      const store = { getMetadata: async () => undefined, getMembership: async () => null, close: (...a) => (calls++, close(...a)) };
      const client = await ldClient(await testData(), launchDarklyBigSegmentStore(store), log.logger);
      client.close();
      client.close();
      await sleep(5);
      assert.equal(calls, 1);
      assert.ok(log.has('warn', 'Big Segment store close returned error: Error: close'), log.texts('warn').join('\n'));
    }
  });
});

describe('queryTimeoutMs: LaunchDarkly bounds no store call, the adapter does', () => {
  test('a membership query that never settles, and one that rejects late: STORE_ERROR in time, nothing unhandled', async (t) => {
    const log = makeLogger();
    const late = [];
    const store = {
      getMetadata: async () => ({ lastUpToDate: Date.now() }),
      getMembership: (hash) =>
        hash === hashContextKey('alice')
          ? new Promise(() => {}) // never settles
          : new Promise((_, reject) => late.push(setTimeout(() => reject(new Error('too late')), 60))),
    };
    const client = await ldClient(await testData(), launchDarklyBigSegmentStore(store, { queryTimeoutMs: 25 }), log.logger);
    t.after(() => client.close());
    for (const key of ['alice', 'bob']) {
      const started = Date.now();
      const d = await client.variationDetail(FLAG, ctx(key), 'default');
      const took = Date.now() - started;
      assert.deepEqual([d.value, d.reason.bigSegmentsStatus], ['none', 'STORE_ERROR']);
      assert.ok(took >= 20 && took < 1000, `${key}: answered after ${took} ms`);
    }
    const timeouts = log.texts('error').filter((e) => e.includes('membership query returned error: TimeoutError: Big Segment store call timed out after 25 ms'));
    // LaunchDarkly keeps no failed membership, so each of the flag's two segment rules asks again.
    assert.equal(timeouts.length, 4, log.texts('error').join('\n'));
    await sleep(80); // bob's late rejection has happened: it is handled (the file runs with strict rejections)
  });

  test('a Redis host that hangs: metadata and membership time out (default bound is 10 s, here 25 ms)', async (t) => {
    const log = makeLogger();
    const host = { command: () => new Promise(() => {}), pipeline: () => new Promise(() => {}) };
    const client = await ldClient(await testData(), launchDarklyBigSegmentStore(redisBigSegmentStore(host), { queryTimeoutMs: 25 }), log.logger);
    t.after(() => client.close());
    assert.deepEqual(await client.bigSegmentStoreStatusProvider.requireStatus(), { available: false, stale: false });
    const d = await client.variationDetail(FLAG, ctx('alice'), 'default');
    assert.deepEqual([d.value, d.reason.bigSegmentsStatus], ['none', 'STORE_ERROR']);
    assert.ok(log.has('error', 'status query returned error: TimeoutError'), log.texts('error').join('\n'));
    assert.ok(log.has('error', 'membership query returned error: TimeoutError'), log.texts('error').join('\n'));
  });

  test('invalid options: TypeError or RangeError naming them', () => {
    const store = { getMetadata() {}, getMembership() {} };
    for (const [options, name, what] of [
      ['fast', TypeError, /^launchDarklyBigSegmentStore: options must be an object, got string "fast"$/],
      [{ queryTimeoutMs: '25' }, TypeError, /^launchDarklyBigSegmentStore: queryTimeoutMs must be a number, got string "25"$/],
      [{ queryTimeoutMs: 0 }, RangeError, /queryTimeoutMs must be a positive finite number, got number 0$/],
      [{ queryTimeoutMs: -5 }, RangeError, /queryTimeoutMs must be a positive finite number/],
      [{ queryTimeoutMs: NaN }, RangeError, /queryTimeoutMs must be a positive finite number, got number NaN$/],
      [{ queryTimeoutMs: Infinity }, RangeError, /queryTimeoutMs must be a positive finite number/],
    ]) {
      assert.throws(() => launchDarklyBigSegmentStore(store, options), (e) => e instanceof name && what.test(e.message), JSON.stringify(options));
    }
    for (const options of [undefined, null, {}, { queryTimeoutMs: undefined }, { queryTimeoutMs: 1 }, { queryTimeoutMs: 2 ** 40 }]) {
      assert.equal(typeof launchDarklyBigSegmentStore(store, options), 'function');
    }
  });

  test('a bound beyond what a timer can hold is no bound (not an instant timeout)', async () => {
    let resolve;
    const store = { getMetadata: async () => undefined, getMembership: () => new Promise((r) => (resolve = r)) };
    const adapter = launchDarklyBigSegmentStore(store, { queryTimeoutMs: 2 ** 40 })({});
    const answer = adapter.getUserMembership('h');
    await sleep(10);
    resolve({ 'beta.g2': true });
    assert.deepEqual({ ...(await answer) }, { 'beta.g2': true });
  });
});

test('launchDarklyBigSegmentStore validates its argument (TypeError naming it)', () => {
  for (const bad of [undefined, null, 'redis', 42, {}, { getMetadata() {} }, { getMembership() {} }, () => {}]) {
    assert.throws(() => launchDarklyBigSegmentStore(bad), {
      name: 'TypeError',
      message: /^launchDarklyBigSegmentStore: store must be an object with getMetadata and getMembership \(or getUserMembership\) methods, got /,
    });
  }
  assert.equal(typeof launchDarklyBigSegmentStore({ getMetadata() {}, getUserMembership() {} }), 'function');
});
