// The Redis Big Segment store against a real redis-server: the Relay Proxy schema (SPEC.md B6),
// under the default prefix (omitted and '') and a custom one, through every kind of host
// (API.md §2 "Redis, reached through a host function"): nodeRedisHost, ioredisHost, and bare
// command functions over both clients. Then a full BigSegmentStoreManager over the store (B3–B5).
//
// Default-prefix keys live in a database of their own (SELECT 1), so they cannot meet other files'
// keys; custom prefixes are unique per test. Every key written is deleted again.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { redisBigSegmentStore, nodeRedisHost, ioredisHost, BigSegmentStoreManager, hashContextKey, bigSegmentRef } from 'cutover';
import {
  redisUrl,
  openClients,
  closeClients,
  unhandledRejections,
  uniquePrefix,
  deleteKeys,
  keys,
  writeMembership,
  makeLogger,
  plain,
} from './helpers/redis-env.mjs';

const DEFAULT_DB = 1; // default-prefix keys of this file
const CUSTOM_DB = 0;

const clients = {}; // `${kind}:${db}` → client
const unhandled = unhandledRejections();

before(async () => {
  unhandled.start();
  await openClients(clients, await redisUrl(), [DEFAULT_DB, CUSTOM_DB]);
});

after(async () => {
  // Nothing of this file's default-prefix data may survive it.
  await deleteKeys(clients[`node:${DEFAULT_DB}`], 'launchdarkly:*');
  await closeClients(clients);
  assert.deepEqual(unhandled.stop(), [], 'no unhandled rejections');
});

const HOSTS = {
  nodeRedisHost: (db) => nodeRedisHost(clients[`node:${db}`]),
  ioredisHost: (db) => ioredisHost(clients[`io:${db}`]),
  'bare function over node-redis': (db) => (args) => clients[`node:${db}`].sendCommand(args),
  'bare function over ioredis': (db) => ([name, ...args]) => clients[`io:${db}`].call(name, ...args),
};

// option passed to redisBigSegmentStore → where the keys are
const PREFIXES = [
  { label: 'prefix omitted', options: undefined, db: DEFAULT_DB, prefix: () => 'launchdarkly' },
  { label: "prefix ''", options: { prefix: '' }, db: DEFAULT_DB, prefix: () => 'launchdarkly' },
  { label: 'custom prefix', options: 'custom', db: CUSTOM_DB, prefix: () => uniquePrefix('schema') },
];

/** A store and the node-redis writer for one host/prefix combination, plus cleanup. */
function setup(hostName, p) {
  const prefix = p.prefix();
  const options = p.options === 'custom' ? { prefix } : p.options;
  const writer = clients[`node:${p.db}`];
  const store = redisBigSegmentStore(HOSTS[hostName](p.db), options);
  const cleanup = () => deleteKeys(writer, `${prefix}:*`);
  return { prefix, store, writer, k: keys(prefix), cleanup };
}

/** Normalizes getMetadata's answer to the lastUpToDate it reports (null when none). */
const lastUpToDate = (m) => m?.lastUpToDate ?? null;

let contextCounter = 0;
const freshContextKey = (tag) => `ctx-${tag}-${process.pid}-${++contextCounter}-${Math.random()}`;

for (const hostName of Object.keys(HOSTS)) {
  for (const p of PREFIXES) {
    describe(`${hostName}, ${p.label}`, () => {
      test('metadata: missing, empty, blank, padded number, plain number, not a number', async () => {
        const { store, writer, k, cleanup } = setup(hostName, p);
        try {
          await writer.sendCommand(['DEL', k.syncedOn]);
          assert.equal(lastUpToDate(await store.getMetadata()), null, 'missing → never synchronized');

          await writer.sendCommand(['SET', k.syncedOn, '']);
          assert.equal(lastUpToDate(await store.getMetadata()), null, 'empty → never synchronized');

          await writer.sendCommand(['SET', k.syncedOn, '   ']);
          assert.equal(lastUpToDate(await store.getMetadata()), null, 'blank → never synchronized');

          await writer.sendCommand(['SET', k.syncedOn, ' 1700000000123\n']);
          const padded = await store.getMetadata();
          assert.equal(padded.lastUpToDate, 1700000000123, 'surrounding whitespace is allowed');
          assert.equal(typeof padded.lastUpToDate, 'number');

          const now = Date.now();
          await writer.sendCommand(['SET', k.syncedOn, String(now)]);
          assert.deepEqual({ ...(await store.getMetadata()) }, { lastUpToDate: now });

          for (const bad of ['soon', '17000x', 'NaN']) {
            await writer.sendCommand(['SET', k.syncedOn, bad]);
            await assert.rejects(store.getMetadata(), `${JSON.stringify(bad)} is not a number → getMetadata rejects`);
          }
        } finally {
          await cleanup();
        }
      });

      test('metadata: the store does not cache it (each call reads Redis)', async () => {
        const { store, writer, k, cleanup } = setup(hostName, p);
        try {
          await writer.sendCommand(['SET', k.syncedOn, '1000']);
          assert.equal(lastUpToDate(await store.getMetadata()), 1000);
          await writer.sendCommand(['SET', k.syncedOn, '2000']);
          assert.equal(lastUpToDate(await store.getMetadata()), 2000);
          await writer.sendCommand(['DEL', k.syncedOn]);
          assert.equal(lastUpToDate(await store.getMetadata()), null);
        } finally {
          await cleanup();
        }
      });

      test('membership: include only, exclude only, both (include wins), none', async () => {
        const { store, writer, prefix, cleanup } = setup(hostName, p);
        const h = (tag) => hashContextKey(freshContextKey(tag));
        const [inc, exc, both, none] = [h('inc'), h('exc'), h('both'), h('none')];
        try {
          await writeMembership(writer, prefix, inc, { include: ['a.g1', 'b.g2'] });
          await writeMembership(writer, prefix, exc, { exclude: ['c.g3'] });
          await writeMembership(writer, prefix, both, {
            include: ['shared.g1', 'only-in.g1'],
            exclude: ['shared.g1', 'only-out.g4'],
          });

          assert.deepEqual(plain(await store.getMembership(inc)), { 'a.g1': true, 'b.g2': true });
          assert.deepEqual(plain(await store.getMembership(exc)), { 'c.g3': false });
          assert.deepEqual(plain(await store.getMembership(both)), {
            'shared.g1': true,
            'only-in.g1': true,
            'only-out.g4': false,
          });
          assert.equal(await store.getMembership(none), null, 'no sets → null membership');
        } finally {
          await cleanup();
        }
      });

      test('membership: empty-after-removal sets count as missing; refs are data (__proto__, unicode)', async () => {
        const { store, writer, prefix, k, cleanup } = setup(hostName, p);
        const hash = hashContextKey(freshContextKey('data'));
        try {
          await writeMembership(writer, prefix, hash, { include: ['gone.g1'] });
          await writer.sendCommand(['SREM', k.include(hash), 'gone.g1']); // Redis deletes the empty set
          assert.equal(await store.getMembership(hash), null);

          await writeMembership(writer, prefix, hash, { include: ['__proto__', 'séгмент.g7'], exclude: ['constructor'] });
          const m = await store.getMembership(hash);
          assert.ok(Object.hasOwn(m, '__proto__'), '__proto__ is an own key');
          assert.equal(m['__proto__'], true);
          assert.equal(m['séгмент.g7'], true);
          assert.equal(m.constructor, false);
          assert.equal(Object.keys(m).length, 3);
        } finally {
          await cleanup();
        }
      });

      test('membership: a key of the wrong type rejects (WRONGTYPE is a store error)', async () => {
        const { store, writer, k, cleanup } = setup(hostName, p);
        const hash = hashContextKey(freshContextKey('wrongtype'));
        try {
          await writer.sendCommand(['SET', k.include(hash), 'not-a-set']);
          await assert.rejects(store.getMembership(hash), /WRONGTYPE/);
          await writer.sendCommand(['DEL', k.syncedOn]);
          await writer.sendCommand(['HSET', k.syncedOn, 'f', 'v']);
          await assert.rejects(store.getMetadata(), /WRONGTYPE/);
        } finally {
          await cleanup();
        }
      });

      test('manager: HEALTHY, STALE (old sync / never synced), STORE_ERROR on bad metadata', async () => {
        const { store, writer, prefix, k, cleanup } = setup(hostName, p);
        const { logger, texts } = makeLogger();
        const ref = bigSegmentRef('big', 3);
        const member = () => {
          const key = freshContextKey('mgr');
          return { key, hash: hashContextKey(key) };
        };
        const lookup = async (staleAfterMs, contextKey) => {
          const manager = new BigSegmentStoreManager({ store, staleAfterMs, logger });
          try {
            return await manager.getUserMembership(contextKey);
          } finally {
            await manager.close();
          }
        };
        try {
          const u = member();
          await writeMembership(writer, prefix, u.hash, { include: [ref], exclude: ['other.g1'] });
          const expected = { [ref]: true, 'other.g1': false };

          await writer.sendCommand(['SET', k.syncedOn, String(Date.now())]);
          let r = await lookup(60_000, u.key);
          assert.equal(r.status, 'HEALTHY');
          assert.deepEqual(plain(r.membership), expected);
          assert.ok(Object.isFrozen(r.membership), 'membership is frozen');
          assert.equal(Object.getPrototypeOf(r.membership), null, 'membership has a null prototype');

          await writer.sendCommand(['SET', k.syncedOn, String(Date.now() - 10_000)]);
          r = await lookup(5_000, u.key);
          assert.equal(r.status, 'STALE', 'synchronized 10 s ago, staleAfter 5 s');
          assert.deepEqual(plain(r.membership), expected);

          await writer.sendCommand(['SET', k.syncedOn, String(Date.now() - 130_000)]);
          r = await lookup(undefined, u.key);
          assert.equal(r.status, 'STALE', 'synchronized 130 s ago, default staleAfter 120 s');

          await writer.sendCommand(['DEL', k.syncedOn]);
          r = await lookup(60_000, u.key);
          assert.equal(r.status, 'STALE', 'never synchronized');

          await writer.sendCommand(['SET', k.syncedOn, 'yesterday']);
          r = await lookup(60_000, u.key);
          assert.equal(r.status, 'STORE_ERROR', 'metadata is not a number');
          assert.deepEqual(plain(r.membership), expected, 'the membership is still returned (B3.5)');
          assert.ok(
            texts('error').some((t) => t.startsWith('Big Segment store status query returned error:')),
            `status error logged: ${JSON.stringify(texts('error'))}`,
          );

          await writer.sendCommand(['SET', k.syncedOn, String(Date.now())]);
          const nobody = member();
          r = await lookup(60_000, nobody.key);
          assert.equal(r.status, 'HEALTHY');
          // B3.2: a null store answer is (cached as) the empty membership
          assert.deepEqual(plain(r.membership) ?? {}, {}, 'no sets → no memberships');
        } finally {
          await cleanup();
        }
      });

      test('manager: membership query error → STORE_ERROR, null membership, logged, not cached', async () => {
        const { store, writer, prefix, k, cleanup } = setup(hostName, p);
        const { logger, texts } = makeLogger();
        const key = freshContextKey('qerr');
        const hash = hashContextKey(key);
        const manager = new BigSegmentStoreManager({ store, logger });
        try {
          await writer.sendCommand(['SET', k.syncedOn, String(Date.now())]);
          await writer.sendCommand(['SET', k.exclude(hash), 'not-a-set']);
          const r = await manager.getUserMembership(key);
          assert.deepEqual(r, { membership: null, status: 'STORE_ERROR' });
          assert.ok(
            texts('error').some((t) => t.startsWith('Big Segment store membership query returned error:')),
            `membership error logged: ${JSON.stringify(texts('error'))}`,
          );
          // Repair the data: the failure was not cached, so the next lookup reads Redis again.
          await writer.sendCommand(['DEL', k.exclude(hash)]);
          await writeMembership(writer, prefix, hash, { exclude: ['x.g1'] });
          const again = await manager.getUserMembership(key);
          assert.equal(again.status, 'HEALTHY');
          assert.deepEqual(plain(again.membership), { 'x.g1': false });
        } finally {
          await manager.close();
          await cleanup();
        }
      });
    });
  }
}

describe('prefixes', () => {
  test('a store reads only its own prefix; omitted and empty prefix both mean "launchdarkly"', async () => {
    const writer = clients[`node:${DEFAULT_DB}`];
    const custom = uniquePrefix('iso');
    const hash = hashContextKey(freshContextKey('iso'));
    try {
      await writeMembership(writer, 'launchdarkly', hash, { include: ['default.g1'] });
      await writeMembership(writer, custom, hash, { include: ['custom.g1'] });
      await writer.sendCommand(['SET', keys(custom).syncedOn, '42']);
      await writer.sendCommand(['SET', keys('launchdarkly').syncedOn, '43']);
      const host = nodeRedisHost(writer);
      for (const options of [undefined, {}, { prefix: '' }, { prefix: undefined }]) {
        const s = redisBigSegmentStore(host, options);
        assert.deepEqual(plain(await s.getMembership(hash)), { 'default.g1': true }, JSON.stringify(options));
        assert.equal(lastUpToDate(await s.getMetadata()), 43);
      }
      const s = redisBigSegmentStore(host, { prefix: custom });
      assert.deepEqual(plain(await s.getMembership(hash)), { 'custom.g1': true });
      assert.equal(lastUpToDate(await s.getMetadata()), 42);
      // 'launchdarkly:' + … is not a prefix match for a store whose prefix merely starts the same way
      const similar = redisBigSegmentStore(host, { prefix: 'launchdarkl' });
      assert.equal(await similar.getMembership(hash), null);
    } finally {
      await deleteKeys(writer, `${custom}:*`);
      await writer.sendCommand(['DEL', keys('launchdarkly').include(hash), keys('launchdarkly').syncedOn]);
    }
  });

  test('exact key names (Relay Proxy schema) are what the store asks for', async () => {
    const seen = [];
    const host = {
      command: async (args) => {
        seen.push(args);
        return args[0] === 'GET' ? null : [];
      },
    };
    const hash = hashContextKey('user-key');
    await redisBigSegmentStore(host, { prefix: 'pfx' }).getMetadata();
    await redisBigSegmentStore(host, { prefix: 'pfx' }).getMembership(hash);
    await redisBigSegmentStore(host).getMembership(hash);
    const norm = seen.map(([cmd, ...rest]) => [String(cmd).toUpperCase(), ...rest]);
    assert.deepEqual(norm[0], ['GET', 'pfx:big_segments_synchronized_on']);
    assert.deepEqual(new Set(norm.slice(1, 3).map(String)), new Set([
      `SMEMBERS,pfx:big_segment_include:CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=`,
      `SMEMBERS,pfx:big_segment_exclude:CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=`,
    ]));
    assert.deepEqual(new Set(norm.slice(3).map(String)), new Set([
      `SMEMBERS,launchdarkly:big_segment_include:CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=`,
      `SMEMBERS,launchdarkly:big_segment_exclude:CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=`,
    ]));
    assert.equal(norm.length, 5);
  });
});
