// Shadowing off the caller's path: the same shadow stage with a new store four times slower than
// the old one, run without and with `.background()`. Without it every read waits for both stores;
// with it a read resolves once the old (authoritative) store has answered, and cutover finishes
// the new store's call, the comparison and the event afterwards.

import { MigratorBuilder } from 'cutover';
import { SimulatedStore } from './stores.mjs';
import { StageSwitch } from './stage-switch.mjs';
import { runWorkload } from './workload.mjs';
import { createProgress } from './progress.mjs';
import { createTable } from './table.mjs';

const FLAG = 'kv-store-migration';
const KEYS = 200;
const READS = 400; // per run
const CONCURRENCY = 8;
const MAX_IN_FLIGHT = 16; // the third run: small enough that 8 clients outrun it

const RUNS = [
  { label: 'without background()', background: undefined },
  { label: '.background()', background: {} },
  { label: `.background({ maxInFlight: ${MAX_IN_FLIGHT} })`, background: { maxInFlight: MAX_IN_FLIGHT } },
];

const keyOf = (i) => `user:${String(i).padStart(4, '0')}`;
const sameRecord = (a, b) => a?.version === b?.version && a?.plan === b?.plan;

const fmtInt = (n) => n.toLocaleString('en-US');
const fmtMs = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
const fmtPair = (l) => (l ? `${fmtMs(l.p50)} / ${fmtMs(l.p99)}` : '—');

/** Nearest-rank percentile of an ascending array. */
const percentile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

function stores() {
  const old = new SimulatedStore({ name: 'legacy store', latencyMs: [4, 6] });
  const fresh = new SimulatedStore({
    name: 'new store', latencyMs: [14, 26], slowRate: 0.02, slowLatencyMs: [40, 60],
  });
  for (let i = 0; i < KEYS; i++) old.data.set(keyOf(i), { plan: i % 3 ? 'free' : 'pro', version: 1 });
  fresh.copyFrom(old);
  return { old, fresh };
}

/** One run of READS shadow reads; resolves with what the caller saw and what cutover recorded. */
async function runOnce({ background }, { meter, progress, label }) {
  const { old, fresh } = stores();
  const flags = new StageSwitch();
  flags.set('shadow');
  let builder = new MigratorBuilder(flags)
    .read((key) => old.get(key), (key) => fresh.get(key), sameRecord)
    .write(({ key, record }) => old.set(key, record), ({ key, record }) => fresh.set(key, record))
    .meter(meter);
  if (background) builder = builder.background(background);
  const migrator = builder.build();

  const caller = []; // ms from read() to its result, as the calling code sees it
  progress.start(label, READS);
  const started = performance.now();
  await runWorkload({
    total: READS,
    concurrency: CONCURRENCY,
    onProgress: progress.update,
    operation: async () => {
      const n = Math.floor(Math.random() * KEYS);
      const t0 = performance.now();
      await migrator.read(FLAG, { kind: 'user', key: `u${n}` }, 'off', keyOf(n));
      caller.push(performance.now() - t0);
    },
  });
  const callersMs = performance.now() - started; // the clients are done here …
  await migrator.settled(); // … and the background parts, from here on
  progress.clear();

  caller.sort((a, b) => a - b);
  return {
    caller: { p50: percentile(caller, 0.5), p99: percentile(caller, 0.99) },
    read: migrator.stats().read,
    events: flags.events,
    readsPerSec: READS / (callersMs / 1000),
  };
}

/** Prints one row per run, then what changed. */
export async function runBackgroundSection({ out, style, meter, results }) {
  out.write(
    `${style.bold('Shadowing off the caller\'s path')}  ` +
      style.dim(`flag "${FLAG}" at shadow, ${READS} reads per run, ${CONCURRENCY} concurrent clients`) + '\n' +
      style.dim('  old: 4–6 ms, authoritative; new: 14–26 ms, 2% slow calls of 40–60 ms; every read compared') + '\n' +
      style.dim('  caller: how long migrator.read() took to resolve; settled() then waits out the background') + '\n\n',
  );
  const table = createTable([
    { title: 'run', width: 32, align: 'left' },
    { title: 'caller p50/p99 ms', width: 17 },
    { title: 'new p50/p99 ms', width: 14 },
    { title: 'compared', width: 8 },
    { title: 'shed', width: 4 },
    { title: 'events', width: 6 },
    { title: 'reads/s', width: 7 },
  ], style);
  out.write(`${table.header()}\n${table.rule()}\n`);

  const progress = createProgress({ style });
  const rows = [];
  for (const run of RUNS) {
    const r = await runOnce(run, { meter, progress, label: run.background ? 'background' : 'foreground' });
    rows.push(r);
    out.write(table.row([
      style.bold(run.label),
      run.background ? style.green(fmtPair(r.caller)) : fmtPair(r.caller),
      fmtPair(r.read.new.latencyMs),
      fmtInt(r.read.consistency.checked),
      r.read.shed ? style.yellow(fmtInt(r.read.shed)) : style.dim(String(r.read.shed ?? '—')),
      fmtInt(r.events),
      fmtInt(Math.round(r.readsPerSec)),
    ]) + '\n');
  }
  out.write(`${table.rule()}\n`);

  const [fg, bg, capped] = rows;
  const ok = style.green('✓');
  const bad = style.red('✗');
  const lines = [
    `${bg.caller.p50 < fg.caller.p50 && bg.caller.p99 < fg.caller.p99 ? ok : bad} the caller's p50 / p99: ` +
      `${fmtPair(fg.caller)} ms → ${fmtPair(bg.caller)} ms with .background(): it waits for the old store only`,
    `${bg.read.consistency.checked === READS && rows.every((r) => r.events === READS) ? ok : bad} ` +
      `${fmtInt(bg.read.consistency.checked)} of ${fmtInt(READS)} background reads still compared, ` +
      `one migration_op event per read in every run (sent when the background part ended)`,
    `shed: ${fmtInt(capped.read.shed ?? 0)} of ${fmtInt(READS)} reads ran the old store only ` +
      `(stats().read.shed) while ${MAX_IN_FLIGHT} background parts were running`,
  ];
  out.write(lines.map((l) => `  ${l}`).join('\n') + '\n');

  // The OpenTelemetry section checks operations per stage against stats(): count these too.
  const opsByStage = { ...results.opsByStage };
  opsByStage.shadow = (opsByStage.shadow ?? 0) + rows.reduce((n, r) => n + r.read.count, 0);
  return { opsByStage };
}
