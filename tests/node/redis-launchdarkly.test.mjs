// Cross-check with LaunchDarkly's own Redis Big Segment store (@launchdarkly/node-server-sdk-redis):
// both read the same Relay-Proxy-schema keys (SPEC.md B6) for 300 generated users with random
// include/exclude sets — some refs in both sets, some users with no data at all — and must agree on
// every membership (LaunchDarkly's `getUserMembership(hash)` vs cutover's `getMembership(hash)`,
// undefined/null normalized, compared as plain objects) and on metadata.
//
// `RedisBigSegmentStore(options)` is a factory: it returns `(clientContext) => store`, reading the
// logger from `clientContext.basicConfiguration.logger`. Given `client`, it does not own (or quit) it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { RedisBigSegmentStore } from '@launchdarkly/node-server-sdk-redis';
import { redisBigSegmentStore, nodeRedisHost, ioredisHost, BigSegmentStoreManager, hashContextKey, bigSegmentRef } from 'cutover';
import { redisUrl, openClients, closeClients, unhandledRejections, uniquePrefix, deleteKeys, keys, plain, prng } from './helpers/redis-env.mjs';

const USERS = 300;
const SEED = 0x5eed1d;
const DEFAULT_DB = 2; // default-prefix keys of this file

const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };
const unhandled = unhandledRejections();
const clients = {}; // `${kind}:${db}` → client

before(async () => {
  unhandled.start();
  await openClients(clients, await redisUrl(), [0, DEFAULT_DB]);
});

after(async () => {
  await deleteKeys(clients[`node:${DEFAULT_DB}`], 'launchdarkly:*');
  await closeClients(clients);
  assert.deepEqual(unhandled.stop(), [], 'no unhandled rejections');
});

/**
 * Writes USERS users under `prefix` as the Relay Proxy would. About 15% have no data; the rest get
 * random include/exclude sets over a pool of refs, a third of them with at least one ref in both.
 */
async function seed(writer, prefix) {
  const rand = prng(SEED);
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const segments = Array.from({ length: 25 }, (_, i) => `segment-${i}${i % 5 === 0 ? '_x.y-z' : ''}`);
  const refs = segments.flatMap((s, i) => [bigSegmentRef(s, 1 + (i % 4)), bigSegmentRef(s, 10 + i)]);
  const users = [];
  const k = keys(prefix);
  const batch = writer.multi();
  const stats = { none: 0, includeOnly: 0, excludeOnly: 0, overlap: 0 };
  for (let u = 0; u < USERS; u++) {
    const key = `user-${u}-${pick(['a', 'é', '💡', 'key with spaces', ''])}`;
    const hash = hashContextKey(key);
    users.push({ key, hash });
    if (rand() < 0.15) {
      stats.none++;
      continue;
    }
    const include = new Set();
    const exclude = new Set();
    const n = Math.floor(rand() * 8);
    for (let i = 0; i < n; i++) (rand() < 0.5 ? include : exclude).add(pick(refs));
    if (rand() < 0.33) {
      const both = pick(refs);
      include.add(both);
      exclude.add(both);
    }
    if (include.size === 0 && exclude.size === 0) include.add(pick(refs));
    if ([...include].some((r) => exclude.has(r))) stats.overlap++;
    else if (exclude.size === 0) stats.includeOnly++;
    else if (include.size === 0) stats.excludeOnly++;
    if (include.size) batch.addCommand(['SADD', k.include(hash), ...include]);
    if (exclude.size) batch.addCommand(['SADD', k.exclude(hash), ...exclude]);
  }
  await batch.exec();
  // The generator must produce every case the comparison is about.
  for (const [name, count] of Object.entries(stats)) assert.ok(count > 10, `${name}: ${count} users`);
  return users;
}

const normalize = (membership) => {
  if (membership == null) return null;
  const o = plain(membership);
  return Object.keys(o).length === 0 ? null : o;
};

for (const prefixMode of ['default', 'custom']) {
  const db = prefixMode === 'default' ? DEFAULT_DB : 0;
  describe(`${prefixMode} prefix`, () => {
    let prefix;
    let users;
    let ldStore;

    before(async () => {
      prefix = prefixMode === 'default' ? 'launchdarkly' : uniquePrefix('ld');
      users = await seed(clients[`node:${db}`], prefix);
      const factory = RedisBigSegmentStore({
        client: clients[`io:${db}`],
        ...(prefixMode === 'default' ? {} : { prefix }),
      });
      ldStore = factory({ basicConfiguration: { logger: silentLogger } });
    });

    after(async () => {
      ldStore?.close();
      await deleteKeys(clients[`node:${db}`], `${prefix}:*`);
    });

    test('hashContextKey is the hash LaunchDarkly looks users up by (base64 SHA-256)', () => {
      for (const { key, hash } of users) {
        assert.equal(hash, createHash('sha256').update(key, 'utf8').digest('base64'), key);
      }
    });

    const cutoverHosts = {
      nodeRedisHost: () => nodeRedisHost(clients[`node:${db}`]),
      ioredisHost: () => ioredisHost(clients[`io:${db}`]),
      'bare function over node-redis': () => (args) => clients[`node:${db}`].sendCommand(args),
    };

    for (const [hostName, makeHost] of Object.entries(cutoverHosts)) {
      test(`${hostName}: every membership equals LaunchDarkly's RedisBigSegmentStore`, async () => {
        const store = redisBigSegmentStore(makeHost(), prefixMode === 'default' ? undefined : { prefix });
        const mismatches = [];
        let withData = 0;
        let withBoth = 0;
        for (const { key, hash } of users) {
          const [ld, ours] = await Promise.all([ldStore.getUserMembership(hash), store.getMembership(hash)]);
          const expected = normalize(ld);
          if (expected) withData++;
          if (expected && Object.values(expected).includes(true) && Object.values(expected).includes(false)) withBoth++;
          const got = ours == null ? null : plain(ours);
          try {
            assert.deepEqual(got, expected);
          } catch {
            mismatches.push({ key, hash, ld: expected, cutover: got });
          }
        }
        assert.deepEqual(mismatches.slice(0, 5), [], `${mismatches.length} of ${USERS} memberships differ`);
        assert.ok(withData > 200 && withData < USERS, `users with data: ${withData}`);
        assert.ok(withBoth > 20, `users with true and false refs: ${withBoth}`);
      });
    }

    test('metadata: missing, empty, number, padded number agree with LaunchDarkly', async () => {
      const writer = clients[`node:${db}`];
      const k = keys(prefix);
      const stores = Object.entries(cutoverHosts).map(([name, makeHost]) => [
        name,
        redisBigSegmentStore(makeHost(), prefixMode === 'default' ? undefined : { prefix }),
      ]);
      for (const stored of [null, '', '1700000000000', ' 1700000000999 ', '  42\t', String(Date.now())]) {
        if (stored === null) await writer.sendCommand(['DEL', k.syncedOn]);
        else await writer.sendCommand(['SET', k.syncedOn, stored]);
        const ld = (await ldStore.getMetadata())?.lastUpToDate ?? null;
        for (const [name, store] of stores) {
          const ours = (await store.getMetadata())?.lastUpToDate ?? null;
          assert.equal(ours, ld, `${name}, synchronized_on = ${JSON.stringify(stored)}`);
        }
      }
      await writer.sendCommand(['DEL', k.syncedOn]);
    });

    test("a manager's lookups by context key agree with LaunchDarkly's store", async () => {
      const writer = clients[`node:${db}`];
      await writer.sendCommand(['SET', keys(prefix).syncedOn, String(Date.now())]);
      const manager = new BigSegmentStoreManager({
        store: redisBigSegmentStore(nodeRedisHost(writer), prefixMode === 'default' ? undefined : { prefix }),
        contextCacheSize: USERS,
        logger: silentLogger,
      });
      try {
        for (const { key, hash } of users.slice(0, 100)) {
          const r = await manager.getUserMembership(key);
          assert.equal(r.status, 'HEALTHY', key);
          assert.deepEqual(normalize(r.membership), normalize(await ldStore.getUserMembership(hash)), key);
        }
      } finally {
        await manager.close();
        await writer.sendCommand(['DEL', keys(prefix).syncedOn]);
      }
    });
  });
}
