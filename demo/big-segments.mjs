// Big Segments: roll the "new checkout flow" out to the 'beta-testers' segment (~100k contexts)
// held in an external store, and watch cutover's cache, single-flight loading and status polling.

import { BigSegmentStoreManager, hashContextKey, bigSegmentRef } from 'cutover';
import { runWorkload } from './workload.mjs';
import { createProgress } from './progress.mjs';
import { createTable } from './table.mjs';

const FLAG = 'new-checkout-flow';
const SEGMENT = 'beta-testers';
const GENERATION = 3;
const REF = bigSegmentRef(SEGMENT, GENERATION);

const USERS = 200_000;
const INCLUDED_SHARE = 0.475; // of all users, in the segment
const EXCLUDED_SHARE = 0.025; // of all users, explicitly excluded (membership false)
const HOT_USERS = 5_000; // the first HOT_USERS users get HOT_SHARE of the traffic
const HOT_SHARE = 0.8;
const BATCH = 10_000;
const CONCURRENCY = 32;

const OPTIONS = {
  contextCacheSize: 10_000,
  contextCacheTimeMs: 5_000,
  statusPollIntervalMs: 100,
  staleAfterMs: 500, // small, so that a halted synchronizer shows up within the demo
};

const userKey = (i) => `user-${i}`;
const fmtInt = (n) => n.toLocaleString('en-US');
const fmtPct = (x) => `${(100 * x).toFixed(1)}%`;
const fmtSecs = (ms) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);
const statusName = (s) => (!s ? 'unknown' : !s.available ? 'STORE_ERROR' : s.stale ? 'STALE' : 'HEALTHY');

/** A seeded PRNG (mulberry32), so that every run draws the same segment and traffic. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Waits 0.2–1 ms. Timers cannot wait less than 1 ms, so each call waits either one timer
 * (1 ms) or one event-loop turn, with odds that average out to the drawn latency.
 */
function storeLatency() {
  const ms = 0.2 + Math.random() * 0.8;
  return new Promise((resolve) => (Math.random() < ms ? setTimeout(resolve, 1) : setImmediate(resolve)));
}

/**
 * A Big Segments store over a Map, as LaunchDarkly's Relay Proxy would fill Redis or DynamoDB:
 * contextHash → { 'beta-testers.g3': true | false }. A synchronizer normally keeps it current;
 * `haltSync()` freezes `lastUpToDate`, as when Relay loses its connection.
 */
class MemoryBigSegmentStore {
  members = new Map();
  calls = { membership: 0, metadata: 0 };
  #syncedAt = null; // null: the synchronizer is running, the data is current as of now

  haltSync() { this.#syncedAt = Date.now(); }
  resumeSync() { this.#syncedAt = null; }

  async getMetadata() {
    this.calls.metadata++;
    await storeLatency();
    return { lastUpToDate: this.#syncedAt ?? Date.now() };
  }

  async getMembership(contextHash) {
    this.calls.membership++;
    await storeLatency();
    return this.members.get(contextHash);
  }

  close() {}
}

async function createStore() {
  if (!process.env.REDIS_URL) return { store: new MemoryBigSegmentStore(), where: 'in-memory Map, 0.2–1 ms per call' };
  const { RedisDemoStore } = await import('./redis-store.mjs');
  return { store: await RedisDemoStore.connect(process.env.REDIS_URL), where: `Redis at ${process.env.REDIS_URL}` };
}

/** Resolves with the next status the listener reports, or undefined after `timeoutMs`. */
function nextStatus(provider, timeoutMs = 3_000) {
  return new Promise((resolve) => {
    const done = (status) => {
      clearTimeout(timer);
      provider.removeListener(done);
      resolve(status);
    };
    const timer = setTimeout(done, timeoutMs, undefined);
    provider.addListener(done);
  });
}

/** Loads the segment, then serves 50k flag evaluations in batches, with a stale store in between. */
export async function runBigSegmentsSection({ out, style, meter }) {
  const { store, where } = await createStore();
  out.write(
    `${style.bold('Big Segments')}  ${style.dim(`flag "${FLAG}" on for segment "${SEGMENT}" (${REF})`)}\n` +
      style.dim(`  store: ${where}; status polled every ` +
        `${OPTIONS.statusPollIntervalMs} ms, stale after ${OPTIONS.staleAfterMs} ms unsynced`) + '\n' +
      style.dim(`  cache: ${fmtInt(OPTIONS.contextCacheSize)} contexts (LRU), TTL ` +
        `${fmtSecs(OPTIONS.contextCacheTimeMs)}; concurrent misses for one context share a store call`) + '\n' +
      style.dim(`  traffic: ${fmtInt(USERS)} users, ${HOT_SHARE * 100}% of lookups from ` +
        `${fmtInt(HOT_USERS)} hot users, ${CONCURRENCY} concurrent requests`) + '\n',
  );
  const rand = random(2024);

  // Who is in the segment (ground truth, by user index), and the store's copy of it by hash.
  const truth = new Map();
  for (let i = 0; i < USERS; i++) {
    const r = rand();
    if (r < INCLUDED_SHARE) truth.set(i, true);
    else if (r < INCLUDED_SHARE + EXCLUDED_SHARE) truth.set(i, false);
  }
  const included = Object.freeze({ [REF]: true });
  const excluded = Object.freeze({ [REF]: false });
  const hashStarted = performance.now();
  for (const [i, inSegment] of truth) store.members.set(hashContextKey(userKey(i)), inSegment ? included : excluded);
  const hashMs = performance.now() - hashStarted;
  await store.load?.();
  const includedCount = [...truth.values()].filter(Boolean).length;
  out.write(
    `  loaded ${style.bold(fmtInt(store.members.size))} members ` +
      `(${fmtInt(includedCount)} included, ${fmtInt(store.members.size - includedCount)} excluded): ` +
      `hashed in ${fmtSecs(hashMs)} ` +
      style.dim(`(${fmtInt(Math.round(store.members.size / (hashMs / 1000)))} keys/s)`) + '\n\n',
  );

  const manager = new BigSegmentStoreManager({ store, meter, ...OPTIONS });
  const provider = manager.statusProvider;
  const statusChain = [];
  const recordTransition = (s) => {
    if (statusChain.at(-1) !== statusName(s)) statusChain.push(statusName(s));
  };
  provider.addListener(recordTransition);
  manager.start();
  recordTransition(await provider.getStatus());

  const table = createTable([
    { title: 'phase', width: 12, align: 'left' },
    { title: 'lookups', width: 7 },
    { title: 'lookups/s', width: 9 },
    { title: 'cache hits', width: 10 },
    { title: 'store calls', width: 11 },
    { title: 'coalesced', width: 9 },
    { title: 'status', width: 11, align: 'left' },
    { title: 'in rollout', width: 10 },
  ], style);
  const progress = createProgress({ style });
  const totals = { lookups: 0, inRollout: 0, wrong: 0, ms: 0 };

  /** One batch of flag evaluations from the skewed traffic; prints one table row. */
  async function serve(phase) {
    const before = manager.stats();
    const callsBefore = store.calls.membership;
    const statuses = new Map();
    let inRollout = 0;
    let wrong = 0;
    progress.start(phase, BATCH);
    const started = performance.now();
    await runWorkload({
      total: BATCH,
      concurrency: CONCURRENCY,
      onProgress: progress.update,
      operation: async () => {
        const i = rand() < HOT_SHARE ? Math.floor(rand() * HOT_USERS) : Math.floor(rand() * USERS);
        const { membership, status } = await manager.getUserMembership(userKey(i));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        const newCheckout = membership?.[REF] === true; // false or absent: not in the rollout
        if (newCheckout) inRollout++;
        if (newCheckout !== (truth.get(i) === true)) wrong++;
      },
    });
    const ms = performance.now() - started;
    progress.clear();

    const s = manager.stats();
    const lookups = s.lookups - before.lookups;
    const hits = s.cacheHits - before.cacheHits;
    const coalesced = s.coalescedLookups - before.coalescedLookups;
    const statusCell = [...statuses.keys()]
      .map((name) => (name === 'HEALTHY' ? style.green(name) : style.yellow(name)))
      .join('/');
    out.write(table.row([
      style.bold(phase),
      fmtInt(lookups),
      fmtInt(Math.round(lookups / (ms / 1000))),
      fmtPct(hits / lookups),
      fmtInt(store.calls.membership - callsBefore),
      fmtInt(coalesced),
      statusCell,
      fmtPct(inRollout / BATCH),
    ]) + '\n');
    Object.assign(totals, {
      lookups: totals.lookups + BATCH,
      inRollout: totals.inRollout + inRollout,
      wrong: totals.wrong + wrong,
      ms: totals.ms + ms,
    });
  }

  /** Changes the store, then prints how long the status listener took to report it. */
  async function transition(label, change) {
    const started = performance.now();
    const status = nextStatus(provider);
    change();
    const name = statusName(await status);
    const color = name === 'HEALTHY' ? style.green : style.yellow;
    out.write(style.dim(`  ↳ ${label}: listener reported `) + color(name) +
      style.dim(` after ${fmtSecs(performance.now() - started)}`) + '\n');
  }

  try {
    out.write(`${table.header()}\n${table.rule()}\n`);
    await serve('cold cache');
    await serve('warming');
    await serve('warm');
    await transition('synchronizer halted', () => store.haltSync());
    await serve('stale store');
    await transition('synchronizer resumed', () => store.resumeSync());
    await serve('recovered');
    out.write(`${table.rule()}\n`);
  } finally {
    provider.removeListener(recordTransition);
    await manager.close();
  }

  const s = manager.stats();
  const ok = style.green('✓');
  const lines = [
    `${fmtInt(totals.lookups)} lookups in ${fmtSecs(totals.ms)} ` +
      `(${fmtInt(Math.round(totals.lookups / (totals.ms / 1000)))}/s): ` +
      `${fmtPct(s.cacheHits / s.lookups)} cache hits, ${fmtInt(store.calls.membership)} store calls, ` +
      `${fmtInt(s.coalescedLookups)} coalesced`,
    `status: ${statusChain.join(' → ')} ` +
      style.dim(`(${fmtInt(s.statusPolls)} polls, ${s.statusErrors + s.membershipErrors} store errors)`),
    `${totals.wrong ? style.red('✗') : ok} ${fmtPct(totals.inRollout / totals.lookups)} of traffic got the ` +
      `new checkout flow; ${fmtInt(totals.lookups - totals.wrong)} of ${fmtInt(totals.lookups)} ` +
      `decisions matched the segment`,
  ];
  out.write(lines.map((l) => `  ${l}`).join('\n') + '\n');
}
