// The main story: move a key-value service from the legacy store to the new store, one stage at a
// time, and watch what cutover measures at each stage.

import { MigratorBuilder } from 'cutover';
import { legacyStore, newStore } from './stores.mjs';
import { StageSwitch, STAGES } from './stage-switch.mjs';
import { runWorkload } from './workload.mjs';
import { createProgress } from './progress.mjs';
import { createTable } from './table.mjs';

const FLAG = 'kv-store-migration';
const KEYS = 200;
const OPS_PER_STAGE = 2000;
const READ_SHARE = 0.8;
const CONCURRENCY = 4;

const keyOf = (i) => `user:${String(i).padStart(4, '0')}`;
const sameRecord = (a, b) => a?.version === b?.version && a?.plan === b?.plan;

const fmtInt = (n) => n.toLocaleString('en-US');
const fmtMs = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
const fmtPct = (x) => `${(100 * x).toFixed(1)}%`;

function latencyCell(origin, style) {
  const l = origin.latencyMs;
  return l ? `${fmtMs(l.p50)} / ${fmtMs(l.p99)}` : style.dim('—');
}

/** Runs the six stages and prints one table row per stage. */
export async function runMigrationSection({ out, style, meter }) {
  const legacy = legacyStore();
  const fresh = newStore();
  for (let i = 0; i < KEYS; i++) legacy.data.set(keyOf(i), { plan: 'free', version: 1 });

  const flags = new StageSwitch();
  const migrator = new MigratorBuilder(flags)
    .read(
      (key) => legacy.get(key),
      (key) => fresh.get(key),
      sameRecord, // cutover runs it on shadow/live reads when both stores answered
    )
    .write(
      ({ key, record }) => legacy.set(key, record),
      ({ key, record }) => fresh.set(key, record),
    )
    .meter(meter) // OpenTelemetry: see the last section
    .build();

  out.write(
    `${style.bold('Technology migration')}  ${style.dim(`flag "${FLAG}", ${KEYS} keys`)}\n` +
      style.dim(`  workload: ${fmtInt(OPS_PER_STAGE)} ops per stage, ${READ_SHARE * 100}% reads, ` +
        `${CONCURRENCY} concurrent clients`) + '\n' +
      style.dim('  old: legacy store (Map), 2–4 ms, 1% slow queries of 8–14 ms') + '\n' +
      style.dim('  new: new store (Map), 0.5–1.5 ms, 2% stale reads, 0.3% errors') + '\n\n',
  );

  const table = createTable([
    { title: 'stage', width: 9, align: 'left' },
    { title: 'reads', width: 5 },
    { title: 'writes', width: 6 },
    { title: 'old p50/p99 ms', width: 14 },
    { title: 'new p50/p99 ms', width: 14 },
    { title: 'consistent', width: 10 },
    { title: 'errors o/n', width: 10 },
    { title: 'failed', width: 6 },
    { title: 'events', width: 6 },
  ], style);
  out.write(`${table.header()}\n${table.rule()}\n`);

  const progress = createProgress({ style });
  const totals = { ops: 0, events: 0, checked: 0, consistent: 0, newErrors: 0, failed: 0, staleCompared: 0 };
  const readLatency = {}; // stage → stats().read, for the summary
  const opsByStage = {}; // stage → operations stats() counted

  for (const stage of STAGES) {
    flags.set(stage);
    const eventsBefore = flags.events;
    const staleBefore = fresh.injected.staleReads;
    let failed = 0; // failures the callers saw (authoritative origin failed)
    progress.start(stage, OPS_PER_STAGE);

    await runWorkload({
      total: OPS_PER_STAGE,
      concurrency: CONCURRENCY,
      onProgress: progress.update,
      operation: async () => {
        const n = Math.floor(Math.random() * KEYS);
        const context = { kind: 'user', key: `u${n}` };
        const key = keyOf(n);
        if (Math.random() < READ_SHARE) {
          const r = await migrator.read(FLAG, context, 'off', key);
          if (!r.success) failed++;
        } else {
          const current = legacy.data.get(key) ?? fresh.data.get(key);
          const record = { plan: Math.random() < 0.5 ? 'free' : 'pro', version: (current?.version ?? 0) + 1 };
          const w = await migrator.write(FLAG, context, 'off', { key, record });
          if (!w.authoritative.success) failed++;
        }
      },
    });

    progress.clear();
    const s = migrator.stats();
    migrator.resetStats();
    const events = flags.events - eventsBefore;
    const errOld = s.read.old.errors + s.write.old.errors;
    const errNew = s.read.new.errors + s.write.new.errors;
    const { checked, consistent } = s.read.consistency;
    const rate = checked ? consistent / checked : undefined;
    const rateCell = rate === undefined ? style.dim('—')
      : rate >= 0.995 ? style.green(fmtPct(rate)) : rate >= 0.95 ? style.yellow(fmtPct(rate)) : style.red(fmtPct(rate));
    const errCell = `${errOld} / ${errNew}`;

    out.write(table.row([
      style.bold(stage),
      fmtInt(s.read.count),
      fmtInt(s.write.count),
      latencyCell(s.read.old, style),
      latencyCell(s.read.new, style),
      rateCell,
      errOld + errNew ? style.yellow(errCell) : style.dim(errCell),
      failed ? style.red(String(failed)) : style.dim('0'),
      fmtInt(events),
    ]) + '\n');

    if (stage === 'dualwrite') {
      // Dual writes keep new records in sync from now on; copy everything older before reading.
      const copied = fresh.copyFrom(legacy);
      out.write(style.dim(`  ↳ backfill: copied ${copied} records from the legacy store to the new store`) + '\n');
    }

    readLatency[stage] = s.read;
    opsByStage[stage] = s.read.count + s.write.count;
    totals.ops += s.read.count + s.write.count;
    totals.events += events;
    totals.checked += checked;
    if (checked) totals.staleCompared += fresh.injected.staleReads - staleBefore;
    totals.consistent += consistent;
    totals.newErrors += errNew;
    totals.failed += failed;
  }

  out.write(`${table.rule()}\n`);
  summarize({ out, style, totals, readLatency });
  return { opsByStage };
}

function summarize({ out, style, totals, readLatency }) {
  const ok = style.green('✓');
  const lines = [];
  const oldP50 = readLatency.off.old.latencyMs?.p50;
  const newP50 = readLatency.complete.new.latencyMs?.p50;
  if (oldP50 && newP50) {
    lines.push(`reads: p50 ${fmtMs(oldP50)} ms on the legacy store → ${fmtMs(newP50)} ms on the new store ` +
      `(${(oldP50 / newP50).toFixed(1)}× faster)`);
  }
  if (totals.checked) {
    lines.push(`consistency: ${fmtInt(totals.consistent)} of ${fmtInt(totals.checked)} compared reads agreed ` +
      `(${fmtPct(totals.consistent / totals.checked)})`);
    const disagreed = totals.checked - totals.consistent;
    lines.push(disagreed >= totals.staleCompared
      ? `  ${disagreed} disagreed: ${totals.staleCompared} injected stale reads, ` +
        `${disagreed - totals.staleCompared} raced a dual write`
      : `  ${totals.staleCompared} stale reads were injected`);
  }
  lines.push(`errors: ${totals.newErrors} on the new store, ${totals.failed} reached callers ` +
    `(only where the new store was authoritative)`);
  const eventsOk = totals.events === totals.ops;
  lines.push(`${eventsOk ? ok : style.red('✗')} ${fmtInt(totals.events)} migration_op events for ` +
    `${fmtInt(totals.ops)} operations`);
  out.write(lines.map((l) => `  ${l}`).join('\n') + '\n');
}
