// Child process for redis-faults.test.mjs: starts a manager over real Redis, does a lookup, then
// closes things and does nothing else — the process must exit by itself.
// argv: <node-redis|ioredis> <close|no-close>; env: REDIS_URL, QA_PREFIX.
import { createClient } from 'redis';
import { Redis } from 'ioredis';
import { redisBigSegmentStore, nodeRedisHost, BigSegmentStoreManager, hashContextKey } from 'cutover';

const [clientKind, mode] = process.argv.slice(2);
const prefix = process.env.QA_PREFIX;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

let client;
let host;
if (clientKind === 'ioredis') {
  client = new Redis(process.env.REDIS_URL);
  client.on('error', () => {});
  // A host without pipeline: two `call`s (keeps this check independent of ioredisHost's pipeline).
  host = { command: ([name, ...args]) => client.call(name, ...args) };
} else {
  client = createClient({ url: process.env.REDIS_URL });
  client.on('error', () => {});
  await client.connect();
  host = nodeRedisHost(client);
}
const send = (args) => (clientKind === 'ioredis' ? client.call(...args) : client.sendCommand(args));
await send(['SET', `${prefix}:big_segments_synchronized_on`, String(Date.now())]);
await send(['SADD', `${prefix}:big_segment_include:${hashContextKey('qa-user')}`, 'qa.g1']);

const manager = new BigSegmentStoreManager({
  store: redisBigSegmentStore(host, { prefix }),
  statusPollIntervalMs: 20,
  logger: silent,
});
manager.start();
const r = await manager.getUserMembership('qa-user');
console.log(`lookup ${r.status} ${JSON.stringify({ ...r.membership })}`);
await new Promise((resolve) => setTimeout(resolve, 100)); // a few background polls
if (mode === 'close') await manager.close();
if (clientKind === 'ioredis') await client.quit();
else await client.close();
console.log('done');
