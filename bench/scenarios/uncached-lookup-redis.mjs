// Every lookup misses the membership cache and goes to the local redis-server.
import { ldBigSegmentClient, loadCutover, loadLD, timeAsync } from '../lib/common.mjs';
import { adminClient, commandDelta, commandStats, countingProxy, hash, redisUrl, seed, userKey } from '../lib/redis.mjs';

// Timed lookups per side and round: about 0.3 s of either library's (node-redis, info only: half).
const OPS = 3000;
const RT_LOOKUPS = 200;
export const meta = {
  unit: 'µs/op',
  note:
    'local redis-server, Relay schema, 2000 seeded contexts cycled so every lookup misses (cache size 1). ' +
    'cutover: BigSegmentStoreManager({contextCacheSize: 1}) over redisBigSegmentStore(nodeRedisHost(node-redis v6)); ' +
    "LD: its BigSegmentsManager (userCacheSize 1) over RedisBigSegmentStore (ioredis), via the client's evaluator queries",
  floor: 'one round trip with no library at all: ioredis pipeline().exec() of the same two SMEMBERS, keys hashed in advance',
};

async function nodeRedis(url) {
  const { createClient } = await import('redis');
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  return client;
}

async function cutoverManager(c, url, kind = 'ioredis') {
  let host;
  let closeClient;
  if (kind === 'ioredis') {
    const { default: Redis } = await import('ioredis');
    const client = new Redis(url);
    host = c.ioredisHost(client);
    closeClient = () => client.disconnect();
  } else {
    const client = await nodeRedis(url);
    host = c.nodeRedisHost(client);
    closeClient = () => client.destroy();
  }
  const mgr = new c.BigSegmentStoreManager({ store: c.redisBigSegmentStore(host), contextCacheSize: 1 });
  return { lookup: (k) => mgr.getUserMembership(k), mgr, close: async () => { await mgr.close(); closeClient(); } };
}

async function measure(lookup, admin, ops = OPS) {
  let n = 0;
  const check = await lookup(userKey(0));
  if (!check || (check.status ?? check[1]) !== 'HEALTHY') throw new Error(`unexpected: ${JSON.stringify(check)}`);
  const before = await commandStats(admin);
  const r = await timeAsync(() => lookup(userKey(++n)), { ops });
  const after = await commandStats(admin);
  return { r, perLookup: commandDelta(before, after, n) };
}

async function roundTrips(makeLookup) {
  const proxy = await countingProxy();
  const { lookup, close } = await makeLookup(proxy);
  await lookup(userKey(1)); // connection handshake and first status poll happen here
  await lookup(userKey(2));
  proxy.counts.clientWrites = 0;
  for (let i = 0; i < RT_LOOKUPS; i++) await lookup(userKey(10 + i));
  const perLookup = proxy.counts.clientWrites / RT_LOOKUPS;
  await close();
  await proxy.close();
  return perLookup;
}

export async function cutover() {
  const c = await loadCutover();
  const admin = await adminClient();
  await seed(admin);
  const main = await cutoverManager(c, redisUrl());
  const { r, perLookup } = await measure(main.lookup, admin);
  const s = main.mgr.stats();
  await main.close();
  const rt = await roundTrips((p) => cutoverManager(c, p.url));
  // The same manager over node-redis, to show what the client library costs: info only.
  const nr = await cutoverManager(c, redisUrl(), 'node-redis');
  const nrR = await measure(nr.lookup, admin, OPS / 2);
  await nr.close();
  await admin.destroy();
  return {
    value: r.usPerOp,
    info: {
      ops: r.ops, roundTripsPerLookup: rt, commandsPerLookup: perLookup,
      cacheHits: s.cacheHits, membershipQueries: s.membershipQueries, lookups: s.lookups,
      nodeRedisUsPerOp: nrR.r.usPerOp,
    },
  };
}

async function ldManager(ld, RedisBigSegmentStore, host, port) {
  const { client, managerLookup } = await ldBigSegmentClient(ld, {
    store: RedisBigSegmentStore({ redisOpts: { host, port } }), userCacheSize: 1,
  });
  if (!managerLookup) throw new Error('LD BigSegmentsManager not reachable');
  return { lookup: managerLookup, client, close: async () => client.close() };
}

export async function launchdarkly() {
  const ld = await loadLD();
  const { RedisBigSegmentStore } = await import('@launchdarkly/node-server-sdk-redis');
  const admin = await adminClient();
  await seed(admin);
  const u = new URL(redisUrl());
  const main = await ldManager(ld, RedisBigSegmentStore, u.hostname, Number(u.port));
  const { r, perLookup } = await measure(main.lookup, admin);
  await main.close();
  const rt = await roundTrips((p) => ldManager(ld, RedisBigSegmentStore, p.host, p.port));
  await admin.destroy();
  return { value: r.usPerOp, info: { ops: r.ops, roundTripsPerLookup: rt, commandsPerLookup: perLookup } };
}

/** One round trip and nothing else: the raw ioredis pipeline of the two SMEMBERS per lookup. */
export async function floor() {
  const { default: Redis } = await import('ioredis');
  const admin = await adminClient();
  await seed(admin);
  await admin.destroy();
  const client = new Redis(redisUrl());
  const keys = Array.from({ length: 2000 }, (_, i) => hash(userKey(i)));
  let n = 0;
  const r = await timeAsync(() => {
    const h = keys[++n % keys.length];
    return client.pipeline([['smembers', `launchdarkly:big_segment_include:${h}`], ['smembers', `launchdarkly:big_segment_exclude:${h}`]]).exec();
  }, { ops: OPS });
  client.disconnect();
  return { value: r.usPerOp, info: { ops: r.ops } };
}
