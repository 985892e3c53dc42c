// Faults with a real redis-server (SPEC.md B3–B4, API.md §2–§3 "Timeouts"): a private redis-server
// child that the test kills, restarts on the same port, and freezes (SIGSTOP) — under a started
// BigSegmentStoreManager (statusPollIntervalMs 50, queryTimeoutMs 300) with a status listener.
// Clients reconnect quickly and do not queue commands while offline, so commands fail fast.
// Then: replies of the wrong type (keys of the wrong Redis type, and hosts that answer the wrong
// JavaScript types) are STORE_ERROR with a log line naming what was wrong. Last: a process with a
// started manager over real Redis exits by itself after close() + quit.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { redisBigSegmentStore, nodeRedisHost, ioredisHost, BigSegmentStoreManager, hashContextKey } from 'cutover';
import {
  nodeRedis,
  ioredis,
  closeNodeRedis,
  closeIoredis,
  startRedisServer,
  writeMembership,
  keys,
  plain,
  waitFor,
  makeLogger,
  redisUrl,
  uniquePrefix,
  deleteKeys,
  unhandledRejections,
} from './helpers/redis-env.mjs';

const QUERY_TIMEOUT = 300;
const POLL = 50;
const PREFIX = 'faults';
const unhandled = unhandledRejections();

before(() => unhandled.start());
after(() => {
  assert.deepEqual(unhandled.stop(), [], 'no unhandled rejections');
});

const CLIENTS = {
  'node-redis': {
    connect: (url) =>
      nodeRedis(url, { disableOfflineQueue: true, socket: { reconnectStrategy: () => 50, connectTimeout: 500 } }),
    host: nodeRedisHost,
    ready: (c) => c.isReady,
    close: closeNodeRedis,
  },
  ioredis: {
    connect: (url) =>
      ioredis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50, connectTimeout: 500 }),
    host: ioredisHost,
    ready: (c) => c.status === 'ready',
    close: closeIoredis,
  },
  'bare function over ioredis': {
    connect: (url) =>
      ioredis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50, connectTimeout: 500 }),
    host: (c) => ([name, ...args]) => c.call(name, ...args),
    ready: (c) => c.status === 'ready',
    close: closeIoredis,
  },
  'bare function over node-redis': {
    connect: (url) =>
      nodeRedis(url, { disableOfflineQueue: true, socket: { reconnectStrategy: () => 50, connectTimeout: 500 } }),
    host: (c) => (args) => c.sendCommand(args),
    ready: (c) => c.isReady,
    close: closeNodeRedis,
  },
};

/** Seeds the (empty, freshly started) server through `client`: synced now, members for alice-*. */
async function seed(send) {
  await send(['SET', keys(PREFIX).syncedOn, String(Date.now())]);
}

let userCounter = 0;
function member() {
  const key = `fault-user-${++userCounter}`;
  return { key, hash: hashContextKey(key) };
}

async function withFixture(kind, fn) {
  const spec = CLIENTS[kind];
  const server = await startRedisServer();
  let client;
  let manager;
  try {
    client = await spec.connect(server.url);
    const send = (args) => (typeof client.call === 'function' ? client.call(...args) : client.sendCommand(args));
    await seed(send);
    const { logger, texts } = makeLogger();
    manager = new BigSegmentStoreManager({
      store: redisBigSegmentStore(spec.host(client), { prefix: PREFIX }),
      statusPollIntervalMs: POLL,
      queryTimeoutMs: QUERY_TIMEOUT,
      logger,
    });
    const statuses = [];
    manager.statusProvider.addListener((s) => statuses.push({ ...s, at: Date.now() }));
    manager.start();
    await fn({ server, client, send, manager, statuses, spec, texts });
  } finally {
    await manager?.close();
    if (client) await spec.close(client);
    await server.stop();
  }
}

/** A fresh (uncached) lookup for a member whose data is written through `send`. */
async function lookupMember(manager, send, { write = true } = {}) {
  const u = member();
  if (write) await writeMembership({ sendCommand: send }, PREFIX, u.hash, { include: ['vip.g1'], exclude: ['ban.g1'] });
  const t0 = Date.now();
  const r = await manager.getUserMembership(u.key);
  return { ...r, ms: Date.now() - t0 };
}

for (const kind of Object.keys(CLIENTS)) {
  describe(kind, () => {
    test('redis killed → unavailable and STORE_ERROR fast; restarted → available and HEALTHY again', { timeout: 15000 }, async () => {
      await withFixture(kind, async ({ server, client, send, manager, statuses, spec, texts }) => {
        assert.deepEqual(await manager.statusProvider.getStatus(), { available: true, stale: false });
        const healthy = await lookupMember(manager, send);
        assert.equal(healthy.status, 'HEALTHY');
        assert.deepEqual(plain(healthy.membership), { 'vip.g1': true, 'ban.g1': false });

        // Kill it.
        const killedAt = Date.now();
        await server.kill('SIGKILL');
        const down = await waitFor(() => statuses.find((s) => s.at >= killedAt && s.available === false), {
          timeoutMs: 3000,
          what: 'a status listener call with available: false',
        });
        assert.deepEqual({ available: down.available, stale: down.stale }, { available: false, stale: false });
        assert.ok(down.at - killedAt < 2500, `listener told after ${down.at - killedAt} ms`);
        assert.deepEqual(manager.statusProvider.lastStatus, { available: false, stale: false });

        const during = await lookupMember(manager, send, { write: false });
        assert.deepEqual({ membership: during.membership, status: during.status }, { membership: null, status: 'STORE_ERROR' });
        assert.ok(during.ms < QUERY_TIMEOUT + 1200, `uncached lookup took ${during.ms} ms`);
        assert.ok(texts('error').some((t) => t.startsWith('Big Segment store status query returned error:')));
        assert.ok(texts('error').some((t) => t.startsWith('Big Segment store membership query returned error:')));

        // Restart on the same port (empty: no persistence), let the client reconnect, re-seed.
        const restartedAt = Date.now();
        await server.start();
        await waitFor(() => spec.ready(client), { timeoutMs: 5000, what: 'the client to reconnect' });
        await seed(send);
        const up = await waitFor(
          () => statuses.find((s) => s.at >= restartedAt && s.available === true && s.stale === false),
          { timeoutMs: 3000, what: 'a status listener call with available: true' },
        );
        assert.ok(up);
        const after = await lookupMember(manager, send);
        assert.equal(after.status, 'HEALTHY');
        assert.deepEqual(plain(after.membership), { 'vip.g1': true, 'ban.g1': false });

        // Listeners were told only about changes.
        for (let i = 1; i < statuses.length; i++) {
          const [a, b] = [statuses[i - 1], statuses[i]];
          assert.ok(a.available !== b.available || a.stale !== b.stale, `no repeated status: ${JSON.stringify(statuses)}`);
        }
      });
    });

    test('redis frozen (SIGSTOP) → queryTimeoutMs bounds every call; thawed → HEALTHY', { timeout: 15000 }, async () => {
      await withFixture(kind, async ({ server, send, manager, statuses }) => {
        await manager.statusProvider.getStatus();
        const u = member();
        await writeMembership({ sendCommand: send }, PREFIX, u.hash, { include: ['late.g1'] });
        const frozenAt = Date.now();
        server.signal('SIGSTOP');
        // Safety net: a store call that ignored queryTimeoutMs would otherwise wait forever.
        const thaw = setTimeout(() => server.signal('SIGCONT'), 3000);
        try {
          const t0 = Date.now();
          const r = await manager.getUserMembership(u.key);
          const ms = Date.now() - t0;
          assert.deepEqual(r, { membership: null, status: 'STORE_ERROR' }, 'a timed-out membership query (B3.3)');
          assert.ok(ms >= QUERY_TIMEOUT - 50, `gave up after ${ms} ms (timeout ${QUERY_TIMEOUT})`);
          assert.ok(ms < QUERY_TIMEOUT + 1200, `gave up after ${ms} ms (timeout ${QUERY_TIMEOUT})`);
          const down = await waitFor(() => statuses.find((s) => s.at >= frozenAt && s.available === false), {
            timeoutMs: 3000,
            what: 'available: false while frozen',
          });
          assert.ok(down);
          const again = await manager.getUserMembership(u.key);
          assert.deepEqual(again, { membership: null, status: 'STORE_ERROR' }, 'the timeout was not cached');
        } finally {
          clearTimeout(thaw);
          server.signal('SIGCONT');
        }
        const thawedAt = Date.now();
        await waitFor(() => statuses.find((s) => s.at >= thawedAt && s.available === true), {
          timeoutMs: 3000,
          what: 'available: true after SIGCONT',
        });
        const r = await manager.getUserMembership(u.key);
        assert.equal(r.status, 'HEALTHY');
        assert.deepEqual(plain(r.membership), { 'late.g1': true });
      });
    });
  });
}

describe('replies of the wrong type are STORE_ERROR, with a log line naming what was wrong', () => {
  let server;
  let io;
  let nr;
  before(async () => {
    server = await startRedisServer();
    io = await ioredis(server.url);
    nr = await nodeRedis(server.url);
  });
  after(async () => {
    if (io) await closeIoredis(io);
    if (nr) await closeNodeRedis(nr);
    await server?.stop();
  });

  /** One lookup through a manager over `store`: its answer, status, and the error lines. */
  async function lookup(store, contextKey) {
    const { logger, texts } = makeLogger();
    const manager = new BigSegmentStoreManager({ store, logger, queryTimeoutMs: QUERY_TIMEOUT });
    try {
      const answer = await manager.getUserMembership(contextKey);
      return { answer: { ...answer }, status: { ...(await manager.statusProvider.getStatus()) }, errors: texts('error') };
    } finally {
      await manager.close();
    }
  }

  test('keys of the wrong Redis type (WRONGTYPE), through node-redis and ioredis', async () => {
    const prefix = uniquePrefix('wrongtype');
    const u = member();
    await io.call('SET', keys(prefix).include(u.hash), 'not a set');
    await io.call('SADD', keys(prefix).syncedOn, String(Date.now()));
    for (const host of [nodeRedisHost(nr), ioredisHost(io)]) {
      const { answer, status, errors } = await lookup(redisBigSegmentStore(host, { prefix }), u.key);
      assert.deepEqual(answer, { membership: null, status: 'STORE_ERROR' });
      assert.deepEqual(status, { available: false, stale: false });
      assert.ok(errors.some((e) => e.startsWith('Big Segment store membership query returned error:') && /WRONGTYPE/.test(e)), errors.join('\n'));
      assert.ok(errors.some((e) => e.startsWith('Big Segment store status query returned error:') && /WRONGTYPE/.test(e)), errors.join('\n'));
      assert.ok(!errors.some((e) => e.includes(u.hash)), "no context hash in the log");
    }
  });

  test('ioredis callBuffer: Buffer replies are not strings', async () => {
    const prefix = uniquePrefix('buffers');
    const u = member();
    await io.call('SADD', keys(prefix).include(u.hash), 'vip.g1');
    await io.call('SET', keys(prefix).syncedOn, String(Date.now()));
    const host = ([name, ...args]) => io.callBuffer(name, ...args);
    const { answer, errors } = await lookup(redisBigSegmentStore(host, { prefix }), u.key);
    assert.deepEqual(answer, { membership: null, status: 'STORE_ERROR' });
    assert.ok(errors.some((e) => /SMEMBERS of the include set returned a member that is not a string: a Uint8Array$/.test(e)), errors.join('\n'));
    assert.ok(errors.some((e) => /big_segments_synchronized_on is not a string: a Uint8Array$/.test(e)), errors.join('\n'));
  });

  // What a host answers for SMEMBERS of the include set, over real replies for everything else.
  const SET_REPLIES = [
    ['a Set', (members) => new Set(members), /include set did not return an array: a Set$/],
    ['a Map', (members) => new Map(members.map((m) => [m, true])), /include set did not return an array: a Map$/],
    ['an object', (members) => Object.fromEntries(members.map((m) => [m, true])), /include set did not return an array: an object$/],
    ['the member count', (members) => members.length, /include set did not return an array: a number 1$/],
    ['a boolean', () => true, /include set did not return an array: a boolean true$/],
    ['a string', (members) => members.join(','), /include set did not return an array: a string "vip.g1"$/],
    ['numbers', () => [1], /include set returned a member that is not a string: a number 1$/],
    ['nested arrays', (members) => [members], /include set returned a member that is not a string: a list of 1$/],
    ['nulls', () => [null], /include set returned a member that is not a string: null$/],
  ];
  // What a host answers for GET of big_segments_synchronized_on.
  const GET_REPLIES = [
    ['an array', (text) => [text], /big_segments_synchronized_on is not a string: a list of 1$/],
    ['a float', () => 12.5, /big_segments_synchronized_on is not an integer: a number 12.5$/],
    ['a boolean', () => false, /big_segments_synchronized_on is not a string: a boolean false$/],
    ['an object', (text) => ({ text }), /big_segments_synchronized_on is not a string: an object$/],
  ];

  /** A node-redis host whose replies `edit(args, reply)` changes; with or without a pipeline. */
  function editingHost(edit, withPipeline) {
    const command = async (args) => edit(args, await nr.sendCommand(args));
    if (!withPipeline) return { command };
    return { command, pipeline: (commands) => Promise.all(commands.map(command)) };
  }

  for (const withPipeline of [false, true]) {
    const how = withPipeline ? 'pipeline' : 'two commands';
    for (const [label, reply, pattern] of SET_REPLIES) {
      test(`SMEMBERS answered as ${label} (${how})`, async () => {
        const prefix = uniquePrefix('setreply');
        const u = member();
        await nr.sendCommand(['SADD', keys(prefix).include(u.hash), 'vip.g1']);
        await nr.sendCommand(['SET', keys(prefix).syncedOn, String(Date.now())]);
        const edit = (args, real) => (args[1] === keys(prefix).include(u.hash) ? reply(real) : real);
        const store = redisBigSegmentStore(editingHost(edit, withPipeline), { prefix });
        await assert.rejects(store.getMembership(u.hash), (e) => e instanceof Error && pattern.test(e.message));
        const { answer, status, errors } = await lookup(store, u.key);
        assert.deepEqual(answer, { membership: null, status: 'STORE_ERROR' });
        assert.deepEqual(status, { available: true, stale: false }, 'the metadata was fine');
        assert.ok(errors.some((e) => e.startsWith('Big Segment store membership query returned error:') && pattern.test(e)), errors.join('\n'));
        assert.ok(!errors.some((e) => e.includes(u.hash)), "no context hash in the log");
      });
    }
    for (const [label, reply, pattern] of GET_REPLIES) {
      test(`GET of the metadata answered as ${label} (${how})`, async () => {
        const prefix = uniquePrefix('getreply');
        const u = member();
        await nr.sendCommand(['SADD', keys(prefix).include(u.hash), 'vip.g1']);
        await nr.sendCommand(['SET', keys(prefix).syncedOn, String(Date.now())]);
        const edit = (args, real) => (args[0] === 'GET' ? reply(real) : real);
        const store = redisBigSegmentStore(editingHost(edit, withPipeline), { prefix });
        await assert.rejects(store.getMetadata(), pattern);
        const { answer, status, errors } = await lookup(store, u.key);
        assert.deepEqual({ ...answer, membership: plain(answer.membership) }, { membership: { 'vip.g1': true }, status: 'STORE_ERROR' });
        assert.deepEqual(status, { available: false, stale: false });
        assert.ok(errors.some((e) => e.startsWith('Big Segment store status query returned error:') && pattern.test(e)), errors.join('\n'));
      });
    }
  }

  test('a pipeline that answers the wrong shape', async () => {
    for (const [answer, pattern] of [
      ['OK', /the pipeline did not return an array: a string "OK"$/],
      [{}, /the pipeline did not return an array: an object$/],
      [[['vip.g1']], /the pipeline returned fewer than two replies$/],
    ]) {
      const store = redisBigSegmentStore({ command: (args) => nr.sendCommand(args), pipeline: async () => answer });
      const { answer: got, errors } = await lookup(store, member().key);
      assert.deepEqual(got, { membership: null, status: 'STORE_ERROR' });
      assert.ok(errors.some((e) => pattern.test(e)), errors.join('\n'));
    }
  });
});

describe('process exit', () => {
  const CHILD = fileURLToPath(new URL('./helpers/redis-exit-child.mjs', import.meta.url));
  let url;
  let prefix;
  before(async () => {
    url = await redisUrl();
    prefix = uniquePrefix('exit');
  });
  after(async () => {
    const c = await nodeRedis(url);
    await deleteKeys(c, `${prefix}:*`);
    await closeNodeRedis(c);
  });

  function runChild(args) {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--unhandled-rejections=strict', CHILD, ...args], {
        env: { ...process.env, REDIS_URL: url, QA_PREFIX: prefix },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stdout, stderr });
      });
    });
  }

  for (const [clientKind, mode] of [
    ['node-redis', 'close'],
    ['ioredis', 'close'],
    ['node-redis', 'no-close'],
  ]) {
    const what =
      mode === 'close'
        ? 'manager.close() and client quit'
        : 'client quit, manager left started (only an unref\'d poller remains, B4)';
    test(`${clientKind}: a process with a started manager exits by itself after ${what}`, async () => {
      const r = await runChild([clientKind, mode]);
      assert.equal(r.signal, null, `the process had to be killed (did not exit within 8 s)\n${r.stdout}\n${r.stderr}`);
      assert.equal(r.code, 0, `exit code ${r.code}\n${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /lookup HEALTHY \{"qa\.g1":true\}/);
      assert.match(r.stdout, /done/);
    });
  }
});
