// Shared helpers for the scenario children. Libraries are imported lazily (dynamic import) so
// that cold-start can time them and the driver can read scenario metadata without loading them.

export const FLAG_KEY = 'migration';
export const CONTEXT = Object.freeze({ kind: 'user', key: 'user-1' });
export const PAYLOAD = 'payload';
export const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];

// BENCH_SCALE multiplies every op count below (a quick check: 0.2; a profile: 8).
const SCALE = process.env.BENCH_SCALE ? Number(process.env.BENCH_SCALE) : 1;
export const scaled = (n) => Math.max(1, Math.round(n * SCALE));

// The clock: nanoseconds from a monotonic source, read only at the edges of a measured window.
const nowNs = () => process.hrtime.bigint();
const msSince = (t0) => Number(nowNs() - t0) / 1e6;

/**
 * `await op(i)` one after another, a fixed number of times, so that every side and every round
 * of a scenario does the same work: `warmupOps` untimed calls (the JIT settles), a full GC (the
 * warm-up's garbage is not collected inside the window), `settleOps` untimed calls (a forced full
 * GC leaves the next few thousand calls several times slower: on a loaded machine, a shadow
 * read's first 2,000 after gc() took 50–100 µs each, against its usual 10–20 µs), a
 * young-generation GC (the window starts with an empty nursery), then `ops` timed calls between
 * two clock reads. The mean includes the collections
 * during the window: allocation counts against whoever allocates. Counts are scaled by BENCH_SCALE.
 * `drain` (optional, e.g. `() => migrator.settled()`) is awaited after each phase, inside the
 * window for the timed one: work an op leaves running after it resolves (a background part)
 * ends before the clock is read, and none of the untimed phases' spills into the window.
 */
export async function timeAsync(op, { ops, warmupOps = ops * 0.3, settleOps = ops * 0.2, drain }) {
  if (!(ops > 0)) throw new Error('timeAsync: ops is required');
  const [n, warm, settle] = [scaled(ops), scaled(warmupOps), scaled(settleOps)];
  let i = 0;
  for (let k = 0; k < warm; k++) await op(i++);
  if (drain) await drain();
  globalThis.gc?.();
  for (let k = 0; k < settle; k++) await op(i++);
  if (drain) await drain();
  globalThis.gc?.({ type: 'minor' });
  const t0 = nowNs();
  for (let k = 0; k < n; k++) await op(i++);
  if (drain) await drain();
  const ms = msSince(t0);
  return { usPerOp: (ms * 1000) / n, ops: n, ms };
}

/**
 * timeAsync for several ops in one process, taking turns of `turnOps` calls each (op a, op b, …),
 * `turns` measured turns per op after `warmupTurns` untimed ones, a full GC and `settleTurns`
 * untimed ones. Taking turns keeps machine noise out of their ratio; a young-generation GC
 * before every turn, outside the timed window, keeps one op's short-lived garbage from being
 * collected in another's turn. Not a full GC per turn: the calls after a forced full GC run
 * several times slower for a while (LD's shadow read 9 µs → 60-80 µs with 20 ms turns). Returns
 * one timeAsync-like result per op. Counts are scaled by BENCH_SCALE.
 */
export async function timeAsyncInterleaved(ops, { turnOps, turns, warmupTurns = turns / 2, settleTurns = turns / 5 }) {
  const perTurn = scaled(turnOps);
  let i = 0;
  const turn = async (op) => {
    globalThis.gc?.({ type: 'minor' });
    const t0 = nowNs();
    for (let k = 0; k < perTurn; k++) await op(i++);
    return msSince(t0);
  };
  const untimed = async (count) => {
    for (let t = 0; t < count; t++) for (const op of ops) await turn(op);
  };
  await untimed(Math.max(1, Math.round(warmupTurns)));
  globalThis.gc?.();
  await untimed(Math.max(1, Math.round(settleTurns)));
  const ms = ops.map(() => 0);
  for (let t = 0; t < turns; t++) for (let k = 0; k < ops.length; k++) ms[k] += await turn(ops[k]);
  return ms.map((m) => ({ usPerOp: (m * 1000) / (perTurn * turns), ops: perTurn * turns, ms: m }));
}

/**
 * timeAsyncInterleaved for synchronous ops (no `await` per call, which would cost more than a
 * fast op): turns of `turnOps` calls of each op in turn, a young-generation GC before every turn
 * outside the timed window, `turns` measured turns per op after `warmupTurns` untimed ones, a full
 * GC and `settleTurns` untimed ones. Returns one { usPerOp, ops, ms } per op. Each op's results
 * are summed into `sink` so that no call is optimised away.
 */
export function timeInterleaved(ops, { turnOps, turns, warmupTurns = turns / 2, settleTurns = turns / 5 }) {
  const perTurn = scaled(turnOps);
  let sink = 0;
  const turn = (op) => {
    globalThis.gc?.({ type: 'minor' });
    const t0 = nowNs();
    for (let k = 0; k < perTurn; k++) sink += op(k) ? 1 : 0;
    return msSince(t0);
  };
  const untimed = (count) => {
    for (let t = 0; t < count; t++) for (const op of ops) turn(op);
  };
  untimed(Math.max(1, Math.round(warmupTurns)));
  globalThis.gc?.();
  untimed(Math.max(1, Math.round(settleTurns)));
  const ms = ops.map(() => 0);
  for (let t = 0; t < turns; t++) for (let k = 0; k < ops.length; k++) ms[k] += turn(ops[k]);
  const results = ms.map((m) => ({ usPerOp: (m * 1000) / (perTurn * turns), ops: perTurn * turns, ms: m }));
  results.sink = sink;
  return results;
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
