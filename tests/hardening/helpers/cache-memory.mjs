// Memory per cached Big Segments context (issue 32): what one more context in a
// BigSegmentStoreManager's cache costs — the cache entry (Rust, in wasm linear memory), the
// membership object and the answer object (JavaScript heap) and the handles that tie them.
//
// How: one manager over an in-memory JS store whose getMembership answers a fresh
// `{ 'bigseg.g1': true, 'other.g1': false }` for every hash (as the bench's memoryStore), with a
// cache that holds every context (contextCacheSize = contexts, an hour's TTL, no re-poll). After
// one warm-up lookup (the status poll and one-time allocations), a sample; then every context is
// looked up twice, 1,000 at a time: the miss (store query, membership made, cached) and a warm
// lookup (the answer the cache hands out from then on). Nothing of the answers is kept by the
// caller. A sample again, after two full GCs; per context = growth ÷ contexts:
// - wasm: `WebAssembly.Memory#buffer.byteLength` (the linear memory only grows, in 64 KiB pages:
//   allocator and table slack included, as a process pays for them);
// - heap: `process.memoryUsage().heapUsed` (the JS objects and the externref table);
// - rss: `process.memoryUsage().rss`, for context (it includes V8's reserved but unused space).
// The figure of record is wasm + heap. Needs --expose-gc.

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function sample(memory) {
  global.gc();
  global.gc();
  const m = process.memoryUsage();
  return { wasm: memory.buffer.byteLength, heap: m.heapUsed, rss: m.rss };
}

/** Answers a fresh two-entry membership for every hash, as a store decoding its own data would. */
function memoryStore() {
  return {
    getMetadata: async () => ({ lastUpToDate: Date.now() }),
    getMembership: async () => ({ 'bigseg.g1': true, 'other.g1': false }),
  };
}

/**
 * Caches `contexts` distinct contexts in one manager; returns the growth per context in bytes
 * ({ wasm, heap, rss, total: wasm + heap }) and the counts that show every lookup did what it should.
 */
export async function cachedContextMemory(cutover, memoryHook, { contexts = 200_000, batch = 1000 } = {}) {
  const memory = memoryHook.memory;
  if (!(memory instanceof WebAssembly.Memory)) throw new Error('cache memory: no WebAssembly.Memory (hookWasmMemory before loading cutover)');
  const manager = new cutover.BigSegmentStoreManager({
    store: memoryStore(),
    contextCacheSize: contexts + 1,
    contextCacheTimeMs: 3_600_000,
    statusPollIntervalMs: 3_600_000,
    logger: silent,
  });
  const check = (answer) => {
    if (answer.status !== 'HEALTHY' || answer.membership?.['bigseg.g1'] !== true) throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
  };
  check(await manager.getUserMembership('warm-up'));
  const before = sample(memory);
  for (const pass of [0, 1]) {
    for (let i = 0; i < contexts; i += batch) {
      const lookups = [];
      for (let j = i; j < Math.min(i + batch, contexts); j++) lookups.push(manager.getUserMembership(`context-${j}`));
      for (const answer of await Promise.all(lookups)) check(answer);
    }
    if (pass === 0 && manager.stats().membershipQueries !== contexts + 1) throw new Error('every context must miss once');
  }
  const after = sample(memory);
  const stats = manager.stats();
  await manager.close();
  const per = (key) => (after[key] - before[key]) / contexts;
  return {
    contexts,
    wasm: per('wasm'),
    heap: per('heap'),
    rss: per('rss'),
    total: per('wasm') + per('heap'),
    stats,
  };
}

/** Process entry: prints `cache memory: <total> B per cached context (…)` and a JSON line. */
export async function cachedContextMemoryMain(importCutover, argv = process.argv.slice(2)) {
  const arg = (name, fallback) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  const contexts = arg('contexts', 200_000);
  const batch = arg('batch', 1000);
  const { hookWasmMemory } = await import('./soak.mjs');
  const hook = hookWasmMemory();
  const cutover = await importCutover();
  hook.restore();
  const r = await cachedContextMemory(cutover, hook, { contexts, batch });
  const b = (n) => `${n.toFixed(1)} B`;
  console.log(
    `cache memory: ${b(r.total)} per cached context (wasm ${b(r.wasm)}, heap ${b(r.heap)}; rss ${b(r.rss)}), ` +
      `${r.contexts} contexts, ${r.stats.cacheHits} warm lookups`,
  );
  console.log(`@@CACHE_MEMORY ${JSON.stringify(r)}`);
  return 0;
}
