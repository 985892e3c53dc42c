// A private Redis Cluster for a test file (scripts/redis-cluster.sh: three masters on loopback),
// its clients (ioredis `Cluster`, node-redis `createCluster()`), and what the tests ask of it:
// which node owns a key (CRC16, checked against CLUSTER KEYSLOT), per-node command counts from
// INFO commandstats, and killing a master.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createClient, createCluster } from 'redis';
import { Cluster } from 'ioredis';
import { sleep } from './common.mjs';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../../scripts/redis-cluster.sh', import.meta.url));

/** Why the cluster suites cannot run here, or null: redis-server and redis-cli must be installed. */
export async function clusterUnavailable() {
  for (const tool of ['redis-server', 'redis-cli']) {
    try {
      await run('sh', ['-c', `command -v ${tool}`]);
    } catch {
      return `${tool} is not installed (bash scripts/setup.sh --system installs it)`;
    }
  }
  return null;
}

// CRC16-CCITT (XMODEM), Redis Cluster's key hash.
const CRC_TABLE = Array.from({ length: 256 }, (_, i) => {
  let c = i << 8;
  for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
  return c;
});

/** The hash slot of `key` (with Redis's `{hash tag}` rule). */
export function keySlot(key) {
  let bytes = Buffer.from(key);
  const open = bytes.indexOf('{');
  if (open >= 0) {
    const close = bytes.indexOf('}', open + 1);
    if (close > open + 1) bytes = bytes.subarray(open + 1, close);
  }
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ b) & 0xff];
  return crc & 16383;
}

/** Starts a cluster in a temp dir; `stop()` ends it (its nodes, admin clients and dir). */
export async function startCluster() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cutover-cluster-'));
  const { stdout } = await run('bash', [SCRIPT, 'start', dir]);
  const urls = stdout.trim().split('\n');
  const ports = urls.map((u) => Number(new URL(u).port));
  const admins = new Map(); // port → a single-node node-redis client
  for (const port of ports) {
    const c = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
    c.on('error', () => {});
    await c.connect();
    admins.set(port, c);
  }
  const ranges = []; // [start, end, port]
  for (const [start, end, [, port]] of await admins.get(ports[0]).sendCommand(['CLUSTER', 'SLOTS'])) {
    ranges.push([Number(start), Number(end), Number(port)]);
  }
  const killed = new Set();
  const cluster = {
    dir,
    urls,
    ports,
    seeds: ports.map((port) => ({ host: '127.0.0.1', port })),
    /** The port of the master that owns `key`'s slot. */
    owner(key) {
      const slot = keySlot(key);
      return ranges.find(([s, e]) => slot >= s && slot <= e)[2];
    },
    /** CLUSTER KEYSLOT, as the server computes it. */
    async serverSlot(key) {
      return Number(await admins.get(ports[0]).sendCommand(['CLUSTER', 'KEYSLOT', key]));
    },
    async resetStats() {
      for (const [port, c] of admins) if (!killed.has(port)) await c.sendCommand(['CONFIG', 'RESETSTAT']);
    },
    /** Per port: { calls: { smembers: n, … }, errors: { CROSSSLOT: n, … } } from INFO. */
    async stats() {
      const out = {};
      for (const [port, c] of admins) {
        if (killed.has(port)) continue;
        const calls = {};
        for (const m of (await c.sendCommand(['INFO', 'commandstats'])).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
          calls[m[1]] = Number(m[2]);
        }
        const errors = {};
        for (const m of (await c.sendCommand(['INFO', 'errorstats'])).matchAll(/^errorstat_([^:]+):count=(\d+)/gm)) {
          errors[m[1]] = Number(m[2]);
        }
        out[port] = { calls, errors };
      }
      return out;
    },
    /** SIGKILLs the master on `port` and waits until it no longer answers. */
    async kill(port) {
      killed.add(port);
      const admin = admins.get(port);
      admins.delete(port);
      admin.destroy();
      const pid = Number(fs.readFileSync(path.join(dir, `redis-${port}.pid`), 'utf8'));
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          return;
        }
        await sleep(20);
      }
    },
    async stop() {
      for (const c of admins.values()) c.destroy();
      admins.clear();
      await run('bash', [SCRIPT, 'stop', dir]);
    },
  };
  return cluster;
}

/** A connected ioredis Cluster over `cluster`'s seeds; errors are collected in `client.errors`. */
export async function ioredisCluster(cluster, options = {}) {
  const client = new Cluster(cluster.seeds, { lazyConnect: true, ...options });
  client.errors = [];
  client.on('error', (e) => client.errors.push(e));
  client.on('node error', (e) => client.errors.push(e));
  await client.connect();
  return client;
}

/** A connected node-redis cluster over `cluster`'s seeds; errors are collected in `client.errors`. */
export async function nodeRedisCluster(cluster, options = {}) {
  const client = createCluster({ rootNodes: cluster.urls.map((url) => ({ url })), ...options });
  client.errors = [];
  client.on('error', (e) => client.errors.push(e));
  await client.connect();
  return client;
}

export const CLUSTER_CLIENTS = {
  'ioredis Cluster': {
    connect: ioredisCluster,
    close: (c) => c.disconnect(),
    /** The client's own method the host calls, to wrap (hosts look it up on every call). */
    method: 'call',
  },
  'node-redis createCluster': {
    connect: nodeRedisCluster,
    close: async (c) => c.destroy(),
    method: 'sendCommand',
  },
};

/** `send(args)` on any cluster client: each command routed by its key (args[1]). */
export function clusterSend(client) {
  return client.isCluster === true
    ? ([name, ...args]) => client.call(name, ...args)
    : (args) => client.sendCommand(args[1], false, args);
}
