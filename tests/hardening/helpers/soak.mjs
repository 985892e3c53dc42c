// The soak: a long run of migration reads, Big Segment lookups and background-mode operations in
// one process, sampling memory every `sampleEvery` operations (every round, for background mode).
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
//
// The background phase (`MigratorBuilder#background()`): each round starts `parts` (10 000)
// operations on a migrator with maxInFlight = parts whose non-authoritative origin stays pending
// until released, so all of them are in flight at once; checks that they are, releases them and
// awaits `settled()`; then a burst of `burst` operations on a migrator with the default
// maxInFlight (100), checking that no more than that run at once and the rest are shed. Rounds
// alternate reads (shadow) and writes (dualwrite). Memory is sampled after each round.
//
// The guard phase (`MigratorBuilder#guard()`, issue 30): one guarded migrator at 'live' reads
// 10 000 flag keys in turn, 10 reads per key, 5 at a time; the new origin fails for 1 key in 7, so
// that key's guard trips after its first 5 reads (maxConsecutiveErrors 5) and its next 5 fall back
// to the old origin. Each pass over the keys drops every guard again (the table keeps at most 100
// keys), so the counts are exact: a trip and 5 read fallbacks per failing key and pass. Memory is
// sampled every `sampleEvery` operations; the table's size at each sample is checked (≤ 100).

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

const macrotask = () => new Promise((resolve) => setImmediate(resolve));

/** The guard phase (see the header): `ops` reads over `keys` flag keys. Returns { samples, seconds, checks, ok }. */
async function guardPhase(cutover, ctx, meter, { ops, keys }) {
  const RUN = 10; // reads per key in a row
  const AT_ONCE = 5; // = maxConsecutiveErrors: the first batch of a failing key trips it
  const failing = (k) => k % 7 === 0;
  const migrator = new cutover.MigratorBuilder({ migrationVariation: () => 'live' }, { logger: silent })
    .read(
      (p) => p.n,
      (p) => {
        if (p.fail) throw new Error('new down');
        return p.n;
      },
    )
    .write(
      () => 1,
      () => 1,
    )
    .meter(meter)
    .guard({ maxConsecutiveErrors: AT_ONCE })
    .build();
  const flagKeys = Array.from({ length: keys }, (_, k) => `guard-flag-${k}`);
  const contexts = { kind: 'user', key: 'guard-user' };
  let wrong = 0;
  let failed = 0;
  let fellBack = 0;
  let maxKept = 0;
  const sampleEvery = ctx.sampleEvery;
  const result = await drive('guard', ops, { ...ctx, concurrency: AT_ONCE, sampleEvery }, (i) => {
    const k = Math.floor(i / RUN) % keys;
    const fail = failing(k);
    if (i % sampleEvery === 0) maxKept = Math.max(maxKept, Object.keys(migrator.stats().guard.flags).length);
    return migrator.read(flagKeys[k], contexts, 'off', { n: i, fail }).then((r) => {
      if (r.success && r.value === i) {
        if (r.origin === 'old') fellBack++;
        else if (fail) wrong++;
      } else if (!r.success && r.origin === 'new' && fail) failed++;
      else wrong++;
    });
  });
  maxKept = Math.max(maxKept, Object.keys(migrator.stats().guard.flags).length);
  const g = migrator.stats().guard;
  // Trips and fallbacks per complete run of a failing key.
  let failingRuns = 0;
  for (let i = 0; i < ops; i += RUN) if (failing(Math.floor(i / RUN) % keys) && i + RUN <= ops) failingRuns++;
  result.checks = { wrongResults: wrong, failed, fellBack, trips: g.trips, readFallbacks: g.fallbacks.read, maxFlagKeysKept: maxKept, failingRuns };
  result.ok =
    wrong === 0 &&
    maxKept <= 100 &&
    g.trips === failingRuns &&
    g.fallbacks.read === failingRuns * (RUN - AT_ONCE) &&
    fellBack === g.fallbacks.read &&
    failed === failingRuns * AT_ONCE;
  return result;
}

/**
 * Background mode: `rounds` rounds of `parts` held background parts and a burst (see the header).
 * Returns { samples, seconds, checks, ok }; samples are per round (`at` = round).
 */
async function backgroundPhase(cutover, ctx, meter, sums, { rounds, parts, burst, burstMax }) {
  const { memory, log } = ctx;
  const limit = burstMax ?? 100; // the default maxInFlight
  let events = 0;
  let consistentEvents = 0;
  const client = {
    migrationVariation: (key) => (key === 'soak-bg-write' ? 'dualwrite' : 'shadow'),
    trackMigrationOp: (e) => {
      events++;
      if (e.measurements.some((m) => m.key === 'consistent' && m.value === true)) consistentEvents++;
    },
  };
  let held = [];
  let inFlight = 0;
  let peak = 0;
  const hold = (value) => {
    inFlight++;
    if (inFlight > peak) peak = inFlight;
    return new Promise((resolve) => {
      held.push(() => {
        inFlight--;
        resolve(value);
      });
    });
  };
  const release = () => {
    const h = held;
    held = [];
    for (const f of h) f();
  };
  let waits = 0;
  let waitsDone = 0;
  const waitUntil = (p) => {
    waits++;
    p.then(() => waitsDone++);
  };
  const build = (bg) =>
    new cutover.MigratorBuilder(client, { logger: silent })
      .readExecutionOrder('parallel')
      .read(
        (p) => p.n,
        (p) => hold(p.n),
        (a, b) => a === b,
      )
      .write(
        (p) => p.n,
        (p) => hold(p.n),
      )
      .meter(meter)
      .background(bg)
      .build();
  const wide = build({ maxInFlight: parts, waitUntil });
  const narrow = build(burstMax === undefined ? {} : { maxInFlight: burstMax });
  const contexts = Array.from({ length: 1000 }, (_, i) => ({ kind: 'user', key: `bg-user-${i}` }));
  const payloads = Array.from({ length: 1000 }, (_, i) => ({ n: i }));
  const checks = { wrongResults: 0, partsNotAllInFlight: 0, burstPeakOverLimit: 0, burstHeldNotLimit: 0, burstShedWrong: 0, settledEarly: 0 };
  let readRounds = 0;
  const run = (migrator, op, n) => {
    const flag = op === 'read' ? 'soak-bg-read' : 'soak-bg-write';
    const all = new Array(n);
    for (let i = 0; i < n; i++) {
      all[i] = migrator[op](flag, contexts[i % 1000], 'off', payloads[i % 1000]).then((r) => {
        const a = op === 'read' ? r : r.authoritative;
        if (a.origin !== 'old' || !a.success || a.value !== i % 1000 || (op === 'write' && r.nonAuthoritative !== undefined)) checks.wrongResults++;
      });
    }
    return Promise.all(all);
  };
  const settle = async (migrator) => {
    let done = false;
    const s = migrator.settled().then(() => (done = true));
    await macrotask();
    if (done && held.length > 0) checks.settledEarly++;
    release();
    await s;
  };

  const samples = [{ at: 0, ...sample(memory) }];
  const t0 = performance.now();
  for (let round = 1; round <= rounds; round++) {
    const op = round % 2 === 1 ? 'read' : 'write';
    if (op === 'read') readRounds++;
    // Every part in flight at once.
    await run(wide, op, parts);
    await macrotask();
    if (held.length !== parts || inFlight !== parts) checks.partsNotAllInFlight++;
    await settle(wide);
    // A burst: at most `limit` at once, the rest shed.
    peak = 0;
    const shedBefore = narrow.stats()[op].shed;
    await run(narrow, op, burst);
    await macrotask();
    if (peak > limit) checks.burstPeakOverLimit++;
    if (held.length !== Math.min(limit, burst)) checks.burstHeldNotLimit++;
    if (narrow.stats()[op].shed - shedBefore !== Math.max(0, burst - limit)) checks.burstShedWrong++;
    await settle(narrow);
    const s = { at: round, ...sample(memory) };
    samples.push(s);
    log(
      `bg round ${String(round).padStart(4)} (${op}s)  wasm ${kb(s.wasm).padStart(10)}  heap ${kb(s.heap).padStart(10)}` +
        `  rss ${kb(s.rss).padStart(10)}  arrayBuffers ${kb(s.arrayBuffers).padStart(9)}  ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  const ws = wide.stats();
  const ns = narrow.stats();
  const shed = ns.read.shed + ns.write.shed;
  const expectedShed = rounds * Math.max(0, burst - limit);
  const kept = Math.min(limit, burst);
  Object.assign(checks, {
    events,
    consistentEvents,
    wideCount: ws.read.count + ws.write.count,
    wideShed: ws.read.shed + ws.write.shed,
    wideConsistent: ws.read.consistency.consistent,
    burstCount: ns.read.count + ns.write.count,
    burstShed: shed,
    burstConsistent: ns.read.consistency.consistent,
    meteredShed: sums.get('cutover.migration.shed') ?? 0,
    waitUntilCalls: waits,
    waitUntilResolved: waitsDone,
    // not a check: what the first round's `parts` parts in flight took of wasm memory
    firstRoundWasmKiB: Math.round((samples[1]?.wasm - samples[0].wasm) / 1024),
  });
  const ok =
    checks.wrongResults === 0 &&
    checks.partsNotAllInFlight === 0 &&
    checks.burstPeakOverLimit === 0 &&
    checks.burstHeldNotLimit === 0 &&
    checks.burstShedWrong === 0 &&
    checks.settledEarly === 0 &&
    events === rounds * (parts + burst) &&
    consistentEvents === readRounds * (parts + kept) &&
    checks.wideCount === rounds * parts &&
    checks.wideShed === 0 &&
    checks.wideConsistent === readRounds * parts &&
    checks.burstCount === rounds * burst &&
    shed === expectedShed &&
    checks.burstConsistent === readRounds * kept &&
    checks.meteredShed === expectedShed &&
    waits === rounds * parts &&
    waitsDone === waits &&
    inFlight === 0;
  return { samples, seconds: (performance.now() - t0) / 1000, checks, ok };
}

/**
 * The soak. `cutover` is the package; `memory` the hook from `hookWasmMemory()`.
 * `phases`: which of 'reads', 'lookups', 'background', 'guard' to run (all by default).
 * Returns { migration, segments, background, pass, lines } with growth figures in bytes (a phase
 * not run is undefined).
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
    phases = new Set(['reads', 'lookups', 'background', 'guard']),
    bgRounds = 30,
    bgParts = 10_000,
    bgBurst = 10_000,
    bgMax = undefined,
    bgWarmup = 5,
    guardOps = 300_000,
    guardKeys = 10_000,
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

  let migration;
  if (phases.has('reads')) {
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
    migration = await drive('reads', reads, ctx, (i) =>
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
    migration.ok =
      migration.checks.wrongResults === 0 &&
      migration.checks.events === reads &&
      migration.checks.statsCount === reads &&
      migration.checks.statsConsistent === reads &&
      migration.checks.meteredOperations === reads &&
      migration.checks.meteredOriginCalls === 2 * reads;
  }

  let segments;
  if (phases.has('lookups')) {
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
    segments = await drive('lookups', lookups, ctx, () => {
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
    segments.ok =
      segments.checks.badResults === 0 &&
      segments.checks.lookups === lookups &&
      segments.checks.meteredLookups === lookups &&
      segments.checks.meteredStoreQueries === segments.checks.membershipQueries;
    await manager.close();
  }

  let background;
  if (phases.has('background')) {
    background = await backgroundPhase(cutover, ctx, meter, sums, { rounds: bgRounds, parts: bgParts, burst: bgBurst, burstMax: bgMax });
  }

  let guard;
  if (phases.has('guard')) {
    guard = await guardPhase(cutover, ctx, meter, { ops: guardOps, keys: guardKeys });
  }

  const growth = (samples, from) => {
    const base = samples.find((s) => s.at >= from) ?? samples[0];
    const last = samples.at(-1);
    return { from: base.at, wasm: last.wasm - base.wasm, heap: last.heap - base.heap, wasmTotal: last.wasm, heapTotal: last.heap };
  };
  const lines = [];
  let pass = true;
  for (const [name, r, what, from] of [
    ['reads', migration, `${reads} ops`, warmup],
    ['lookups', segments, `${lookups} ops`, warmup],
    ['background', background, `${bgRounds} rounds of ${bgParts} held parts + a burst of ${bgBurst}`, bgWarmup],
    ['guard', guard, `${guardOps} reads over ${guardKeys} flag keys`, warmup],
  ]) {
    if (r === undefined) continue;
    r.growth = growth(r.samples, from);
    const g = r.growth;
    const ok = g.wasm <= wasmBound && g.heap <= heapBound;
    pass &&= ok && r.ok;
    lines.push(
      `${name}: ${what} in ${r.seconds.toFixed(1)} s; growth after warm-up (from ${g.from} ${name === 'background' ? 'rounds' : 'ops'}): ` +
        `wasm ${signedKb(g.wasm)} (now ${kb(g.wasmTotal)}), heap ${signedKb(g.heap)} (now ${kb(g.heapTotal)}); ` +
        `bound ${kb(wasmBound)} / ${kb(heapBound)}: ${ok ? 'ok' : 'EXCEEDED'}; checks ${JSON.stringify(r.checks)}`,
    );
    if (!r.ok) lines.push(`${name}: functional checks FAILED (see checks above)`);
  }
  return { migration, segments, background, guard, pass, lines };
}

/**
 * The command line shared by `soak/run.mjs` (repo dist) and `soak-child.mjs` (packed build):
 * `importCutover` is the entry's own `() => import('cutover')`, so its resolution applies.
 *   [--reads N] [--lookups N] [--every N] [--warmup N] [--phases reads,lookups,background,guard]
 *   [--bg-rounds N] [--bg-parts N] [--bg-burst N] [--bg-max N] [--bg-warmup ROUNDS]
 *   [--guard-ops N] [--guard-keys N]
 * The guard phase's defaults: 300 000 reads over 10 000 flag keys (three passes), the same
 * sampling and warm-up as the reads.
 * Background mode's defaults: 30 rounds of 10 000 held parts and a burst of 10 000 against the
 * default maxInFlight (100; `--bg-max` sets another), warm-up 5 rounds (the allocator settles
 * within the first five when other phases ran before).
 * The bound is 1 MiB for a full (1 000 000-operation) run; shorter runs get a proportional
 * share (of the longest phase run; a background round counts parts + burst operations), never
 * under one 64 KiB wasm page (wasm) / 512 KiB (heap: GC noise, seen up to ~250 KiB).
 */
export async function soakMain(importCutover, argv = process.argv.slice(2)) {
  if (typeof global.gc !== 'function') {
    console.error('soak: run with --expose-gc');
    return 2;
  }
  const text = (name, fallback) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : fallback;
  };
  const arg = (name, fallback) => {
    const value = text(name, undefined);
    return value === undefined ? fallback : Number(value);
  };
  const reads = arg('reads', 1_000_000);
  const lookups = arg('lookups', 1_000_000);
  const every = arg('every', 100_000);
  const warmup = arg('warmup', every);
  const phases = new Set(text('phases', 'reads,lookups,background,guard').split(','));
  for (const p of phases) {
    if (!['reads', 'lookups', 'background', 'guard'].includes(p)) {
      console.error(`soak: unknown phase ${p} (reads, lookups, background, guard)`);
      return 2;
    }
  }
  const bg = {
    bgRounds: arg('bg-rounds', 30),
    bgParts: arg('bg-parts', 10_000),
    bgBurst: arg('bg-burst', 10_000),
    bgMax: arg('bg-max', undefined),
    bgWarmup: arg('bg-warmup', 5),
    guardOps: arg('guard-ops', 300_000),
    guardKeys: arg('guard-keys', 10_000),
  };
  const sizes = [phases.has('reads') ? reads : 0, phases.has('lookups') ? lookups : 0, phases.has('background') ? bg.bgRounds * (bg.bgParts + bg.bgBurst) : 0, phases.has('guard') ? bg.guardOps : 0];
  const scale = Math.max(...sizes) / 1_000_000;
  const wasmBound = Math.max(1024 * 1024 * Math.min(1, scale), 64 * 1024);
  const heapBound = Math.max(1024 * 1024 * Math.min(1, scale), 512 * 1024);
  const hook = hookWasmMemory();
  const cutover = await importCutover();
  hook.restore();
  const parts = [];
  if (phases.has('reads')) parts.push(`${reads} reads`);
  if (phases.has('lookups')) parts.push(`${lookups} lookups`);
  if (phases.has('guard')) parts.push(`guard: ${bg.guardOps} reads over ${bg.guardKeys} flag keys`);
  if (phases.has('reads') || phases.has('lookups') || phases.has('guard')) parts.push(`sampling every ${every}, warm-up = first ${warmup} ops of each`);
  if (phases.has('background')) {
    parts.push(
      `background: ${bg.bgRounds} rounds of ${bg.bgParts} held parts + a burst of ${bg.bgBurst} (maxInFlight ${bg.bgMax ?? 'default'}), ` +
        `sampled every round, warm-up ${bg.bgWarmup} rounds`,
    );
  }
  console.log(
    `soak: ${parts.join('; ')}. wasm = the instance's WebAssembly.Memory byteLength, heap = process.memoryUsage().heapUsed after gc`,
  );
  const result = await soak(cutover, hook, { reads, lookups, sampleEvery: every, warmup, wasmBound, heapBound, phases, ...bg });
  for (const line of result.lines) console.log(line);
  console.log(`soak: ${result.pass ? 'PASS' : 'FAIL'}`);
  return result.pass ? 0 : 1;
}
