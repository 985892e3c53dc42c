// Shadow read latency as the caller sees it (issue 21): the old origin takes about 5 ms, the new
// one about 20 ms, each with lognormal jitter drawn from a fixed seed. In one process, taking
// turns, the same reads (read i sleeps oldDelay[i] and newDelay[i] in every mode) go through:
//   old        the old origin alone, awaited directly: what the caller waited before the migration
//   fg         cutover, MigratorBuilder at shadow, readExecutionOrder('parallel'), no background()
//   bg         the same with .background(): the read resolves when the old origin has settled
//   ld         LaunchDarkly's createMigration (LDConcurrentExecution), which waits for both
// The stage comes from one LaunchDarkly TestData client for all three libraries (cutover through
// launchDarklyClient). Reads are issued by 10 workers, each awaiting its read before the next
// (a closed loop, 10 in flight at most; see CONCURRENCY); latency = performance.now() after the read resolved −
// before it was called. Reported per mode: p50 and p99 of 2,000 reads, and the p99 ratios.
// Targets: bg p99 ≤ 1.1 × old p99 and ≤ 0.5 × ld p99 (upper quartile over the runs).
import { performance } from 'node:perf_hooks';
import { CONTEXT, FLAG_KEY, ldClientWithStage, loadCutover, loadLD, scaled } from '../lib/common.mjs';
import { quantile } from '../lib/stats.mjs';

export const OLD_MS = 5;
export const NEW_MS = 20;
export const SIGMA = 0.3; // of ln(delay): p99 ≈ 2 × the median
const SEED = 21;
export const BASE_READS = 2000; // per mode, × BENCH_SCALE
export const READS = scaled(BASE_READS);
// 10 in flight: the background mode then reads about 2,000 times a second (10 every ~5 ms), and a
// read through launchDarklyClient costs this process about 100 µs of CPU with its two timers (on
// the 2-core bench machine): 20 % of a core. At 50 in flight the same mode asked for 10,000 a
// second, the process was CPU-bound (the event loop lagged 10–30 ms behind) and its p99 measured
// the saturation, not the mode; the foreground modes, held to ~20 ms a read, never get there.
export const CONCURRENCY = 10;
const TURNS = 4; // measured turns of READS / TURNS reads per mode, the modes' order rotating
// About CONCURRENCY × NEW_MS / OLD_MS = 40 background parts run at once, more at the jitter's
// peaks and when the loop lags; maxInFlight is set well above the default of 100 so that no read
// is ever shed (run the old origin only, and so less work than in the other modes). The peak is
// reported (peakBackground), and the reads shed (shed: 0).
export const MAX_IN_FLIGHT = 1000;
// Untimed: reads whose origins resolve at once (the JIT compiles the paths), a full GC, as many
// again (after a forced full GC the next few thousand reads run slower, and the loop lagged by
// 6–15 ms in the first 300 ms without them), then a turn with the real delays (the timers).
const WARM_FAST = 3000;
const SETTLE = 200;
const VALUE = 'row';

export const meta = {
  unit: 'ms',
  note:
    `shadow read, old origin ~${OLD_MS} ms, new ~${NEW_MS} ms (lognormal, σ ${SIGMA} of ln, seed ${SEED}; the same delays ` +
    `in every mode), ${READS} reads per mode, ${CONCURRENCY} in flight (closed loop), ${TURNS} turns per mode in one process; ` +
    'latency = performance.now() from call to resolve. Modes: old origin alone; cutover foreground (parallel); ' +
    `cutover .background({ maxInFlight: ${MAX_IN_FLIGHT} }); LD createMigration (LDConcurrentExecution); one TestData ` +
    'client at shadow for all (cutover via launchDarklyClient). value = background p99',
  figures: [
    { key: 'p50Old', label: 'old origin alone, p50', unit: 'ms' },
    { key: 'p99Old', label: 'old origin alone, p99', unit: 'ms' },
    { key: 'p50Fg', label: 'cutover foreground, p50', unit: 'ms' },
    { key: 'p99Fg', label: 'cutover foreground, p99', unit: 'ms' },
    { key: 'p50Bg', label: 'cutover background, p50', unit: 'ms' },
    { key: 'p99Bg', label: 'cutover background, p99', unit: 'ms' },
    { key: 'p50Ld', label: 'LaunchDarkly createMigration, p50', unit: 'ms' },
    { key: 'p99Ld', label: 'LaunchDarkly createMigration, p99', unit: 'ms' },
    { key: 'fgToOld', label: 'cutover foreground p99 ÷ old alone p99' },
    { key: 'bgToOld', label: 'cutover background p99 ÷ old alone p99', max: 1.1 },
    { key: 'ldToOld', label: 'LaunchDarkly p99 ÷ old alone p99' },
    { key: 'bgToLd', label: 'cutover background p99 ÷ LaunchDarkly p99', max: 0.5 },
  ],
};

/** A seeded uniform generator on [0, 1) (mulberry32): the same delays in every run. */
function uniform(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n delays in ms, lognormal around `medianMs` (Box–Muller normals), and one 0 at the end. */
export function delays(n, medianMs, sigma, seed) {
  const next = uniform(seed);
  const out = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    const z = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    out[i] = medianMs * Math.exp(sigma * z);
  }
  return out;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function cutover() {
  const ld = await loadLD();
  const c = await loadCutover();
  // Reads 0 … READS-1 are measured, the next SETTLE warm the timers; index FAST sleeps not at all.
  const n = READS + SETTLE;
  const FAST = n;
  const oldDelay = delays(n, OLD_MS, SIGMA, SEED);
  const newDelay = delays(n, NEW_MS, SIGMA, SEED + 1);
  let newInFlight = 0;
  let peakNew = 0;
  const oldRead = async (i) => {
    if (oldDelay[i] > 0) await sleep(oldDelay[i]);
    return VALUE;
  };
  const newRead = async (i) => {
    if (newDelay[i] > 0) {
      if (++newInFlight > peakNew) peakNew = newInFlight;
      await sleep(newDelay[i]);
      newInFlight--;
    }
    return VALUE;
  };
  const compare = (a, b) => a === b;

  const { client } = await ldClientWithStage(ld, 'shadow');
  const flags = c.launchDarklyClient(client);
  const build = (b) => b.readExecutionOrder('parallel').read(oldRead, newRead, compare).write(oldRead, newRead);
  const fg = build(new c.MigratorBuilder(flags)).build();
  const bg = build(new c.MigratorBuilder(flags)).background({ maxInFlight: MAX_IN_FLIGHT }).build();
  const ldm = ld.createMigration(client, {
    readOld: async (i) => ld.LDMigrationSuccess(await oldRead(i)),
    readNew: async (i) => ld.LDMigrationSuccess(await newRead(i)),
    writeOld: async (i) => ld.LDMigrationSuccess(await oldRead(i)),
    writeNew: async (i) => ld.LDMigrationSuccess(await newRead(i)),
    check: compare,
    execution: new ld.LDConcurrentExecution(),
  });
  const modes = [
    { key: 'Old', read: (i) => oldRead(i) },
    { key: 'Fg', read: (i) => fg.read(FLAG_KEY, CONTEXT, 'off', i) },
    { key: 'Bg', read: (i) => bg.read(FLAG_KEY, CONTEXT, 'off', i) },
    { key: 'Ld', read: (i) => ldm.read(FLAG_KEY, CONTEXT, ld.LDMigrationStage.Off, i) },
  ];

  // A wrong setup must not produce a number (setup checks, not timed assertions).
  for (const m of [fg, bg]) {
    const r = await m.read(FLAG_KEY, CONTEXT, 'off', FAST);
    if (r.success !== true || r.value !== VALUE) throw new Error(`unexpected cutover read: ${JSON.stringify(r)}`);
  }
  const first = await ldm.read(FLAG_KEY, CONTEXT, ld.LDMigrationStage.Off, FAST);
  if (first.success !== true || first.result !== VALUE) throw new Error(`unexpected LD read: ${JSON.stringify(first)}`);

  /** `count` reads from index `from` (or all at FAST), CONCURRENCY workers; latencies into lat[i]. */
  const closedLoop = async (read, from, count, lat) => {
    let k = 0;
    const worker = async () => {
      while (k < count) {
        const i = from < 0 ? FAST : from + k;
        k++;
        const t0 = performance.now();
        await read(i);
        if (lat) lat[i] = performance.now() - t0;
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
    // Nothing one mode leaves running may overlap the next mode's turn.
    await bg.settled();
  };

  for (const m of modes) await closedLoop(m.read, -1, scaled(WARM_FAST));
  globalThis.gc?.();
  for (const m of modes) await closedLoop(m.read, -1, scaled(WARM_FAST));
  for (const m of modes) await closedLoop(m.read, READS, SETTLE);

  const lat = Object.fromEntries(modes.map((m) => [m.key, new Float64Array(READS)]));
  let peakBackground = 0;
  const per = Math.ceil(READS / TURNS);
  for (let t = 0; t < TURNS; t++) {
    const from = t * per;
    const count = Math.min(per, READS - from);
    for (let j = 0; j < modes.length; j++) {
      const m = modes[(t + j) % modes.length];
      globalThis.gc?.({ type: 'minor' });
      peakNew = 0;
      await closedLoop(m.read, from, count, lat[m.key]);
      if (m.key === 'Bg') peakBackground = Math.max(peakBackground, peakNew);
    }
  }

  const info = {};
  for (const m of modes) {
    const xs = Array.from(lat[m.key]);
    info[`p50${m.key}`] = quantile(xs, 0.5);
    info[`p99${m.key}`] = quantile(xs, 0.99);
  }
  info.fgToOld = info.p99Fg / info.p99Old;
  info.bgToOld = info.p99Bg / info.p99Old;
  info.ldToOld = info.p99Ld / info.p99Old;
  info.bgToLd = info.p99Bg / info.p99Ld;
  const sBg = bg.stats().read;
  const sFg = fg.stats().read;
  Object.assign(info, {
    reads: READS,
    concurrency: CONCURRENCY,
    peakBackground,
    maxInFlight: MAX_IN_FLIGHT,
    shed: sBg.shed,
    bgChecked: `${sBg.consistency.checked}/${sBg.count}`,
    fgChecked: `${sFg.consistency.checked}/${sFg.count}`,
  });
  client.close();
  return { value: info.p99Bg, info };
}
