// The soak: a long run of migration reads and Big Segment lookups in one process, sampling
// memory every `sampleEvery` operations.
//
// What is measured (after two `global.gc()` passes, so needs --expose-gc):
// - wasm: `WebAssembly.Memory#buffer.byteLength` of cutover's instance — the linear memory the
//   Rust allocator works in. It only ever grows (in 64 KiB pages), so any leak in Rust shows up
//   as growth. The memory is not exported by the package: `hookWasmMemory()` wraps
//   `WebAssembly.Instance` before cutover is loaded and keeps the instance's `exports.memory`.
// - heap: `process.memoryUsage().heapUsed` — JS objects (leaked promises, closures, JsValue
//   handles kept alive by the wasm side's heap table would show here).
// - rss and arrayBuffers are printed for context only (rss includes allocator slack).
// Growth is measured from the sample at the end of warm-up to the last sample.

/** Call before loading cutover: records the `WebAssembly.Memory` of instances made afterwards. */
export function hookWasmMemory() {
  const memories = [];
  const Original = WebAssembly.Instance;
  WebAssembly.Instance = new Proxy(Original, {
    construct(target, args, newTarget) {
      const instance = Reflect.construct(target, args, newTarget);
      for (const value of Object.values(instance.exports)) {
        if (value instanceof WebAssembly.Memory) memories.push(value);
      }
      return instance;
    },
  });
  return {
    get memory() {
      return memories.at(-1);
    },
    get count() {
      return memories.length;
    },
    restore() {
      WebAssembly.Instance = Original;
    },
  };
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function sample(memory) {
  global.gc();
  global.gc();
  const m = process.memoryUsage();
  return { wasm: memory.buffer.byteLength, heap: m.heapUsed, rss: m.rss, arrayBuffers: m.arrayBuffers };
}

const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
const signedKb = (n) => `${n >= 0 ? '+' : ''}${(n / 1024).toFixed(1)} KiB`;

/**
 * Runs `ops` operations in batches of `concurrency`, sampling every `sampleEvery`.
 * `op(i)` returns a promise. Returns the samples (index 0 = before the first operation).
 */
async function drive(name, ops, { concurrency, sampleEvery, memory, log }, op) {
  const samples = [{ at: 0, ...sample(memory) }];
  const t0 = performance.now();
  let i = 0;
  while (i < ops) {
    const n = Math.min(concurrency, ops - i);
    const batch = new Array(n);
    for (let j = 0; j < n; j++) batch[j] = op(i + j);
    await Promise.all(batch);
    i += n;
    if (i % sampleEvery === 0 || i === ops) {
      const s = { at: i, ...sample(memory) };
      samples.push(s);
      log(
        `${name.padEnd(9)} ${String(i).padStart(8)} ops  wasm ${kb(s.wasm).padStart(10)}  heap ${kb(s.heap).padStart(10)}` +
          `  rss ${kb(s.rss).padStart(10)}  arrayBuffers ${kb(s.arrayBuffers).padStart(9)}  ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
    }
  }
  return { samples, seconds: (performance.now() - t0) / 1000 };
}

/**
 * The soak. `cutover` is the package; `memory` the hook from `hookWasmMemory()`.
 * Returns { migration, segments, pass, lines } with growth figures in bytes.
 */
export async function soak(cutover, memoryHook, opts = {}) {
  const {
    reads = 1_000_000,
    lookups = 1_000_000,
    sampleEvery = 100_000,
    warmup = sampleEvery,
    concurrency = 100,
    wasmBound = 1024 * 1024,
    heapBound = 1024 * 1024,
    log = console.log,
  } = opts;
  const memory = memoryHook.memory;
  if (!(memory instanceof WebAssembly.Memory)) throw new Error('soak: no WebAssembly.Memory found (hookWasmMemory before loading cutover)');
  const ctx = { memory, concurrency, sampleEvery, log };

  // Every measurement summed by instrument name: the soak runs with metrics on (an
  // OpenTelemetry-shaped meter), so their attribute objects and calls are in what is measured.
  const sums = new Map();
  const instrument = (name) => {
    const add = (value) => sums.set(name, (sums.get(name) ?? 0) + value);
    return { add, record: () => add(1), addCallback() {}, removeCallback() {} };
  };
  const meter = { createCounter: instrument, createHistogram: instrument, createObservableGauge: instrument };

  // Migration reads: shadow, parallel, with a comparison, every event to a counting client.
  let events = 0;
  let consistent = 0;
  const client = {
    migrationVariation: () => 'shadow',
    trackMigrationOp: (e) => {
      events++;
      if (e.measurements.length >= 2) consistent++;
    },
  };
  const migrator = new cutover.MigratorBuilder(client, { logger: silent })
    .readExecutionOrder('parallel')
    .read(
      (p) => p.n,
      async (p) => p.n,
      (a, b) => a === b,
    )
    .write(
      () => 1,
      () => 1,
    )
    .meter(meter)
    .build();
  const contexts = Array.from({ length: 1000 }, (_, i) => ({ kind: 'user', key: `user-${i}` }));
  const payloads = Array.from({ length: 1000 }, (_, i) => ({ n: i }));
  let wrong = 0;
  const migration = await drive('reads', reads, ctx, (i) =>
    migrator.read('soak-flag', contexts[i % 1000], 'off', payloads[i % 1000]).then((r) => {
      if (r.value !== i % 1000 || r.origin !== 'old' || !r.success) wrong++;
    }),
  );
  const stats = migrator.stats();
  migration.checks = {
    wrongResults: wrong,
    events,
    consistentEvents: consistent,
    statsCount: stats.read.count,
    statsConsistent: stats.read.consistency.consistent,
    meteredOperations: sums.get('cutover.migration.operations'),
    meteredOriginCalls: sums.get('cutover.migration.origin.duration'),
  };

  // Big Segment lookups: 1000-context cache; 80% from a hot set of 500 keys (cache hits),
  // 20% from 200 000 cold keys (misses: a store query, which includes even keys, not odd ones).
  const now = Date.now();
  let queries = 0;
  const store = {
    getMetadata: async () => ({ lastUpToDate: now + 3_600_000 }),
    getMembership: async (hash) => {
      queries++;
      return hash.charCodeAt(0) % 2 === 0 ? { 'seg.g1': true, 'other.g2': false } : null;
    },
  };
  const manager = new cutover.BigSegmentStoreManager({ store, contextCacheSize: 1000, logger: silent, meter });
  const hot = Array.from({ length: 500 }, (_, i) => `hot-${i}`);
  const cold = Array.from({ length: 200_000 }, (_, i) => `cold-${i}`);
  let bad = 0;
  let included = 0;
  let x = 0x2545f491;
  const rand = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  const segments = await drive('lookups', lookups, ctx, () => {
    const key = rand() < 0.8 ? hot[Math.floor(rand() * hot.length)] : cold[Math.floor(rand() * cold.length)];
    return manager.getUserMembership(key).then((r) => {
      if (r.status !== 'HEALTHY' || r.membership === null) bad++;
      else if (r.membership['seg.g1'] === true) included++;
    });
  });
  const counters = manager.stats();
  segments.checks = {
    badResults: bad,
    included,
    storeQueries: queries,
    cacheHits: counters.cacheHits,
    cacheMisses: counters.cacheMisses,
    lookups: counters.lookups,
    meteredLookups: sums.get('cutover.big_segments.lookups'),
    meteredStoreQueries: sums.get('cutover.big_segments.store_queries'),
    membershipQueries: counters.membershipQueries,
  };
  await manager.close();

  const growth = (samples) => {
    const base = samples.find((s) => s.at >= warmup) ?? samples[0];
    const last = samples.at(-1);
    return { from: base.at, wasm: last.wasm - base.wasm, heap: last.heap - base.heap, wasmTotal: last.wasm, heapTotal: last.heap };
  };
  migration.growth = growth(migration.samples);
  segments.growth = growth(segments.samples);
  const lines = [];
  let pass = true;
  for (const [name, r, n] of [
    ['reads', migration, reads],
    ['lookups', segments, lookups],
  ]) {
    const g = r.growth;
    const ok = g.wasm <= wasmBound && g.heap <= heapBound;
    pass &&= ok;
    lines.push(
      `${name}: ${n} ops in ${r.seconds.toFixed(1)} s; growth after warm-up (from ${g.from} ops): ` +
        `wasm ${signedKb(g.wasm)} (now ${kb(g.wasmTotal)}), heap ${signedKb(g.heap)} (now ${kb(g.heapTotal)}); ` +
        `bound ${kb(wasmBound)} / ${kb(heapBound)}: ${ok ? 'ok' : 'EXCEEDED'}; checks ${JSON.stringify(r.checks)}`,
    );
  }
  const checksOk =
    migration.checks.wrongResults === 0 &&
    migration.checks.events === reads &&
    migration.checks.statsCount === reads &&
    migration.checks.statsConsistent === reads &&
    migration.checks.meteredOperations === reads &&
    migration.checks.meteredOriginCalls === 2 * reads &&
    segments.checks.badResults === 0 &&
    segments.checks.lookups === lookups &&
    segments.checks.meteredLookups === lookups &&
    segments.checks.meteredStoreQueries === segments.checks.membershipQueries;
  if (!checksOk) lines.push('functional checks FAILED (see checks above)');
  return { migration, segments, pass: pass && checksOk, lines };
}

/**
 * The command line shared by `soak/run.mjs` (repo dist) and `soak-child.mjs` (packed build):
 * `importCutover` is the entry's own `() => import('cutover')`, so its resolution applies.
 *   [--reads N] [--lookups N] [--every N] [--warmup N]
 * The bound is 1 MiB for a full (1 000 000-operation) run; shorter runs get a proportional
 * share, never under one 64 KiB wasm page (wasm) / 512 KiB (heap: GC noise, seen up to ~250 KiB).
 */
export async function soakMain(importCutover, argv = process.argv.slice(2)) {
  if (typeof global.gc !== 'function') {
    console.error('soak: run with --expose-gc');
    return 2;
  }
  const arg = (name, fallback) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  const reads = arg('reads', 1_000_000);
  const lookups = arg('lookups', 1_000_000);
  const every = arg('every', 100_000);
  const warmup = arg('warmup', every);
  const scale = Math.max(reads, lookups) / 1_000_000;
  const wasmBound = Math.max(1024 * 1024 * Math.min(1, scale), 64 * 1024);
  const heapBound = Math.max(1024 * 1024 * Math.min(1, scale), 512 * 1024);
  const hook = hookWasmMemory();
  const cutover = await importCutover();
  hook.restore();
  console.log(
    `soak: ${reads} reads + ${lookups} lookups, sampling every ${every}: wasm = the instance's WebAssembly.Memory ` +
      `byteLength, heap = process.memoryUsage().heapUsed after gc; warm-up = first ${warmup} ops of each phase`,
  );
  const result = await soak(cutover, hook, { reads, lookups, sampleEvery: every, warmup, wasmBound, heapBound });
  for (const line of result.lines) console.log(line);
  console.log(`soak: ${result.pass ? 'PASS' : 'FAIL'}`);
  return result.pass ? 0 : 1;
}
