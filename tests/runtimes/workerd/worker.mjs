// Cloudflare Worker fixture, bundled by esbuild with the `workerd` condition (cutover.workerd.mjs
// imports cutover_bg.wasm as a CompiledWasm module and calls initSync at module scope).
// Nothing but imports runs at global scope: no timers, no start().
//   GET /smoke    → the shared smoke report (migrations + Big Segments with an in-worker JS store)
//   GET /upstash  → a Big Segment lookup through redisBigSegmentStore(upstashHost(@upstash/redis))
//                   against env.UPSTASH_URL (the test's local Upstash-REST server over Redis)
//   GET /shadow   → one background shadow read (./shadow.mjs) with { waitUntil: (p) => ctx.waitUntil(p) }:
//                   the response goes out while the new origin is still waiting on the test's server
import * as api from 'cutover';
import { Redis } from '@upstash/redis/cloudflare';
import { smoke } from '../common/smoke.mjs';
import { shadowRead } from './shadow.mjs';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const plain = (o) => (o == null ? o : { ...o });

async function upstash(env, url) {
  const { BigSegmentStoreManager, redisBigSegmentStore, upstashHost } = api;
  const redis = new Redis({ url: env.UPSTASH_URL, token: env.UPSTASH_TOKEN, retry: false });
  const store = redisBigSegmentStore(upstashHost(redis), { prefix: url.searchParams.get('prefix') });
  const errors = [];
  const logger = { ...silent, error: (...a) => errors.push(a.map(String).join(' ')), warn: (...a) => errors.push(a.map(String).join(' ')) };
  const manager = new BigSegmentStoreManager({ store, logger });
  try {
    const member = await manager.getUserMembership(url.searchParams.get('user'));
    const stranger = await manager.getUserMembership('stranger');
    return {
      member: { status: member.status, membership: plain(member.membership) },
      stranger: { status: stranger.status, membership: plain(stranger.membership) },
      strangerFromStore: await store.getMembership(api.hashContextKey('stranger')),
      metadata: plain(await store.getMetadata()),
      status: plain(await manager.statusProvider.getStatus()),
      errors,
    };
  } finally {
    await manager.close();
  }
}

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === '/smoke') {
      const report = await smoke(api);
      report.runtime = { name: 'workerd', userAgent: globalThis.navigator?.userAgent ?? null };
      return Response.json(report);
    }
    if (url.pathname === '/upstash') return Response.json(await upstash(env, url));
    if (url.pathname === '/shadow') return Response.json(await shadowRead(api, url, (p) => ctx.waitUntil(p)));
    return new Response('not found', { status: 404 });
  },
};
