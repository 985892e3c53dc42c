// One round trip per membership query (SPEC.md B6, beyond): both SMEMBERS go through the host's
// `pipeline` when it has one (exactly one pipeline call, no separate commands); without a pipeline,
// two `command` calls issued together — both before either resolves. Shown three ways: counting
// host wrappers, a TCP proxy that counts the client's writes to a real redis-server, and the
// server's own INFO commandstats (on a private redis-server, so other files cannot skew the counts).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { redisBigSegmentStore, nodeRedisHost, ioredisHost, hashContextKey } from 'cutover';
import { countingProxy } from './helpers/counting-proxy.mjs';
import {
  redisUrl,
  nodeRedis,
  ioredis,
  closeNodeRedis,
  closeIoredis,
  unhandledRejections,
  trackedPrefixes,
  keys,
  writeMembership,
  plain,
  nextMacrotask,
  startRedisServer,
} from './helpers/redis-env.mjs';

let url;
let writer;
const unhandled = unhandledRejections();
const prefixes = trackedPrefixes();
const newPrefix = () => prefixes.next('rt');

before(async () => {
  unhandled.start();
  url = await redisUrl();
  writer = await nodeRedis(url);
});

after(async () => {
  await prefixes.deleteAll(writer);
  await closeNodeRedis(writer);
  assert.deepEqual(unhandled.stop(), [], 'no unhandled rejections');
});

const upper = (cmds) => cmds.map(([name, ...rest]) => [String(name).toUpperCase(), ...rest]);

/** Wraps a host, recording calls; `withPipeline: false` hides the inner pipeline. */
function countingHost(inner, { withPipeline }) {
  const calls = { command: [], pipeline: [] };
  const host = {
    command(args) {
      calls.command.push(args);
      return inner.command(args);
    },
  };
  if (withPipeline) {
    host.pipeline = (commands) => {
      calls.pipeline.push(commands);
      return inner.pipeline(commands);
    };
  }
  return { host, calls };
}

async function seeded() {
  const prefix = newPrefix();
  const hash = hashContextKey(`rt-user-${Math.random()}`);
  await writeMembership(writer, prefix, hash, { include: ['in.g1', 'both.g1'], exclude: ['out.g2', 'both.g1'] });
  await writer.sendCommand(['SET', keys(prefix).syncedOn, '12345']);
  return { prefix, hash, expected: { 'in.g1': true, 'both.g1': true, 'out.g2': false } };
}

describe('counting host wrappers over node-redis', () => {
  test('with a pipeline: exactly 1 pipeline call holding both SMEMBERS, 0 commands', async () => {
    const { prefix, hash, expected } = await seeded();
    const { host, calls } = countingHost(nodeRedisHost(writer), { withPipeline: true });
    const store = redisBigSegmentStore(host, { prefix });
    assert.deepEqual(plain(await store.getMembership(hash)), expected);
    assert.equal(calls.pipeline.length, 1, 'one pipeline call');
    assert.equal(calls.command.length, 0, 'no separate commands');
    const k = keys(prefix);
    assert.deepEqual(
      new Set(upper(calls.pipeline[0]).map(String)),
      new Set([`SMEMBERS,${k.include(hash)}`, `SMEMBERS,${k.exclude(hash)}`]),
    );
    assert.equal(calls.pipeline[0].length, 2);

    // 10 more queries, some concurrent: one pipeline each.
    await Promise.all(Array.from({ length: 10 }, () => store.getMembership(hash)));
    assert.equal(calls.pipeline.length, 11);
    assert.equal(calls.command.length, 0);
  });

  test('metadata is one round trip too', async () => {
    const { prefix } = await seeded();
    const { host, calls } = countingHost(nodeRedisHost(writer), { withPipeline: true });
    const store = redisBigSegmentStore(host, { prefix });
    assert.equal((await store.getMetadata()).lastUpToDate, 12345);
    assert.equal(calls.command.length + calls.pipeline.length, 1);
  });

  test('without a pipeline: exactly 2 commands, both issued before either resolves (real Redis)', async () => {
    const { prefix, hash, expected } = await seeded();
    const log = [];
    let resolved = 0;
    const host = {
      command(args) {
        log.push({ args, resolvedBefore: resolved });
        return writer.sendCommand(args).finally(() => resolved++);
      },
    };
    const store = redisBigSegmentStore(host, { prefix });
    assert.deepEqual(plain(await store.getMembership(hash)), expected);
    assert.equal(log.length, 2, 'two commands');
    assert.deepEqual(
      log.map((l) => l.resolvedBefore),
      [0, 0],
      'the second command was issued before the first one resolved',
    );
    const k = keys(prefix);
    assert.deepEqual(
      new Set(upper(log.map((l) => l.args)).map(String)),
      new Set([`SMEMBERS,${k.include(hash)}`, `SMEMBERS,${k.exclude(hash)}`]),
    );
  });

  for (const shape of ['object {command}', 'bare function']) {
    test(`without a pipeline (${shape}): both commands are pending together — neither is answered until both are sent`, async () => {
      const { prefix, hash, expected } = await seeded();
      const pending = [];
      const command = (args) => new Promise((resolve, reject) => pending.push({ args, resolve, reject }));
      const store = redisBigSegmentStore(shape === 'bare function' ? command : { command }, { prefix });
      const result = store.getMembership(hash);
      let settled = false;
      result.then(
        () => (settled = true),
        () => (settled = true),
      );
      // Let every microtask and a macrotask run; a store sending the second command only after
      // the first reply would still be waiting with one command pending.
      await nextMacrotask();
      await nextMacrotask();
      assert.equal(pending.length, 2, 'both commands issued while none has been answered');
      assert.equal(settled, false);
      // Answer them from Redis, in reverse order.
      for (const p of [...pending].reverse()) p.resolve(await writer.sendCommand(p.args));
      assert.deepEqual(plain(await result), expected);
      assert.equal(pending.length, 2, 'no further commands');
    });
  }

  test('host failures: a rejecting pipeline or command rejects the query; a non-array pipeline reply rejects', async () => {
    const boom = new Error('boom');
    const s1 = redisBigSegmentStore({ command: async () => [], pipeline: async () => Promise.reject(boom) });
    await assert.rejects(s1.getMembership('h'), (e) => e === boom);
    const s2 = redisBigSegmentStore(async (args) => (args[1].includes('exclude') ? Promise.reject(boom) : []));
    await assert.rejects(s2.getMembership('h'), (e) => e === boom);
    const s3 = redisBigSegmentStore({ command: async () => [], pipeline: async () => 'nope' });
    await assert.rejects(s3.getMembership('h'));
    const s4 = redisBigSegmentStore(() => {
      throw boom;
    });
    await assert.rejects(s4.getMembership('h'), (e) => e === boom, 'a synchronous throw becomes a rejection');
    await assert.rejects(s4.getMetadata(), (e) => e === boom);
  });
});

describe('real Redis', () => {
  const N = 10;
  const targetPort = () => Number(new URL(url).port);

  /** Runs N sequential membership queries through `makeHost(proxyUrl)`; returns client writes. */
  async function clientWritesFor(connect, makeHost, closeClient) {
    const { prefix, hash, expected } = await seeded();
    const proxy = await countingProxy(targetPort());
    const client = await connect(proxy.url);
    const ping = () => (typeof client.call === 'function' ? client.call('PING') : client.sendCommand(['PING']));
    try {
      await ping();
      const store = redisBigSegmentStore(makeHost(client), { prefix });
      proxy.counts.clientWrites = 0;
      for (let i = 0; i < N; i++) assert.deepEqual(plain(await store.getMembership(hash)), expected);
      const writes = proxy.counts.clientWrites;
      // Control: the proxy sees two writes for two commands awaited one after the other.
      proxy.counts.clientWrites = 0;
      for (let i = 0; i < N; i++) {
        await ping();
        await ping();
      }
      assert.equal(proxy.counts.clientWrites, 2 * N, 'control: sequential commands are separate writes');
      return writes;
    } finally {
      await closeClient(client);
      await proxy.close();
    }
  }

  test('nodeRedisHost: one client write per membership query (TCP proxy)', async () => {
    const writes = await clientWritesFor((u) => nodeRedis(u), nodeRedisHost, closeNodeRedis);
    assert.equal(writes, N, `${writes} writes for ${N} queries`);
  });

  test('bare function over node-redis (no pipeline): the two commands leave in one write', async () => {
    const writes = await clientWritesFor((u) => nodeRedis(u), (c) => (args) => c.sendCommand(args), closeNodeRedis);
    assert.equal(writes, N, `${writes} writes for ${N} queries`);
  });

  test('ioredisHost: one client write per membership query (TCP proxy)', async () => {
    const writes = await clientWritesFor((u) => ioredis(u), ioredisHost, closeIoredis);
    assert.equal(writes, N, `${writes} writes for ${N} queries`);
  });

  test('INFO commandstats on a private server: 2 SMEMBERS per query, no MULTI/EXEC; 1 GET per metadata', async () => {
    const server = await startRedisServer();
    const client = await nodeRedis(server.url);
    const admin = await nodeRedis(server.url);
    try {
      const prefix = 'stats';
      const hash = hashContextKey('stats-user');
      await writeMembership(client, prefix, hash, { include: ['a.g1'], exclude: ['b.g1'] });
      await client.sendCommand(['SET', keys(prefix).syncedOn, '1']);
      const stats = async () => {
        const info = await admin.sendCommand(['INFO', 'commandstats']);
        const calls = {};
        for (const m of String(info).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[m[1]] = Number(m[2]);
        return calls;
      };
      const store = redisBigSegmentStore(nodeRedisHost(client), { prefix });
      await admin.sendCommand(['CONFIG', 'RESETSTAT']);
      for (let i = 0; i < N; i++) assert.deepEqual(plain(await store.getMembership(hash)), { 'a.g1': true, 'b.g1': false });
      let s = await stats();
      assert.equal(s.smembers, 2 * N, JSON.stringify(s));
      assert.equal(s.multi ?? 0, 0, 'no MULTI (a pipeline, not a transaction)');
      assert.equal(s.exec ?? 0, 0, 'no EXEC');
      assert.equal(s.get ?? 0, 0, 'membership queries do not read metadata');

      await admin.sendCommand(['CONFIG', 'RESETSTAT']);
      for (let i = 0; i < N; i++) assert.equal((await store.getMetadata()).lastUpToDate, 1);
      s = await stats();
      assert.equal(s.get, N, JSON.stringify(s));
      assert.equal(s.smembers ?? 0, 0);
    } finally {
      await closeNodeRedis(client);
      await closeNodeRedis(admin);
      await server.stop();
    }
  });
});
