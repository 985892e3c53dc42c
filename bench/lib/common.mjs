// Shared helpers for the scenario children. Libraries are imported lazily (dynamic import) so
// that cold-start can time them and the driver can read scenario metadata without loading them.

export const FLAG_KEY = 'migration';
export const CONTEXT = Object.freeze({ kind: 'user', key: 'user-1' });
export const PAYLOAD = 'payload';
export const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];

const env = (name, dflt) => (process.env[name] ? Number(process.env[name]) : dflt);
export const WARMUP_MS = env('BENCH_WARMUP_MS', 300);
export const MEASURE_MS = env('BENCH_MEASURE_MS', 1000);

/**
 * Serial time-boxed loop: `await op(i)` one after another. Warm-up, then a GC, then batches until
 * `measureMs` has passed. Returns the mean over the whole measured window (GC pauses included,
 * so allocation pressure counts against whoever allocates).
 */
export async function timeAsync(op, { warmupMs = WARMUP_MS, measureMs = MEASURE_MS, batch = 500 } = {}) {
  let i = 0;
  const warmEnd = performance.now() + warmupMs;
  while (performance.now() < warmEnd) for (let b = 0; b < batch; b++) await op(i++);
  globalThis.gc?.();
  let ops = 0;
  const t0 = performance.now();
  let t;
  do {
    for (let b = 0; b < batch; b++) await op(i++);
    ops += batch;
    t = performance.now();
  } while (t - t0 < measureMs);
  return { usPerOp: ((t - t0) * 1000) / ops, ops, ms: t - t0 };
}

/**
 * timeAsync for several ops in one process, taking turns: op a for `sliceMs`, op b for `sliceMs`,
 * … (warm-up the same way), until each op has `measureMs` of measured time. Taking turns keeps
 * machine noise (other processes, clock changes) out of their ratio; a young-generation GC before
 * every turn, outside the timed window, keeps one op's short-lived garbage from being collected in
 * another's turn (the collections during a turn count against that op). Not a full GC: a forced
 * full GC shrinks the young generation, and the ops after it run several times slower until it
 * grows back (measured: LD's shadow read 9 µs → 60-80 µs with 20 ms turns). Returns one
 * timeAsync-like result per op.
 */
export async function timeAsyncInterleaved(ops, { warmupMs = WARMUP_MS, measureMs = MEASURE_MS, sliceMs = 20, check = 5 } = {}) {
  let i = 0;
  const turn = async (op) => {
    globalThis.gc?.({ type: 'minor' });
    let n = 0;
    const t0 = performance.now();
    let t;
    do {
      for (let b = 0; b < check; b++) await op(i++);
      n += check;
      t = performance.now();
    } while (t - t0 < sliceMs);
    return { n, ms: t - t0 };
  };
  const acc = ops.map(() => ({ ops: 0, ms: 0 }));
  for (const [window, keep] of [[warmupMs, false], [measureMs, true]]) {
    const spent = ops.map(() => 0);
    while (spent.some((ms) => ms < window)) {
      for (let k = 0; k < ops.length; k++) {
        const { n, ms } = await turn(ops[k]);
        spent[k] += ms;
        if (keep) {
          acc[k].ops += n;
          acc[k].ms += ms;
        }
      }
    }
  }
  return acc.map((a) => ({ usPerOp: (a.ms * 1000) / a.ops, ops: a.ops, ms: a.ms }));
}

export async function loadLD() {
  const m = await import('@launchdarkly/node-server-sdk');
  return m.init ? m : m.default;
}

// BENCH_CUTOVER_MODULE loads another build: bench/profile.mjs a copy of dist/ whose wasm keeps its
// names, bench/against.mjs an earlier build to compare with.
export function loadCutover() {
  return import(process.env.BENCH_CUTOVER_MODULE || 'cutover');
}

/** A real LD client fed by TestData; flag `migration` serves `stage` with a real variation index. */
export async function ldClientWithStage(ld, stage) {
  const td = new ld.integrations.TestData();
  td.update(
    td.flag(FLAG_KEY).variations(...STAGES).fallthroughVariation(STAGES.indexOf(stage)).on(true).checkRatio(1),
  );
  const client = ld.init('sdk-key', { updateProcessor: td.getFactory(), sendEvents: false, diagnosticOptOut: true });
  await client.waitForInitialization({ timeout: 10 });
  return { client, td };
}

// The same trivial origins for both; LD's API requires its LDMethodResult wrapper.
export const cutoverOrigin = async (p) => p;
export const compare = (a, b) => a === b;
export const ldOrigin = (ld) => async (p) => ld.LDMigrationSuccess(p);

/** An in-memory Big Segment store usable by both (cutover accepts getUserMembership as alias). */
export function memoryStore({ delayMs = 0, counter } = {}) {
  const membership = { 'bigseg.g1': true, 'other.g1': false };
  return {
    async getMetadata() {
      return { lastUpToDate: Date.now() };
    },
    getUserMembership(hash) {
      if (counter) counter.calls++;
      if (delayMs > 0) return new Promise((r) => setTimeout(() => r({ ...membership }), delayMs));
      return Promise.resolve({ ...membership });
    },
    close() {},
  };
}

/** LD client (TestData) with a flag whose one rule matches unbounded segment `bigseg` (gen 1). */
export async function ldBigSegmentClient(ld, bigSegments) {
  const td = new ld.integrations.TestData();
  td.usePreconfiguredSegment({
    key: 'bigseg', version: 1, unbounded: true, generation: 1, included: [], excluded: [], rules: [],
  });
  td.usePreconfiguredFlag({
    key: 'bigflag', version: 1, on: true, variations: [false, true], offVariation: 0,
    fallthrough: { variation: 0 }, targets: [], prerequisites: [], salt: 's',
    rules: [{ id: 'r1', variation: 1, clauses: [{ attribute: '', op: 'segmentMatch', values: ['bigseg'] }] }],
  });
  const client = ld.init('sdk-key', {
    updateProcessor: td.getFactory(), sendEvents: false, diagnosticOptOut: true,
    logger: ld.basicLogger({ level: 'warn' }), bigSegments,
  });
  await client.waitForInitialization({ timeout: 10 });
  // BigSegmentsManager is not exported by @launchdarkly/js-server-sdk-common; the client's own
  // instance is reached through the evaluator's query object (exactly what evaluations call).
  const queries = client._evaluator?._queries;
  const managerLookup =
    queries && typeof queries.getBigSegmentsMembership === 'function'
      ? (key) => queries.getBigSegmentsMembership(key)
      : null;
  return { client, td, managerLookup };
}

export const round = (x, d = 3) => (x == null ? x : Number(x.toFixed(d)));
