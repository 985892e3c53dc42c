// Guardrails: the flag is at `live` and the new store breaks for a while, then heals. Two
// migrators read through the same outage side by side, one without and one with `.guard()`:
// without it every caller gets the new store's errors until the outage ends; with it the guard
// trips after a run of failures, the old store answers, and after the cooldown probing finds the
// new store healthy and closes the guard again. The cooldown and the bounds are shortened so that
// the whole story fits in a few seconds.

import { MigratorBuilder } from 'cutover';
import { sleep } from './stores.mjs';
import { StageSwitch } from './stage-switch.mjs';

const FLAG = 'kv-store-migration';
const CLIENTS = 10; // reads in flight at once, per migrator
const RUN_MS = 4000;
const OUTAGE = { from: 1000, to: 2200 }; // ms after the start: the new store fails every call
const BUCKET_MS = 200; // one character of the timeline
const GUARD = { cooldownMs: 800, minCalls: 50, probeRatio: 4, windowMs: 10_000 };

/** A store whose calls fail while `broken()` says so: 1–3 ms each. */
function store(name, broken) {
  return async (key) => {
    await sleep(1 + Math.random() * 2);
    if (broken()) throw new Error(`${name}: connection refused`);
    return { key, plan: 'pro' };
  };
}

/** Reads for RUN_MS with CLIENTS clients; counts the errors callers saw per timeline bucket. */
async function readThroughOutage(migrator, started, guardLine) {
  const buckets = Array.from({ length: Math.ceil(RUN_MS / BUCKET_MS) }, () => ({ reads: 0, errors: 0, state: 'closed' }));
  let reads = 0;
  let errors = 0;
  const client = async () => {
    for (let i = 0; performance.now() - started < RUN_MS; i++) {
      const result = await migrator.read(FLAG, { kind: 'user', key: `u${i % 500}` }, 'off', `user:${i % 500}`);
      const bucket = buckets[Math.min(buckets.length - 1, Math.floor((performance.now() - started) / BUCKET_MS))];
      bucket.reads++;
      reads++;
      if (!result.success) {
        bucket.errors++;
        errors++;
      }
      if (guardLine) bucket.state = migrator.guard(FLAG).state;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return { reads, errors, buckets, stats: migrator.stats().guard };
}

const BARS = ' ▁▂▃▄▅▆▇█';
const bar = (share) => BARS[Math.min(BARS.length - 1, Math.ceil(share * (BARS.length - 1)))];
const STATE_MARK = { closed: '·', tripped: 'T', probing: 'p' };

export async function runGuardrailsSection({ out, style, meter, results }) {
  out.write(
    `${style.bold('Guardrails')}  ` +
      style.dim(`flag "${FLAG}" at live, ${CLIENTS} reads in flight per migrator, ${RUN_MS / 1000} s`) + '\n' +
      style.dim(`  the new store fails every call from ${OUTAGE.from / 1000} s to ${OUTAGE.to / 1000} s, then heals; ` +
        'two migrators read through it side by side') + '\n' +
      style.dim(`  .guard({ ${Object.entries(GUARD).map(([k, v]) => `${k}: ${v}`).join(', ')} })  (defaults: cooldown 30 s, minCalls 100, 1 read in 10)`) + '\n\n',
  );
  const started = performance.now();
  const broken = () => {
    const t = performance.now() - started;
    return t >= OUTAGE.from && t < OUTAGE.to;
  };
  const old = store('legacy store', () => false);
  const fresh = store('new store', broken);
  const changes = [];
  // The guard's changes are printed below, from onChange: its warnings stay out of the output.
  const quiet = { debug() {}, info() {}, warn() {}, error: console.error };
  const build = (guarded) => {
    const flags = new StageSwitch();
    flags.set('live');
    const builder = new MigratorBuilder(flags, { logger: quiet })
      .read((key) => old(key), (key) => fresh(key))
      .write((row) => row, (row) => row)
      .meter(meter);
    if (guarded) builder.guard({ ...GUARD, onChange: (change) => changes.push({ ...change, t: performance.now() - started }) });
    return builder.build();
  };
  const [without, withGuard] = await Promise.all([
    readThroughOutage(build(false), started, false),
    readThroughOutage(build(true), started, true),
  ]);

  const outageBuckets = [Math.floor(OUTAGE.from / BUCKET_MS), Math.ceil(OUTAGE.to / BUCKET_MS)];
  const timeline = (run) => run.buckets.map((b) => bar(b.reads ? b.errors / b.reads : 0)).join('');
  const marks = withGuard.buckets.map((b) => STATE_MARK[b.state]).join('');
  const ruler = withGuard.buckets.map((_, i) => (i >= outageBuckets[0] && i < outageBuckets[1] ? '━' : '─')).join('');
  out.write(`  ${style.dim('errors callers saw, one column per')} ${style.dim(`${BUCKET_MS} ms`)}\n`);
  out.write(`  ${'outage'.padEnd(16)} ${style.red(ruler)}\n`);
  out.write(`  ${'without guard()'.padEnd(16)} ${style.red(timeline(without))}  ${fmtErrors(without)}\n`);
  out.write(`  ${'with guard()'.padEnd(16)} ${style.green(timeline(withGuard))}  ${fmtErrors(withGuard)}\n`);
  out.write(`  ${'guard state'.padEnd(16)} ${style.yellow(marks)}  ${style.dim('· closed  T tripped  p probing')}\n\n`);
  for (const c of changes) {
    out.write(`  ${style.dim(`${(c.t / 1000).toFixed(2)} s`)}  ${c.from} → ${style.bold(c.to)}: ${c.reason}\n`);
  }
  const stats = withGuard.stats;
  const ok = style.green('✓');
  const bad = style.red('✗');
  const closedAgain = changes.at(-1)?.to === 'closed';
  out.write(
    `\n  ${withGuard.errors < without.errors / 10 ? ok : bad} callers saw ${withGuard.errors.toLocaleString('en-US')} errors with guard(), ` +
      `${without.errors.toLocaleString('en-US')} without\n` +
      `  ${closedAgain ? ok : bad} the new store healed: the guard ${closedAgain ? 'closed again' : 'did not close'} ` +
      `(${plural(stats.trips, 'trip')}, ${plural(stats.recoveries, 'recovery', 'recoveries')}, ` +
      `${stats.fallbacks.read.toLocaleString('en-US')} reads served by the old store)\n`,
  );
  const opsByStage = { ...results.opsByStage };
  opsByStage.live = (opsByStage.live ?? 0) + without.reads + withGuard.reads;
  return { opsByStage };
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function fmtErrors(run) {
  return `${run.errors.toLocaleString('en-US')} errors in ${run.reads.toLocaleString('en-US')} reads`;
}
