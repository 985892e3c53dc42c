// Guardrails (issue 30): `live`, 10 reads in flight, the new origin fails every call from a known
// moment on, then heals. Counts, not times: how many errors reach callers after the failure
// starts without and with `.guard()` (defaults), whether a steady 2 % error rate trips a guard
// over 100,000 reads, and how many reads after the cooldown it takes to close again.
import { CONTEXT, FLAG_KEY, PAYLOAD, cutoverOrigin, loadCutover, scaled } from '../lib/common.mjs';

const IN_FLIGHT = 10;
const BUSY_READS = 20_000; // a busy window before the failure: 20,000 healthy calls in it
const FAILING_READS = 2_000;
const STEADY_READS = 100_000;
const COOLDOWN_MS = 50; // shortened (default 30 s); every other option at its default
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

export const meta = {
  unit: 'calls',
  note:
    `fixedStage('live'), ${IN_FLIGHT} reads in flight; ${BUSY_READS} healthy reads fill the window, then the new origin ` +
    `fails every call for ${FAILING_READS} reads; guard() with its defaults (cooldownMs ${COOLDOWN_MS} for the healing part)`,
  figures: [
    { key: 'value', label: 'errors reaching callers after the failure starts, with guard() (≤ maxConsecutiveErrors + reads in flight)', max: 30 },
    { key: 'errorsWithout', label: `the same without guard() (every read of the ${FAILING_READS})` },
    { key: 'falseTrips', label: `trips with a steady 2 % error rate over ${STEADY_READS} reads`, max: 0 },
    { key: 'readsToClose', label: 'reads after the cooldown until closed again (minCalls × probeRatio = 1,000)' },
  ],
};

/** `total` reads, `IN_FLIGHT` at a time; resolves with how many came back failed. */
async function reads(migrator, total) {
  let started = 0;
  let failed = 0;
  const client = async () => {
    while (started < total) {
      started++;
      const r = await migrator.read(FLAG_KEY, CONTEXT, 'off', PAYLOAD);
      if (!r.success) failed++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, client));
  return failed;
}

function migrator(c, newOrigin, guard) {
  const builder = new c.MigratorBuilder(c.fixedStage('live'), { logger: quiet })
    .read(cutoverOrigin, newOrigin)
    .write(cutoverOrigin, cutoverOrigin);
  if (guard) builder.guard(guard === true ? undefined : guard);
  return builder.build();
}

async function failover(c, guard) {
  let failing = false;
  const m = migrator(c, async (p) => (failing ? Promise.reject(new Error('new store down')) : p), guard);
  await reads(m, scaled(BUSY_READS));
  failing = true;
  return reads(m, scaled(FAILING_READS));
}

export async function cutover() {
  const c = await loadCutover();
  const errorsWithout = await failover(c, false);
  const errorsWith = await failover(c, true);

  // A steady 2 % error rate, each call failing at random, no outage.
  const steady = migrator(c, async (p) => (Math.random() < 0.02 ? Promise.reject(new Error('2 %')) : p), true);
  await reads(steady, scaled(STEADY_READS));
  const falseTrips = steady.stats().guard.trips;

  let failing = true;
  const healing = migrator(c, async (p) => (failing ? Promise.reject(new Error('down')) : p), { cooldownMs: COOLDOWN_MS });
  await reads(healing, 10);
  if (healing.guard(FLAG_KEY).state !== 'tripped') throw new Error('the healing migrator did not trip');
  failing = false;
  await new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS + 5));
  let readsToClose = 0;
  while (healing.guard(FLAG_KEY).state !== 'closed' && readsToClose < 100_000) {
    await healing.read(FLAG_KEY, CONTEXT, 'off', PAYLOAD);
    readsToClose++;
  }
  return { value: errorsWith, info: { errorsWithout, falseTrips, readsToClose } };
}
