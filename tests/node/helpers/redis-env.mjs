// Shared helpers for the Redis suites (tests/node/redis-*.test.mjs): private redis-server children,
// node-redis / ioredis clients (one pair per database), unique key prefixes, key cleanup, unhandled
// rejection collection, a recording logger.
//
// The suites run against the redis-server at process.env.REDIS_URL (`npm test` starts a private one).
// When REDIS_URL is unset, `redisUrl()` starts a private redis-server child for this process instead,
// so a single file can also be run by hand with nothing else set up.
import net from 'node:net';
import os from 'node:os';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { Redis as IORedis } from 'ioredis';
import { sleep } from './common.mjs';

export { makeLogger, sleep } from './common.mjs';
export const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve));

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves true when a server on `port` answers PING with +PONG. */
function pingOnce(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let data = '';
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      data += chunk;
      if (data.includes('\r\n')) done(data.startsWith('+PONG'));
    });
  });
}

/**
 * A redis-server child process (not daemonized) on `port` (a free one when omitted), without
 * persistence. `kill()` ends it abruptly; `start()` starts it again on the same port; `stop()` ends it.
 */
export async function startRedisServer({ port, unref = false } = {}) {
  port ??= await freePort();
  const server = {
    port,
    url: `redis://127.0.0.1:${port}`,
    child: null,
    async start() {
      const child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', os.tmpdir()],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      child.exited = exited;
      server.child = child;
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        if (child.exitCode !== null || child.signalCode !== null) break;
        if (await pingOnce(port)) {
          if (unref) {
            // A server that must not keep this process alive (it is killed on 'exit').
            child.unref();
            child.stderr.unref();
          }
          return server;
        }
        await sleep(20);
      }
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port}: ${stderr}`);
    },
    /** Sends `signal` (default SIGKILL) and waits for the process to exit (unless stopping it). */
    async kill(signal = 'SIGKILL') {
      const child = server.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      if (signal === 'SIGKILL' || signal === 'SIGTERM') {
        await child.exited;
        server.child = null;
      }
    },
    signal(signal) {
      server.child?.kill(signal);
    },
    async stop() {
      const child = server.child;
      if (!child) return;
      child.kill('SIGCONT'); // a stopped process would not act on SIGTERM
      await server.kill('SIGKILL');
    },
  };
  await server.start();
  return server;
}

let fallbackServer = null;
/** The shared Redis URL: REDIS_URL, or a private redis-server started for this process. */
export async function redisUrl() {
  if (process.env.REDIS_URL) return process.env.REDIS_URL;
  if (!fallbackServer) {
    fallbackServer = await startRedisServer({ unref: true });
    process.once('exit', () => fallbackServer?.child?.kill('SIGKILL'));
  }
  return fallbackServer.url;
}

/** Connects `client`, collecting its errors in `client.errors` (a client without listeners would throw). */
async function connectCollectingErrors(client) {
  client.errors = [];
  client.on('error', (e) => client.errors.push(e));
  await client.connect();
  return client;
}

/** A connected node-redis client; errors are collected. */
export async function nodeRedis(url, options = {}) {
  return connectCollectingErrors(createClient({ url, ...options }));
}

export async function closeNodeRedis(client) {
  if (!client) return;
  try {
    if (client.isOpen) await client.close();
  } catch {
    client.destroy?.();
  }
}

/** A connected ioredis client (ready), errors collected. */
export async function ioredis(url, options = {}) {
  return connectCollectingErrors(new IORedis(url, { lazyConnect: true, ...options }));
}

export async function closeIoredis(client) {
  if (!client) return;
  try {
    if (client.status === 'ready') await client.quit();
    else client.disconnect();
  } catch {
    client.disconnect();
  }
}

/** Opens a node-redis and an ioredis client per database `db` into `clients` (`node:<db>`, `io:<db>`). */
export async function openClients(clients, url, dbs) {
  for (const db of dbs) {
    clients[`node:${db}`] = await nodeRedis(url, { database: db });
    clients[`io:${db}`] = await ioredis(url, { db });
  }
  return clients;
}

/** Closes every client that `openClients` opened into `clients`. */
export async function closeClients(clients) {
  for (const [key, client] of Object.entries(clients)) {
    if (key.startsWith('node:')) await closeNodeRedis(client);
    else await closeIoredis(client);
  }
}

/** Collects this process's unhandled rejections from `start()` until `stop()`, which returns them. */
export function unhandledRejections() {
  const seen = [];
  const onUnhandled = (e) => seen.push(e);
  return {
    start() {
      process.on('unhandledRejection', onUnhandled);
    },
    stop() {
      process.off('unhandledRejection', onUnhandled);
      return seen;
    },
  };
}

let prefixCounter = 0;
/** A key prefix no other test (or run) uses. */
export function uniquePrefix(tag) {
  return `cutover-qa-${tag}-${process.pid}-${++prefixCounter}-${randomBytes(3).toString('hex')}`;
}

/** Deletes every key matching `pattern` (node-redis client). Returns how many. */
export async function deleteKeys(client, pattern) {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await client.sendCommand(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000']);
    cursor = String(next);
    if (keys.length) deleted += Number(await client.sendCommand(['DEL', ...keys]));
  } while (cursor !== '0');
  return deleted;
}

/** The key prefixes a file uses (`push` one, or `next(tag)` for a new unique one), to delete in its `after`. */
export function trackedPrefixes() {
  const prefixes = [];
  return {
    push(p) {
      prefixes.push(p);
    },
    next(tag) {
      const p = uniquePrefix(tag);
      prefixes.push(p);
      return p;
    },
    /** Deletes every key under every prefix (node-redis client). */
    async deleteAll(client) {
      for (const p of prefixes) await deleteKeys(client, `${p}:*`);
    },
  };
}

/** Keys of the Relay Proxy schema (SPEC.md B6) under prefix `p`. */
export const keys = (p) => ({
  syncedOn: `${p}:big_segments_synchronized_on`,
  include: (hash) => `${p}:big_segment_include:${hash}`,
  exclude: (hash) => `${p}:big_segment_exclude:${hash}`,
});

/** Writes include/exclude sets for `hash` under prefix `p` with a node-redis client. */
export async function writeMembership(client, p, hash, { include = [], exclude = [] } = {}) {
  const k = keys(p);
  if (include.length) await client.sendCommand(['SADD', k.include(hash), ...include]);
  if (exclude.length) await client.sendCommand(['SADD', k.exclude(hash), ...exclude]);
}

/** A membership as a plain object (null/undefined → null), for deepEqual. */
export function plain(membership) {
  return membership == null ? null : { ...membership };
}

/** Waits until `predicate()` is truthy, polling every `every` ms; throws after `timeoutMs`. */
export async function waitFor(predicate, { timeoutMs = 3000, every = 10, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await predicate();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(every);
  }
}

/** Deterministic PRNG (mulberry32). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
