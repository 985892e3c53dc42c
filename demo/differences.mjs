// What the mismatches were: a shadow read whose new store differs from the old one in two known
// ways, compared with `sameStructure()` and explained by `.mismatches({ keep: 5 })`. The new
// store's clock runs ahead (`/updatedAt` differs on most reads: noise), and its backfill rounded
// the prices of one record in eight (`/items/*/price`: a real bug). The second run ignores the noise.

import { MigratorBuilder, sameStructure } from 'cutover';
import { SimulatedStore } from './stores.mjs';
import { StageSwitch } from './stage-switch.mjs';
import { runWorkload } from './workload.mjs';
import { createProgress } from './progress.mjs';
import { createTable } from './table.mjs';

const FLAG = 'kv-store-migration';
const KEYS = 200;
const READS = 300; // per run
const CONCURRENCY = 8;
const KEEP = 5;
const DRIFT_RATE = 0.9; // reads where the new store's updatedAt is ahead of the old one's
const ROUNDED_EVERY = 8; // one record in eight has its prices rounded in the new store

const RUNS = [
  { label: 'sameStructure()', ignore: undefined },
  { label: "sameStructure({ ignore: ['/updatedAt'] })", ignore: ['/updatedAt'] },
];

const keyOf = (i) => `user:${String(i).padStart(4, '0')}`;
const fmtInt = (n) => n.toLocaleString('en-US');
const fmtPct = (x) => `${(100 * x).toFixed(1)}%`;
const fmtValue = (v) => (v === undefined ? '∅' : JSON.stringify(v));

function record(i, now) {
  const items = [];
  for (let j = 0; j < 1 + (i % 3); j++) items.push({ sku: `SKU-${100 + ((i + j * 7) % 50)}`, price: 4 + ((i * 3 + j * 5) % 20) + 0.99, qty: 1 + (j % 2) });
  return { id: keyOf(i), plan: i % 3 ? 'free' : 'pro', version: 1 + (i % 4), updatedAt: new Date(now - i * 60_000).toISOString(), items };
}

/** The old store, and a new one that differs from it at /updatedAt and /items/*\/price. */
function stores() {
  const now = Date.parse('2026-12-01T09:30:00.000Z');
  const old = new SimulatedStore({ name: 'legacy store', latencyMs: [1, 2] });
  const fresh = new SimulatedStore({ name: 'new store', latencyMs: [1, 3] });
  for (let i = 0; i < KEYS; i++) {
    const r = record(i, now);
    old.data.set(r.id, r);
    fresh.data.set(r.id, i % ROUNDED_EVERY ? structuredClone(r) : { ...r, items: r.items.map((it) => ({ ...it, price: Math.round(it.price) })) });
  }
  const readNew = async (key) => {
    const r = await fresh.get(key);
    if (!r || Math.random() >= DRIFT_RATE) return r;
    const aheadMs = 200 + Math.floor(Math.random() * 2800);
    return { ...r, updatedAt: new Date(Date.parse(r.updatedAt) + aheadMs).toISOString() };
  };
  return {
    readOld: (key) => old.get(key),
    readNew,
    writeOld: ({ key, record: r }) => old.set(key, r),
    writeNew: ({ key, record: r }) => fresh.set(key, r),
  };
}

async function runOnce({ ignore }, { meter, progress, label }) {
  const { readOld, readNew, writeOld, writeNew } = stores();
  const flags = new StageSwitch();
  flags.set('shadow');
  let example;
  const migrator = new MigratorBuilder(flags)
    .read(readOld, readNew, sameStructure(ignore ? { ignore } : undefined))
    .write(writeOld, writeNew) // required by build(); this section only reads
    // onMismatch sees every explained mismatch: it keeps the fullest one for the example.
    .mismatches({ keep: KEEP, onMismatch: (m) => { if (m.differences.length > (example?.differences.length ?? 0)) example = m; } })
    .meter(meter)
    .build();
  progress.start(label, READS);
  await runWorkload({
    total: READS,
    concurrency: CONCURRENCY,
    onProgress: progress.update,
    operation: async () => {
      const n = Math.floor(Math.random() * KEYS);
      await migrator.read(FLAG, { kind: 'user', key: `u${n}` }, 'off', keyOf(n));
    },
  });
  progress.clear();
  const { read } = migrator.stats();
  return { read, kept: migrator.mismatches(), example };
}

function printPaths(out, style, { read }) {
  const { checked, consistent, paths } = read.consistency;
  const mismatched = checked - consistent;
  const table = createTable([
    { title: 'path', width: 18, align: 'left' },
    { title: 'mismatches', width: 10 },
    { title: 'share', width: 6 },
  ], style, { indent: '    ' });
  out.write(`${table.header()}\n${table.rule()}\n`);
  const rows = Object.entries(paths).sort(([, a], [, b]) => b - a);
  for (const [path, count] of rows) {
    out.write(table.row([style.cyan(path), fmtInt(count), mismatched ? fmtPct(count / mismatched) : '—']) + '\n');
  }
  if (!rows.length) out.write(style.dim('    (no differences)') + '\n');
  out.write(`${table.rule()}\n`);
  out.write(style.dim(`    ${fmtInt(mismatched)} of ${fmtInt(checked)} compared reads mismatched; share: of the mismatches ` +
    '(one can differ at several paths)') + '\n');
}

function printExample(out, style, { kept, example: m }) {
  if (!m) return;
  const pathWidth = Math.max(...m.differences.map((d) => d.path.length));
  out.write(`    ${style.bold('example')} ${style.dim(`(from onMismatch; mismatches() holds the last ${kept.length}):`)} ` +
    `${m.old?.id ?? '?'} · context ${m.context.key} · ${m.stage} · ` +
    `${m.differences.length} difference${m.differences.length === 1 ? '' : 's'}${m.truncated ? ' (truncated)' : ''}\n`);
  for (const d of m.differences) {
    out.write(`      ${style.cyan(d.path.padEnd(pathWidth))}  ${d.kind.padEnd(7)}  ${style.red(fmtValue(d.old))} → ${style.green(fmtValue(d.new))}\n`);
  }
}

export async function runDifferencesSection({ out, style, meter, results }) {
  out.write(
    `${style.bold('What the mismatches were')}  ` +
      style.dim(`flag "${FLAG}" at shadow, ${READS} reads per run, .mismatches({ keep: ${KEEP} })`) + '\n' +
      style.dim(`  new store: its clock runs ahead on ${DRIFT_RATE * 100}% of reads (/updatedAt), and its backfill rounded ` +
        `the prices of 1 record in ${ROUNDED_EVERY} (/items/*/price)`) + '\n' +
      style.dim('  paths: stats().read.consistency.paths, array indices as *') + '\n',
  );
  const progress = createProgress({ style });
  const runs = [];
  for (const run of RUNS) {
    const r = await runOnce(run, { meter, progress, label: run.ignore ? 'ignore' : 'compare' });
    runs.push(r);
    out.write(`\n  ${style.bold(run.label)}\n`);
    printPaths(out, style, r);
    if (!run.ignore) printExample(out, style, r);
  }

  const [all, quiet] = runs;
  const top = Object.entries(all.read.consistency.paths).sort(([, a], [, b]) => b - a)[0]?.[0];
  const quietPaths = Object.keys(quiet.read.consistency.paths);
  const quietMismatches = quiet.read.consistency.checked - quiet.read.consistency.consistent;
  const ok = style.green('✓');
  const bad = style.red('✗');
  out.write('\n' + [
    `${top === '/updatedAt' && '/items/*/price' in all.read.consistency.paths ? ok : bad} both kinds found: ` +
      `${top ?? 'nothing'} on most mismatches, /items/*/price on the rest`,
    `${quietPaths.length === 1 && quietPaths[0] === '/items/*/price' && quiet.read.consistency.paths['/items/*/price'] === quietMismatches ? ok : bad} ` +
      `ignoring /updatedAt leaves the price bug alone: ${fmtInt(quietMismatches)} of ${fmtInt(quiet.read.consistency.checked)} reads ` +
      `mismatched (${fmtPct(quietMismatches / quiet.read.consistency.checked)}, the rounded records' share ≈ ${fmtPct(1 / ROUNDED_EVERY)})`,
  ].map((l) => `  ${l}`).join('\n') + '\n');

  const opsByStage = { ...results.opsByStage };
  opsByStage.shadow = (opsByStage.shadow ?? 0) + runs.reduce((n, r) => n + r.read.count, 0);
  return { opsByStage };
}
