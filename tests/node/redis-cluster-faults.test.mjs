// A Redis Cluster master killed mid-run (SIGKILL, no replica to fail over to), under a started
// BigSegmentStoreManager over the cluster store (queryTimeoutMs 1000), with each client at its
// default options: lookups that need the dead node are STORE_ERROR within queryTimeoutMs; lookups
// whose keys are on the other masters keep answering HEALTHY, before and after the cluster marks
// the node failed (cluster-node-timeout 2 s); nothing is left unhandled. One cluster per client,
// both started by scripts/redis-cluster.sh for this file.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { redisBigSegmentStore, nodeRedisHost, ioredisHost, BigSegmentStoreManager, hashContextKey } from 'cutover';
import { unhandledRejections, keys, plain, makeLogger, sleep } from './helpers/redis-env.mjs';
import { startCluster, clusterUnavailable, CLUSTER_CLIENTS, clusterSend } from './helpers/redis-cluster.mjs';

const skip = (await clusterUnavailable()) ?? false; // a reason, or false
const QUERY_TIMEOUT = 1000; // headroom for the live nodes on a loaded machine
const PREFIX = 'cluster-faults';
const unhandled = unhandledRejections();
const clusters = {};

before(async () => {
  if (skip) return;
  unhandled.start();
  const names = Object.keys(CLUSTER_CLIENTS);
  const started = await Promise.all(names.map(() => startCluster()));
  names.forEach((name, i) => (clusters[name] = started[i]));
});

after(async () => {
  if (skip) return;
  for (const c of Object.values(clusters)) await c.stop();
  await sleep(100); // late replies of abandoned queries settle here
  assert.deepEqual(unhandled.stop(), [], 'no unhandled rejections');
});

let counter = 0;
/** A context whose include and exclude keys are owned by nodes for which `wanted([inc, exc])` holds. */
function contextWhere(cluster, wanted) {
  for (;;) {
    const key = `faults-ctx-${process.pid}-${++counter}`;
    const hash = hashContextKey(key);
    const nodes = [cluster.owner(keys(PREFIX).include(hash)), cluster.owner(keys(PREFIX).exclude(hash))];
    if (wanted(nodes)) return { key, hash, nodes };
  }
}

for (const [name, spec] of Object.entries(CLUSTER_CLIENTS)) {
  describe(name, { skip }, () => {
    test('a master killed: its lookups STORE_ERROR within queryTimeoutMs, the others keep answering', { timeout: 20000 }, async () => {
      const cluster = clusters[name];
      const client = await spec.connect(cluster);
      const send = clusterSend(client);
      const { logger, texts } = makeLogger();
      let manager;
      try {
        // The victim is not the node that holds the sync time (the status would fail for everyone).
        const syncNode = cluster.owner(keys(PREFIX).syncedOn);
        const victim = cluster.ports.find((p) => p !== syncNode);
        const served = (n) => n.includes(victim);
        const ctx = {
          victim: [0, 1].map(() => contextWhere(cluster, (n) => n[0] === victim && n[1] === victim)),
          mixed: [0, 1].map(() => contextWhere(cluster, (n) => n[0] !== n[1] && served(n))),
          others: [0, 1, 2].map(() => contextWhere(cluster, (n) => n[0] !== n[1] && !served(n))),
        };
        await send(['SET', keys(PREFIX).syncedOn, String(Date.now())]);
        for (const c of Object.values(ctx).flat()) {
          await send(['SADD', keys(PREFIX).include(c.hash), 'in.g1']);
          await send(['SADD', keys(PREFIX).exclude(c.hash), 'out.g1']);
        }
        const host = name.startsWith('ioredis') ? ioredisHost(client) : nodeRedisHost(client);
        manager = new BigSegmentStoreManager({
          store: redisBigSegmentStore(host, { prefix: PREFIX }),
          contextCacheSize: 1, // every lookup below is a membership query
          statusPollIntervalMs: 100,
          queryTimeoutMs: QUERY_TIMEOUT,
          logger,
        });
        manager.start();
        const lookup = async (c) => {
          const t0 = Date.now();
          const r = await manager.getUserMembership(c.key);
          return { status: r.status, membership: plain(r.membership), ms: Date.now() - t0 };
        };
        const member = { 'in.g1': true, 'out.g1': false };
        for (const c of Object.values(ctx).flat()) {
          const r = await lookup(c);
          assert.deepEqual([r.status, r.membership], ['HEALTHY', member], `before the kill: ${JSON.stringify(c)}`);
        }

        await cluster.kill(victim);
        const killedAt = Date.now();
        // Rounds of concurrent lookups, until past the cluster's own failure detection.
        let rounds = 0;
        while (Date.now() - killedAt < 2500 || rounds < 3) {
          rounds++;
          const all = [...ctx.victim, ...ctx.mixed, ...ctx.others];
          const results = await Promise.all(all.map(lookup));
          all.forEach((c, i) => {
            const r = results[i];
            const what = `round ${rounds}, ${Date.now() - killedAt} ms after the kill: ${JSON.stringify({ c, r })}`;
            if (served(c.nodes)) {
              assert.deepEqual([r.status, r.membership], ['STORE_ERROR', null], what);
            } else {
              assert.deepEqual([r.status, r.membership], ['HEALTHY', member], what);
            }
            assert.ok(r.ms < QUERY_TIMEOUT + 1000, `${r.ms} ms: ${what}`);
          });
        }
        assert.ok(texts('error').some((t) => t.startsWith('Big Segment store membership query returned error:')));
        assert.deepEqual(manager.statusProvider.lastStatus, { available: true, stale: false }, 'the sync node is up');
      } finally {
        await manager?.close();
        await spec.close(client);
      }
    });
  });
}
