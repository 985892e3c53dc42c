// Fresh process: from before the import to the first read's result.
import { performance } from 'node:perf_hooks';

export const meta = {
  unit: 'ms',
  note:
    "cutover: import 'cutover' + MigratorBuilder(fixedStage('shadow')) + first shadow read; LD: import " +
    "@launchdarkly/node-server-sdk + init(TestData) + waitForInitialization + createMigration + first shadow read. " +
    'Timed inside the child from before the import (Node bootstrap excluded, same for both). ' +
    'cutover/migrations: the same on dist/migrations/migrations.node.mjs (its own, smaller wasm), in the same rounds',
  figures: [
    { key: 'value', side: 'migrations', label: 'cutover/migrations: import + first shadow read', unit: 'ms' },
    { key: 'importMs', side: 'migrations', label: 'cutover/migrations: the import alone', unit: 'ms' },
    { key: 'importMs', label: 'cutover (full entry): the import alone', unit: 'ms' },
    // Issue 23's target: the migrations entry starts no slower than the full one, same run.
    { key: 'ratio', ratioOf: ['migrations', 'cutover'], label: 'cutover/migrations ÷ full entry, import + first read', max: 1.0 },
  ],
};

const MIGRATIONS_ENTRY = new URL('../../dist/migrations/migrations.node.mjs', import.meta.url).href;

export function cutover() {
  return firstRead(process.env.BENCH_CUTOVER_MODULE || 'cutover'); // see bench/lib/common.mjs
}

/** The same on the cutover/migrations entry (loaded from dist/, as the full one is through BENCH_CUTOVER_MODULE or the package). */
export function migrations() {
  return firstRead(MIGRATIONS_ENTRY);
}

async function firstRead(entry) {
  const t0 = performance.now();
  const c = await import(entry);
  const tImport = performance.now();
  const m = new c.MigratorBuilder(c.fixedStage('shadow'))
    .read(async (p) => p, async (p) => p, (a, b) => a === b)
    .write(async (p) => p, async (p) => p)
    .build();
  const r = await m.read('migration', { kind: 'user', key: 'user-1' }, 'off', 'payload');
  const t1 = performance.now();
  if (r.value !== 'payload') throw new Error('bad read');
  return { value: t1 - t0, info: { importMs: tImport - t0, sinceProcessStartMs: t1 } };
}

export async function launchdarkly() {
  const t0 = performance.now();
  const mod = await import('@launchdarkly/node-server-sdk');
  const ld = mod.init ? mod : mod.default;
  const tImport = performance.now();
  const td = new ld.integrations.TestData();
  td.update(td.flag('migration').variations('off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete')
    .fallthroughVariation(2).on(true));
  const client = ld.init('sdk-key', { updateProcessor: td.getFactory(), sendEvents: false, diagnosticOptOut: true });
  await client.waitForInitialization({ timeout: 10 });
  const ok = async (p) => ld.LDMigrationSuccess(p);
  const m = ld.createMigration(client, {
    readOld: ok, readNew: ok, writeOld: ok, writeNew: ok, check: (a, b) => a === b,
    execution: new ld.LDConcurrentExecution(),
  });
  const r = await m.read('migration', { kind: 'user', key: 'user-1' }, 'off', 'payload');
  const t1 = performance.now();
  if (r.result !== 'payload') throw new Error('bad read');
  client.close();
  return { value: t1 - t0, info: { importMs: tImport - t0, sinceProcessStartMs: t1 } };
}
