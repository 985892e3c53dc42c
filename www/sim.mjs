// The simulated world the demo service (www/serve.mjs) migrates: two key-value origins with adjustable latency,
// mismatch and error rates, and an in-page Big Segments store kept current by a "synchronizer".

/** Live knobs, changed by the controls and read by every simulated call. */
export const knobs = {
  oldLatencyMs: 40,
  newLatencyMs: 15,
  mismatchRate: 0.02, // share of new-origin reads that return a stale copy (/version)
  driftRate: 0.1, // share of new-origin reads stamped by a clock that runs ahead (/updatedAt)
  errorRate: 0.01, // share of new-origin calls that fail
};

/** One record in ROUNDED_EVERY has its prices rounded to whole units in the new store (/items/*\/price). */
export const ROUNDED_EVERY = 25;

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });

/** A latency draw around `mean`: ±40% jitter, and 2% slow calls at 2–3× (what p99 shows). */
function draw(mean) {
  const jitter = mean * (0.6 + 0.8 * Math.random());
  return Math.random() < 0.02 ? jitter * (2 + Math.random()) : jitter;
}

export const KEYS = 500;
export const keyOf = (i) => `user:${String(i).padStart(4, '0')}`;

/** The records both origins serve (the new store is a copy of the old one, kept by dual writes). */
export const records = new Map();
{
  const loaded = Date.now();
  for (let i = 0; i < KEYS; i++) {
    const items = [];
    for (let j = 0; j < 1 + (i % 3); j++) items.push({ sku: `SKU-${100 + ((i + 7 * j) % 60)}`, price: ((3 * i + 5 * j) % 20) + 0.99, qty: 1 + (j % 2) });
    records.set(keyOf(i), { plan: i % 3 ? 'free' : 'pro', version: 1, updatedAt: new Date(loaded - i * 60_000).toISOString(), items });
  }
}

/** A record as the next write stores it: a new plan and version, stamped now. */
export const nextRecord = (current, plan) => ({ ...current, plan, version: current.version + 1, updatedAt: new Date().toISOString() });

const rounded = (key) => Number(key.slice(key.indexOf(':') + 1)) % ROUNDED_EVERY === 0;

/** The legacy store: slow and right. */
export const oldOrigin = {
  async read(key, signal) {
    await sleep(draw(knobs.oldLatencyMs), signal);
    return records.get(key);
  },
  async write({ key, record }, signal) {
    await sleep(draw(knobs.oldLatencyMs), signal);
    records.set(key, record);
    return record;
  },
};

class StoreUnavailable extends Error {
  name = 'StoreUnavailable';
}

/** The new store: as fast, wrong and flaky as the sliders say. */
export const newOrigin = {
  async read(key, signal) {
    await sleep(draw(knobs.newLatencyMs), signal);
    if (Math.random() < knobs.errorRate) throw new StoreUnavailable('new store: connection reset');
    let record = records.get(key);
    if (!record) return record;
    // Three ways of differing, each at its own path: a stale copy, a clock ahead, a backfill bug.
    if (Math.random() < knobs.mismatchRate) record = { ...record, version: record.version - 1 };
    if (Math.random() < knobs.driftRate) {
      record = { ...record, updatedAt: new Date(Date.parse(record.updatedAt) + 200 + Math.floor(2800 * Math.random())).toISOString() };
    }
    if (rounded(key)) record = { ...record, items: record.items.map((item) => ({ ...item, price: Math.round(item.price) })) };
    return record;
  },
  async write({ key, record }, signal) {
    await sleep(draw(knobs.newLatencyMs), signal);
    if (Math.random() < knobs.errorRate) throw new StoreUnavailable('new store: write rejected');
    records.set(key, record);
    return record;
  },
};

// ---------------------------------------------------------------------------------------------
// Big Segments

/** A seeded PRNG (mulberry32), so that every page load draws the same segment. */
export function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * contextHash → { 'beta-testers.g3': true | false }, as LaunchDarkly's Relay Proxy writes it.
 * While the synchronizer runs, `lastUpToDate` is "now"; `haltSync()` freezes it.
 */
export class MemoryBigSegmentStore {
  members = new Map();
  calls = { membership: 0, metadata: 0 };
  #haltedAt = null;

  get synced() { return this.#haltedAt === null; }
  get lastUpToDate() { return this.#haltedAt ?? Date.now(); }
  haltSync() { this.#haltedAt ??= Date.now(); }
  resumeSync() { this.#haltedAt = null; }

  async getMetadata() {
    this.calls.metadata++;
    await sleep(1 + Math.random() * 2);
    return { lastUpToDate: this.lastUpToDate };
  }

  async getMembership(contextHash) {
    this.calls.membership++;
    await sleep(1 + Math.random() * 3);
    return this.members.get(contextHash);
  }

  close() {}
}
