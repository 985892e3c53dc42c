// upstashHost (API.md §2) with the real @upstash/redis client, talking to a local node:http server
// that speaks Upstash's REST protocol and forwards every command to the real redis-server with
// node-redis. What @upstash/redis 1.39 sends (read from its source): POST `/` with one JSON command
// array → `{result}` or `{error}`; POST `/pipeline` (and `/multi-exec`) with an array of command
// arrays → `[{result}|{error}, …]`; `Authorization: Bearer <token>`; with `Upstash-Encoding: base64`
// (its default) string results are base64-encoded (arrays element-wise; "OK" and integers as they are).
// Plain commands are auto-pipelined by the client, so they arrive on `/pipeline` too.
//
// Memberships and metadata read through upstashHost must equal those read through node-redis.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { Redis as Upstash } from '@upstash/redis';
import {
  redisBigSegmentStore,
  nodeRedisHost,
  upstashHost,
  BigSegmentStoreManager,
  hashContextKey,
} from 'cutover';
import {
  redisUrl,
  nodeRedis,
  closeNodeRedis,
  unhandledRejections,
  trackedPrefixes,
  uniquePrefix,
  deleteKeys,
  keys,
  writeMembership,
  plain,
  prng,
} from './helpers/redis-env.mjs';

const TOKEN = 'qa-token';
const DEFAULT_DB = 3; // default-prefix keys of this file

let url;
let backend; // node-redis client the REST server forwards to (db DEFAULT_DB)
let writer; // writes test data (db DEFAULT_DB)
let server;
let restUrl;
const requests = []; // { path, body, encoding, auth }
const unhandled = unhandledRejections();
const prefixes = trackedPrefixes();

function encode(value, base64) {
  if (!base64) return value;
  if (typeof value === 'string') return value === 'OK' ? value : Buffer.from(value, 'utf8').toString('base64');
  if (Array.isArray(value)) return value.map((v) => encode(v, base64));
  return value; // integers, null
}

async function run(command) {
  if (!Array.isArray(command) || command.length === 0) throw new Error('ERR empty command');
  return backend.sendCommand(command.map(String));
}

async function handle(req, res) {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  const send = (status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    return send(400, { error: 'ERR failed to parse request body' });
  }
  requests.push({ path: req.url, body, encoding: base64 ? 'base64' : 'none', auth: req.headers.authorization });
  if (req.method !== 'POST') return send(405, { error: 'method not allowed' });
  if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(401, { error: 'Unauthorized' });
  const path = req.url.split('?')[0].replace(/\/+$/, '') || '/';
  if (path === '/') {
    try {
      return send(200, { result: encode(await run(body), base64) });
    } catch (e) {
      return send(400, { error: String(e.message ?? e) });
    }
  }
  if (path === '/pipeline' || path === '/multi-exec') {
    if (!Array.isArray(body)) return send(400, { error: 'ERR pipeline body must be an array' });
    const replies = await Promise.all(
      body.map((cmd) =>
        run(cmd).then(
          (result) => ({ result: encode(result, base64) }),
          (e) => ({ error: String(e.message ?? e) }),
        ),
      ),
    );
    return send(200, replies);
  }
  return send(404, { error: `unknown path ${req.url}` });
}

before(async () => {
  unhandled.start();
  url = await redisUrl();
  backend = await nodeRedis(url, { database: DEFAULT_DB });
  writer = await nodeRedis(url, { database: DEFAULT_DB });
  server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      res.writeHead(500);
      res.end(JSON.stringify({ error: String(e) }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  restUrl = `http://127.0.0.1:${server.address().port}`;
});

after(async () => {
  await prefixes.deleteAll(writer);
  await deleteKeys(writer, 'launchdarkly:*');
  await closeNodeRedis(backend);
  await closeNodeRedis(writer);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  assert.deepEqual(unhandled.stop(), [], 'no unhandled rejections');
});

const upstashClient = (extra = {}) =>
  new Upstash({ url: restUrl, token: TOKEN, enableTelemetry: false, retry: false, ...extra });

/** Writes random memberships for `count` users under `prefix`; returns their hashes. */
async function seedUsers(prefix, count, seed) {
  const rand = prng(seed);
  const refs = Array.from({ length: 8 }, (_, i) => `seg-${i}.g${1 + (i % 3)}`);
  const hashes = [];
  for (let u = 0; u < count; u++) {
    const hash = hashContextKey(`${prefix}-user-${u}`);
    hashes.push(hash);
    const include = refs.filter(() => rand() < 0.3);
    const exclude = refs.filter(() => rand() < 0.3);
    await writeMembership(writer, prefix, hash, { include, exclude });
  }
  return hashes;
}

const variants = [
  { label: 'default client (base64 responses, auto-pipelining)', options: {} },
  { label: "responseEncoding: false", options: { responseEncoding: false } },
  { label: 'enableAutoPipelining: false', options: { enableAutoPipelining: false } },
];

describe('upstashHost over a local Upstash REST server', () => {
  test('the REST server is what @upstash/redis expects (sanity check of the fixture)', async () => {
    const client = upstashClient();
    const key = `${uniquePrefix('up-sanity')}:k`;
    prefixes.push(key.split(':')[0]);
    assert.equal(await client.set(key, 'héllo'), 'OK');
    assert.equal(await client.get(key), 'héllo');
    assert.equal(await client.sadd(`${key}:s`, 'a', 'b'), 2);
    assert.deepEqual((await client.smembers(`${key}:s`)).sort(), ['a', 'b']);
    assert.ok(requests.some((r) => r.encoding === 'base64' && r.auth === `Bearer ${TOKEN}`));
    const denied = new Upstash({ url: restUrl, token: 'wrong', enableTelemetry: false, retry: false });
    await assert.rejects(denied.get(key), /Unauthorized/);
  });

  for (const { label, options } of variants) {
    for (const prefixMode of ['default', 'custom']) {
      test(`${label}, ${prefixMode} prefix: memberships and metadata equal node-redis's`, async () => {
        const prefix = prefixMode === 'default' ? 'launchdarkly' : uniquePrefix('up');
        if (prefixMode === 'custom') prefixes.push(prefix);
        const storeOptions = prefixMode === 'default' ? undefined : { prefix };
        try {
          const hashes = await seedUsers(prefix, 40, 0xc0ffee);
          hashes.push(hashContextKey('nobody-at-all'));
          const viaUpstash = redisBigSegmentStore(upstashHost(upstashClient(options)), storeOptions);
          const viaNodeRedis = redisBigSegmentStore(nodeRedisHost(writer), storeOptions);
          let nonNull = 0;
          for (const hash of hashes) {
            const expected = plain(await viaNodeRedis.getMembership(hash));
            if (expected) nonNull++;
            assert.deepEqual(plain(await viaUpstash.getMembership(hash)), expected, hash);
          }
          assert.ok(nonNull > 20, 'the data set is not trivially empty');

          for (const stored of [null, '', '1700000000000', ' 1700000000456 ', String(Date.now())]) {
            if (stored === null) await writer.sendCommand(['DEL', keys(prefix).syncedOn]);
            else await writer.sendCommand(['SET', keys(prefix).syncedOn, stored]);
            const expected = (await viaNodeRedis.getMetadata())?.lastUpToDate ?? null;
            const got = (await viaUpstash.getMetadata())?.lastUpToDate ?? null;
            assert.equal(got, expected, `synchronized_on = ${JSON.stringify(stored)}`);
          }
          await writer.sendCommand(['SET', keys(prefix).syncedOn, 'soon']);
          await assert.rejects(viaUpstash.getMetadata(), 'not a number → rejects');
        } finally {
          await deleteKeys(writer, `${prefix}:*`);
        }
      });
    }
  }

  test('one HTTP request per membership query: POST /pipeline with both SMEMBERS', async () => {
    const prefix = uniquePrefix('up-rt');
    prefixes.push(prefix);
    const hash = hashContextKey('rt-user');
    await writeMembership(writer, prefix, hash, { include: ['a.g1'], exclude: ['b.g1'] });
    for (const { label, options } of variants) {
      const store = redisBigSegmentStore(upstashHost(upstashClient(options)), { prefix });
      const before = requests.length;
      assert.deepEqual(plain(await store.getMembership(hash)), { 'a.g1': true, 'b.g1': false }, label);
      const made = requests.slice(before);
      assert.equal(made.length, 1, `${label}: ${JSON.stringify(made)}`);
      assert.equal(made[0].path, '/pipeline', label);
      const k = keys(prefix);
      assert.deepEqual(
        new Set(made[0].body.map(([n, ...rest]) => [n.toUpperCase(), ...rest].join(' '))),
        new Set([`SMEMBERS ${k.include(hash)}`, `SMEMBERS ${k.exclude(hash)}`]),
        label,
      );
      const m0 = requests.length;
      await store.getMetadata();
      assert.equal(requests.length - m0, 1, `${label}: metadata is one request`);
    }
  });

  test('a manager over upstashHost: HEALTHY with the right membership; WRONGTYPE → STORE_ERROR', async () => {
    const prefix = uniquePrefix('up-mgr');
    prefixes.push(prefix);
    const k = keys(prefix);
    await writer.sendCommand(['SET', k.syncedOn, String(Date.now())]);
    await writeMembership(writer, prefix, hashContextKey('alice'), { include: ['vip.g2'] });
    await writer.sendCommand(['SET', k.include(hashContextKey('mallory')), 'not-a-set']);
    const errors = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (...a) => errors.push(a.join(' ')) };
    const manager = new BigSegmentStoreManager({
      store: redisBigSegmentStore(upstashHost(upstashClient()), { prefix }),
      logger,
    });
    try {
      const alice = await manager.getUserMembership('alice');
      assert.equal(alice.status, 'HEALTHY');
      assert.deepEqual(plain(alice.membership), { 'vip.g2': true });
      const mallory = await manager.getUserMembership('mallory');
      assert.deepEqual(mallory, { membership: null, status: 'STORE_ERROR' });
      assert.ok(errors.some((e) => e.startsWith('Big Segment store membership query returned error:')), errors.join('\n'));
    } finally {
      await manager.close();
    }
  });

  // SPEC.md B6: "Not a number → metadata query error" — whatever the host. node-redis hands the
  // string over as stored; @upstash/redis JSON-parses replies by default, so stored text that is
  // valid JSON ("null", "\"123\"") must not turn into "never synced" or a number.
  for (const stored of ['null', '"1700000000000"']) {
    test(`synchronized_on = ${stored} is "not a number" through upstashHost as through node-redis`, async () => {
      const prefix = uniquePrefix('up-json');
      prefixes.push(prefix);
      await writer.sendCommand(['SET', keys(prefix).syncedOn, stored]);
      await assert.rejects(redisBigSegmentStore(nodeRedisHost(writer), { prefix }).getMetadata(), 'node-redis');
      const viaUpstash = redisBigSegmentStore(upstashHost(upstashClient()), { prefix });
      let outcome;
      try {
        outcome = { resolved: await viaUpstash.getMetadata() };
      } catch (e) {
        outcome = { rejected: e };
      }
      assert.ok('rejected' in outcome, `upstashHost resolved ${JSON.stringify(outcome.resolved)} instead of rejecting`);
    });
  }
});
