// The Redis Big Segment store on a real Redis Cluster (three masters on loopback, started by
// scripts/redis-cluster.sh for this file), through ioredisHost over an ioredis Cluster and
// nodeRedisHost over a node-redis createCluster() client: the same answers as a single-node store
// on the same data (both prefixes, include wins, metadata, staleness), with a context's include
// and exclude keys on different nodes; per node (INFO commandstats) exactly the two SMEMBERS of
// each uncached query, sent concurrently, never a pipeline, MULTI/EXEC or a cross-slot error.
// Data is written the way the Relay Proxy writes it: SADD per set, SET of the sync time.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { redisBigSegmentStore, nodeRedisHost, ioredisHost, BigSegmentStoreManager, hashContextKey } from 'cutover';
import { redisUrl, nodeRedis, closeNodeRedis, unhandledRejections, uniquePrefix, deleteKeys, keys, plain } from './helpers/redis-env.mjs';
import { startCluster, clusterUnavailable, CLUSTER_CLIENTS, clusterSend, keySlot } from './helpers/redis-cluster.mjs';

const skip = (await clusterUnavailable()) ?? false; // a reason, or false
const unhandled = unhandledRejections();
let cluster;
let single; // a node-redis client on the single-node server (REDIS_URL)
const singlePrefixes = [];

before(async () => {
  if (skip) return;
  unhandled.start();
  cluster = await startCluster();
  single = await nodeRedis(await redisUrl());
});

after(async () => {
  if (skip) return;
  for (const p of singlePrefixes) await deleteKeys(single, `${p}:*`);
  await closeNodeRedis(single);
  await cluster?.stop();
  assert.deepEqual(unhandled.stop(), [], 'no unhandled rejections');
});

const hostFor = (name, client) => (name.startsWith('ioredis') ? ioredisHost(client) : nodeRedisHost(client));

let contextCounter = 0;
/** `n` fresh contexts under prefix `p` whose include and exclude keys are on different nodes (`split`) or the same one. */
function contexts(p, n, split) {
  const out = [];
  while (out.length < n) {
    const key = `cluster-ctx-${process.pid}-${++contextCounter}`;
    const hash = hashContextKey(key);
    const [inc, exc] = [cluster.owner(keys(p).include(hash)), cluster.owner(keys(p).exclude(hash))];
    if ((inc !== exc) === split) out.push({ key, hash, nodes: [inc, exc] });
  }
  return out;
}

/** Memberships of every shape for fresh contexts, written to the cluster and to the single node. */
async function seedShapes(send, clusterPrefix, singlePrefix) {
  const shapes = [
    { include: ['a.g1', 'b.g2'] },
    { exclude: ['c.g3'] },
    { include: ['shared.g1', 'in.g1'], exclude: ['shared.g1', 'out.g4'] }, // include wins
    {},
    { include: ['__proto__', 'ünï.g1'], exclude: ['constructor'] },
  ];
  const cases = [];
  for (const split of [true, false]) {
    for (const [i, ctx] of contexts(clusterPrefix, shapes.length, split).entries()) cases.push({ ...ctx, ...shapes[i] });
  }
  for (const c of cases) {
    for (const [write, p] of [[send, clusterPrefix], [(args) => single.sendCommand(args), singlePrefix]]) {
      if (c.include) await write(['SADD', keys(p).include(c.hash), ...c.include]);
      if (c.exclude) await write(['SADD', keys(p).exclude(c.hash), ...c.exclude]);
    }
  }
  return cases;
}

const expected = (c) => {
  if (!c.include && !c.exclude) return null;
  // fromEntries: `__proto__` is an own key like any other ref.
  return Object.fromEntries([...(c.exclude ?? []).map((r) => [r, false]), ...(c.include ?? []).map((r) => [r, true])]);
};

const PREFIXES = [
  { label: 'default prefix', options: undefined, prefix: () => 'launchdarkly' },
  { label: 'custom prefix', options: 'custom', prefix: () => uniquePrefix('cluster') },
];

test('CRC16 slots agree with CLUSTER KEYSLOT', { skip }, async () => {
  for (const key of ['launchdarkly:big_segment_include:abc=', 'p:big_segment_exclude:x', '{tag}:a', 'ü', '']) {
    assert.equal(keySlot(key), await cluster.serverSlot(key), key);
  }
});

for (const [name, spec] of Object.entries(CLUSTER_CLIENTS)) {
  describe(name, { skip }, () => {
    let client;
    let send;
    before(async () => {
      client = await spec.connect(cluster);
      send = clusterSend(client);
    });
    after(async () => {
      await spec.close(client);
    });

    for (const p of PREFIXES) {
      test(`${p.label}: memberships and metadata as a single-node store answers on the same data`, async () => {
        const prefix = p.prefix();
        const singlePrefix = uniquePrefix('cluster-single');
        singlePrefixes.push(singlePrefix);
        const store = redisBigSegmentStore(hostFor(name, client), p.options === 'custom' ? { prefix } : p.options);
        const reference = redisBigSegmentStore(nodeRedisHost(single), { prefix: singlePrefix });
        const cases = await seedShapes(send, prefix, singlePrefix);
        assert.ok(cases.some((c) => c.nodes[0] !== c.nodes[1]), 'some contexts have their keys on two nodes');
        for (const c of cases) {
          const got = plain(await store.getMembership(c.hash));
          assert.deepEqual(got, expected(c), `${JSON.stringify(c)}`);
          assert.deepEqual(got, plain(await reference.getMembership(c.hash)), 'same as on one node');
        }
        // Metadata: missing, a number, not a number — on whichever node owns the key.
        const synced = [keys(prefix).syncedOn, keys(singlePrefix).syncedOn];
        await send(['DEL', synced[0]]);
        assert.equal((await store.getMetadata())?.lastUpToDate ?? null, null, 'never synchronized');
        assert.equal((await reference.getMetadata())?.lastUpToDate ?? null, null);
        for (const value of ['1700000000123', ' 42\n']) {
          await send(['SET', synced[0], value]);
          await single.sendCommand(['SET', synced[1], value]);
          assert.deepEqual({ ...(await store.getMetadata()) }, { ...(await reference.getMetadata()) });
          assert.equal((await store.getMetadata()).lastUpToDate, Number(value));
        }
        await send(['SET', synced[0], 'soon']);
        await assert.rejects(store.getMetadata(), /not a number/);
        await send(['DEL', synced[0]]);
        for (const c of cases) await send(['DEL', keys(prefix).include(c.hash)]), await send(['DEL', keys(prefix).exclude(c.hash)]);
      });
    }

    test('a manager over the cluster store: HEALTHY and include wins; STALE when the sync is old', async () => {
      const prefix = uniquePrefix('cluster-mgr');
      const [c] = contexts(prefix, 1, true);
      await send(['SADD', keys(prefix).include(c.hash), 'vip.g1', 'both.g1']);
      await send(['SADD', keys(prefix).exclude(c.hash), 'ban.g1', 'both.g1']);
      const lookup = async () => {
        const manager = new BigSegmentStoreManager({
          store: redisBigSegmentStore(hostFor(name, client), { prefix }),
          staleAfterMs: 60_000,
        });
        try {
          const r = await manager.getUserMembership(c.key);
          return { status: r.status, membership: plain(r.membership) };
        } finally {
          await manager.close();
        }
      };
      const membership = { 'vip.g1': true, 'both.g1': true, 'ban.g1': false };
      await send(['SET', keys(prefix).syncedOn, String(Date.now())]);
      assert.deepEqual(await lookup(), { status: 'HEALTHY', membership });
      await send(['SET', keys(prefix).syncedOn, String(Date.now() - 3_600_000)]);
      assert.deepEqual(await lookup(), { status: 'STALE', membership });
      for (const k of [keys(prefix).syncedOn, keys(prefix).include(c.hash), keys(prefix).exclude(c.hash)]) await send(['DEL', k]);
    });

    test('per node: exactly the two SMEMBERS of each query, to their owners, concurrently; no MULTI/EXEC, no errors', async () => {
      const prefix = uniquePrefix('cluster-count');
      const cases = [...contexts(prefix, 12, true), ...contexts(prefix, 4, false)];
      for (const c of cases) await send(['SADD', keys(prefix).include(c.hash), 'x.g1']);
      const store = redisBigSegmentStore(hostFor(name, client), { prefix });
      // The host looks the client's method up on every call: wrap it to see commands in flight.
      const own = client[spec.method];
      let inFlight = 0;
      let maxInFlight = 0;
      const sent = [];
      client[spec.method] = function (...args) {
        sent.push(args);
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        const reply = own.apply(this, args);
        return Promise.resolve(reply).finally(() => inFlight--);
      };
      await cluster.resetStats();
      try {
        for (const c of cases) {
          const before = sent.length;
          const query = store.getMembership(c.hash);
          assert.equal(sent.length - before, 2, 'both SMEMBERS are sent before either reply');
          assert.deepEqual(plain(await query), { 'x.g1': true });
        }
      } finally {
        client[spec.method] = own;
      }
      assert.equal(maxInFlight, 2);
      const want = {};
      for (const port of cluster.ports) want[port] = 0;
      for (const c of cases) for (const port of c.nodes) want[port]++;
      const stats = await cluster.stats();
      for (const port of cluster.ports) {
        const { calls, errors } = stats[port];
        assert.equal(calls.smembers ?? 0, want[port], `SMEMBERS on node ${port}: ${JSON.stringify(calls)}`);
        for (const cmd of ['multi', 'exec', 'get', 'sadd']) assert.equal(calls[cmd], undefined, `${cmd} on node ${port}`);
        assert.deepEqual(errors, {}, `errors on node ${port}`);
      }
      assert.equal(Object.values(want).reduce((a, b) => a + b), 2 * cases.length);
      assert.ok(Object.values(want).filter((n) => n > 0).length >= 2, 'queries reached several nodes');
      for (const c of cases) await send(['DEL', keys(prefix).include(c.hash)]);
      assert.deepEqual(client.errors, [], 'the client reported no errors');
    });
  });
}
