// One process of the fleet suite (console-fleet.test.mjs): a migrator that reads `reads` times
// with an old origin of about `latencyMs`, and a console publishing it to the Redis fleet at
// REDIS_URL every 200 ms. Prints `published` once its first document is in Redis, then lives
// until it is killed.
import { createClient } from 'redis';
import { MigratorBuilder, fixedStage, migrationConsole, nodeRedisHost, redisFleet } from 'cutover';

const [url, key, instance, reads, latencyMs] = process.argv.slice(2);
const client = createClient({ url });
client.on('error', () => {});
await client.connect();
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const orders = new MigratorBuilder(fixedStage('shadow'))
  .read(async (n) => { await wait(Number(latencyMs)); return n; }, async (n) => n, (a, b) => a === b)
  .write((x) => x, (x) => x)
  .build();
for (let i = 0; i < Number(reads); i++) await orders.read('orders-store', { key: `user-${i}` }, 'off', i);
const fleet = redisFleet(nodeRedisHost(client), { key, instance, intervalMs: 200, ttlMs: 1500 });
migrationConsole({ migrators: { orders }, authorize: () => false, fleet });
while (!(await client.hExists(key, instance))) await wait(20);
process.stdout.write('published\n');
setInterval(() => {}, 1 << 30);
