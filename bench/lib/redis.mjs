// Redis helpers for the uncached-lookup scenario: seeding, command counts, round-trip counting.
import { createHash } from 'node:crypto';
import { countingProxy as countingProxyTo } from '../../tests/node/helpers/counting-proxy.mjs';

export const POOL = 2000;
export const userKey = (i) => `u-${i % POOL}`;
export const hash = (k) => createHash('sha256').update(k).digest('base64');

export function redisUrl() {
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('REDIS_URL is not set (the driver starts a redis-server)');
  return url;
}

/** An admin node-redis client (never timed). */
export async function adminClient() {
  const { createClient } = await import('redis');
  const c = createClient({ url: redisUrl() });
  c.on('error', () => {});
  await c.connect();
  return c;
}

/** Relay-Proxy schema: half of the pool included in bigseg.g1, a third excluded from other.g1. */
export async function seed(admin) {
  const m = admin.multi();
  m.addCommand(['SET', 'launchdarkly:big_segments_synchronized_on', String(Date.now())]);
  for (let i = 0; i < POOL; i++) {
    const h = hash(userKey(i));
    if (i % 2 === 0) m.addCommand(['SADD', `launchdarkly:big_segment_include:${h}`, 'bigseg.g1']);
    if (i % 3 === 0) m.addCommand(['SADD', `launchdarkly:big_segment_exclude:${h}`, 'other.g1']);
  }
  await m.execAsPipeline();
}

/** INFO commandstats → { get: calls, smembers: calls, ... } */
export async function commandStats(admin) {
  const text = await admin.sendCommand(['INFO', 'commandstats']);
  const out = {};
  for (const line of String(text).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

export function commandDelta(before, after, ops) {
  const d = {};
  for (const k of ['get', 'smembers', 'multi', 'exec']) {
    const n = (after[k] ?? 0) - (before[k] ?? 0);
    if (n) d[k] = Number((n / ops).toFixed(3));
  }
  return d;
}

/** A counting TCP proxy in front of the bench's Redis (shared with the round-trip tests). */
export function countingProxy() {
  return countingProxyTo(Number(new URL(redisUrl()).port));
}
