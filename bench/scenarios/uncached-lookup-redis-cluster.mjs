// Every lookup misses the membership cache and goes to a private three-master Redis Cluster
// (REDIS_CLUSTER_URLS, started by the driver with scripts/redis-cluster.sh). LaunchDarkly's
// Redis store does not support cluster mode: cutover and a floor only.
import { loadCutover, timeAsync } from '../lib/common.mjs';
import { POOL, hash, userKey } from '../lib/redis.mjs';

// Timed lookups per side and round: about 0.35 s (node-redis, info only: half as many).
const OPS = 3000;
export const meta = {
  unit: 'µs/op',
  note:
    'private Redis Cluster (3 masters, loopback), Relay schema, 2000 seeded contexts cycled so every lookup misses (cache size 1). ' +
    'cutover: BigSegmentStoreManager({contextCacheSize: 1}) over redisBigSegmentStore(ioredisHost(ioredis Cluster)): the two SMEMBERS ' +
    'go out concurrently to the nodes owning their keys; LD: its Redis store has no cluster mode',
  floor: 'the two SMEMBERS of a lookup as two concurrent ioredis Cluster calls, no library, keys hashed in advance',
};

function seeds() {
  const urls = process.env.REDIS_CLUSTER_URLS;
  if (!urls) throw new Error('REDIS_CLUSTER_URLS is not set (the driver starts a cluster)');
  return urls.split(/\s+/).filter(Boolean).map((u) => ({ host: new URL(u).hostname, port: Number(new URL(u).port) }));
}

async function ioCluster() {
  const { Cluster } = await import('ioredis');
  const client = new Cluster(seeds(), { lazyConnect: true });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** The Relay schema as in uncached-lookup-redis, key by key (a cluster has no cross-slot pipeline). */
async function seed(client) {
  const writes = [client.call('SET', 'launchdarkly:big_segments_synchronized_on', String(Date.now()))];
  for (let i = 0; i < POOL; i++) {
    const h = hash(userKey(i));
    if (i % 2 === 0) writes.push(client.call('SADD', `launchdarkly:big_segment_include:${h}`, 'bigseg.g1'));
    if (i % 3 === 0) writes.push(client.call('SADD', `launchdarkly:big_segment_exclude:${h}`, 'other.g1'));
  }
  await Promise.all(writes);
}

/** SMEMBERS calls summed over the masters (INFO commandstats on each). */
async function smembersCalls(client) {
  let n = 0;
  for (const node of client.nodes('master')) {
    const m = /cmdstat_smembers:calls=(\d+)/.exec(await node.info('commandstats'));
    n += m ? Number(m[1]) : 0;
  }
  return n;
}

async function cutoverManager(c, kind) {
  let client;
  let host;
  if (kind === 'ioredis') {
    client = await ioCluster();
    host = c.ioredisHost(client);
  } else {
    const { createCluster } = await import('redis');
    client = createCluster({ rootNodes: seeds().map(({ host: h, port }) => ({ url: `redis://${h}:${port}` })) });
    client.on('error', () => {});
    await client.connect();
    host = c.nodeRedisHost(client);
  }
  const mgr = new c.BigSegmentStoreManager({ store: c.redisBigSegmentStore(host), contextCacheSize: 1 });
  const close = async () => {
    await mgr.close();
    if (kind === 'ioredis') client.disconnect();
    else client.destroy();
  };
  return { lookup: (k) => mgr.getUserMembership(k), mgr, close };
}

async function measure(lookup, ops = OPS) {
  let n = 0;
  const check = await lookup(userKey(0));
  if (check?.status !== 'HEALTHY' || check.membership?.['bigseg.g1'] !== true) throw new Error(`unexpected: ${JSON.stringify(check)}`);
  const r = await timeAsync(() => lookup(userKey(++n)), { ops });
  return { r, n };
}

export async function cutover() {
  const c = await loadCutover();
  const admin = await ioCluster();
  await seed(admin);
  const main = await cutoverManager(c, 'ioredis');
  const before = await smembersCalls(admin);
  const { r, n } = await measure(main.lookup);
  const perLookup = ((await smembersCalls(admin)) - before) / (n + 1);
  const s = main.mgr.stats();
  await main.close();
  // The same manager over a node-redis cluster: info only.
  const nr = await cutoverManager(c, 'node-redis');
  const nrR = await measure(nr.lookup, OPS / 2);
  await nr.close();
  admin.disconnect();
  return {
    value: r.usPerOp,
    info: {
      ops: r.ops, smembersPerLookup: Number(perLookup.toFixed(3)),
      cacheHits: s.cacheHits, membershipQueries: s.membershipQueries, lookups: s.lookups,
      nodeRedisUsPerOp: nrR.r.usPerOp,
    },
  };
}

/** The two SMEMBERS, concurrently, with nothing else. */
export async function floor() {
  const client = await ioCluster();
  await seed(client);
  const keys = Array.from({ length: POOL }, (_, i) => hash(userKey(i)));
  let n = 0;
  const r = await timeAsync(() => {
    const h = keys[++n % keys.length];
    return Promise.all([
      client.smembers(`launchdarkly:big_segment_include:${h}`),
      client.smembers(`launchdarkly:big_segment_exclude:${h}`),
    ]);
  }, { ops: OPS });
  client.disconnect();
  return { value: r.usPerOp, info: { ops: r.ops } };
}
