// redisFleet over a real Redis (API.md §2d): three processes publish into one hash; a fourth's
// console shows each instance and the fleet's totals, which equal the sums, with percentiles of
// the merged histograms (not averages); killed, an instance is gone after ttlMs (and its field
// deleted). A publisher sends one command per interval: HSET of its own field. node-redis answers
// HGETALL with an object, ioredis with a flat array (as Upstash's REST API does): both are read.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { MigratorBuilder, fixedStage, ioredisHost, migrationConsole, nodeRedisHost, redisFleet } from 'cutover';
import { closeIoredis, closeNodeRedis, ioredis, nodeRedis, redisUrl, uniquePrefix, waitFor } from './helpers/redis-env.mjs';

const CHILD = fileURLToPath(new URL('./helpers/fleet-child.mjs', import.meta.url));
let url, client, key;
const children = [];

/** A fleet process: `reads` reads with an old origin of about `latencyMs`; resolves once it has published. */
function startChild(instance, reads, latencyMs) {
  const child = spawn(process.execPath, ['--unhandled-rejections=strict', CHILD, url, key, instance, String(reads), String(latencyMs)], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (c) => { stderr += c; });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${instance} exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout }).once('line', (line) => (line === 'published' ? resolve(child) : reject(new Error(line))));
  });
}

before(async () => {
  url = await redisUrl();
  client = await nodeRedis(url);
  key = `${uniquePrefix('fleet')}:fleet`;
});
after(async () => {
  for (const child of children) child.kill('SIGKILL');
  await client.del(key);
  await closeNodeRedis(client);
});

test('three processes: the totals are the sums, percentiles merged; a killed one is gone after ttlMs', { timeout: 60_000 }, async () => {
  const [, , c] = await Promise.all([startChild('a', 90, 1), startChild('b', 10, 100), startChild('c', 50, 5)]);
  const fleet = redisFleet(nodeRedisHost(client), { key, instance: 'reader', intervalMs: 200, ttlMs: 1500 });
  const handler = migrationConsole({ authorize: () => true, fleet });
  const snapshot = async () => (await (await handler(new Request('http://svc/cutover/api/snapshot'))).json()).fleet;
  try {
    let view;
    await waitFor(async () => {
      view = await snapshot();
      return view.instances.length === 4;
    }, { timeoutMs: 10_000, what: 'four instances' });
    assert.equal(view.error, null);
    assert.deepEqual(view.instances.map((i) => i.instance).sort(), ['a', 'b', 'c', 'reader']);
    assert.equal(view.instances.find((i) => i.self).instance, 'reader');
    assert.deepEqual(Object.fromEntries(view.instances.filter((i) => !i.self).map((i) => [i.instance, i.migrators.orders.ops])), { a: 90, b: 10, c: 50 });
    const [orders] = view.migrators;
    assert.equal(orders.name, 'orders');
    assert.equal(orders.instances, 3);
    assert.equal(orders.read.count, 150);
    assert.equal(orders.read.old.invoked, 150);
    assert.equal(orders.read.checked, 150);
    assert.equal(orders.read.consistent, 150);
    assert.deepEqual(orders.read.byStage, { shadow: 150 });
    assert.deepEqual(orders.guard, {});
    // Merged, not averaged: 140 of the 150 calls took under ~10 ms, 10 about 100 ms. The
    // fleet's p50 is a fast call and its p99 a slow one; averaging the three p99s would give ~40.
    const old = orders.latency.readOld;
    assert.equal(old.count, 150);
    assert.ok(old.p50 < 20, `p50 ${old.p50}`);
    assert.ok(old.p99 >= 95, `p99 ${old.p99}`);
    assert.equal(orders.latency.readNew.count, 150);

    c.kill('SIGKILL');
    await waitFor(async () => {
      view = await snapshot();
      return view.instances.length === 3;
    }, { timeoutMs: 10_000, what: 'c gone' });
    assert.deepEqual(view.instances.map((i) => i.instance).sort(), ['a', 'b', 'reader']);
    assert.equal(view.migrators[0].read.count, 100);
    await waitFor(async () => !(await client.hExists(key, 'c')), { timeoutMs: 5000, what: "c's field deleted" });
  } finally {
    handler.close();
  }
  await waitFor(async () => !(await client.hExists(key, 'reader')), { timeoutMs: 5000, what: "close() deletes the reader's field" });
});

test('a publisher nobody reads sends one command per interval: HSET of its own field', { timeout: 20_000 }, async () => {
  const sent = [];
  const host = { command: (args) => { sent.push(args); return client.sendCommand(args); } };
  const fleet = redisFleet(host, { key, instance: 'quiet', intervalMs: 100, ttlMs: 1000 });
  const handler = migrationConsole({ authorize: () => true, fleet });
  try {
    await waitFor(() => sent.length >= 3, { timeoutMs: 10_000, what: 'three publishes' });
    for (const args of sent) {
      assert.deepEqual(args.slice(0, 3), ['HSET', key, 'quiet']);
      assert.equal(args.length, 4);
      const doc = JSON.parse(args[3]);
      assert.equal(doc.v, 1);
      assert.equal(typeof doc.at, 'number');
    }
  } finally {
    handler.close();
  }
  await waitFor(() => sent.at(-1)[0] === 'HDEL', { what: 'close() deletes its field' });
});

test('node-redis and ioredis hosts publish into one fleet and read it alike', { timeout: 20_000 }, async () => {
  const io = await ioredis(url);
  const orders = new MigratorBuilder(fixedStage('live')).read((n) => n, (n) => n).write((x) => x, (x) => x).build();
  for (let i = 0; i < 7; i++) await orders.read('orders-store', { key: `u${i}` }, 'off', i);
  const mixedKey = `${key}:mixed`;
  const viaNodeRedis = migrationConsole({ migrators: { orders }, authorize: () => true, fleet: redisFleet(nodeRedisHost(client), { key: mixedKey, instance: 'node-redis' }) });
  const viaIoredis = migrationConsole({ migrators: { orders }, authorize: () => true, fleet: redisFleet(ioredisHost(io), { key: mixedKey, instance: 'ioredis' }) });
  try {
    for (const handler of [viaNodeRedis, viaIoredis]) {
      let view;
      await waitFor(async () => {
        view = (await (await handler(new Request('http://svc/cutover/api/snapshot'))).json()).fleet;
        return view.instances.length === 2;
      }, { timeoutMs: 5000, what: 'both instances' });
      assert.deepEqual(view.instances.map((i) => i.instance).sort(), ['ioredis', 'node-redis']);
      assert.equal(view.migrators[0].read.count, 14);
      assert.deepEqual(view.migrators[0].read.byStage, { live: 14 });
    }
  } finally {
    viaNodeRedis.close();
    viaIoredis.close();
    await waitFor(async () => (await client.hLen(mixedKey)) === 0, { what: 'both fields deleted' });
    await closeIoredis(io);
  }
});

test("another process's junk is outside data: unreadable documents and histograms are counted, never fatal", { timeout: 20_000 }, async () => {
  const now = Date.now();
  const good = (at) => JSON.stringify({ v: 1, at, migrators: { orders: { read: { count: 2 }, write: { count: 1 }, latency: [[1, 5, 5, 5, 402, 1]] } }, managers: {} });
  const hash = {
    good: good(now),
    'not-json': '{',
    'wrong-version': JSON.stringify({ v: 2, at: now }),
    'no-time': JSON.stringify({ v: 1, migrators: {} }),
    'bad-histogram': JSON.stringify({ v: 1, at: now, migrators: { orders: { read: { count: 1 }, latency: [[3, 1, 2], 'x', null] } } }),
    'strange-shapes': JSON.stringify({ v: 1, at: now, migrators: { orders: { read: 'many', write: [1, 2], guard: 'tripped' } }, managers: 7 }),
    old: good(now - 60_000),
  };
  const sent = [];
  const redis = async (args) => {
    sent.push(args);
    return args[0] === 'HGETALL' ? Object.entries(hash).flat() : 1;
  };
  const handler = migrationConsole({ authorize: () => true, fleet: redisFleet(redis, { instance: 'reader', intervalMs: 1000, ttlMs: 5000 }) });
  try {
    const response = await handler(new Request('http://svc/cutover/api/snapshot'));
    assert.equal(response.status, 200);
    const { fleet } = await response.json();
    assert.equal(fleet.error, null);
    assert.deepEqual(fleet.instances.map((i) => i.instance).sort(), ['bad-histogram', 'good', 'strange-shapes']);
    const [orders] = fleet.migrators;
    assert.equal(orders.read.count, 3, 'the readable counts add up');
    assert.equal(orders.latency.readOld.count, 1, 'the one readable histogram');
    assert.equal(fleet.unreadable, 3, 'two documents (not JSON, another version) and one histogram');
    const hdel = sent.find((args) => args[0] === 'HDEL');
    assert.deepEqual(hdel?.slice(2).sort(), ['no-time', 'not-json', 'old', 'wrong-version'], 'the expired and unreadable fields are deleted');
  } finally {
    handler.close();
  }
});
