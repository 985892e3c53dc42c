// Shadow read, parallel, with a context of 10,000 attributes: does the cost grow with the context?
// cutover through a plain flag client that takes its events; LaunchDarkly through createMigration.
// Both sides also time the same read with a {kind, key} context in the same process (turns of 2000 reads
// each), and report the 10k ÷ 0 ratio (target for cutover: ≤ 1.5).
import { FLAG_KEY, PAYLOAD, ldClientWithStage, loadCutover, loadLD, timeAsyncInterleaved } from '../lib/common.mjs';
import { cutoverMigrator, ldMigrator, plainClient, sanity, sanityEvent } from '../lib/migration.mjs';

const ATTRIBUTES = 10_000;
const STAGE = 'shadow';

/** { kind, key, a0 … a(n-1) }: integers, decimals, short strings, and every 1000th an array or object. */
export function bigContext(n = ATTRIBUTES) {
  const ctx = { kind: 'user', key: 'u1' };
  for (let i = 0; i < n; i++) {
    ctx[`a${i}`] =
      i % 1000 === 500 ? [i, `s${i}`, true]
      : i % 1000 === 999 ? { n: i, s: `s${i}`, ok: i % 2 === 0 }
      : i % 3 === 0 ? i
      : i % 3 === 1 ? `s${i}`
      : i + 0.5;
  }
  return ctx;
}
// Not frozen, like the big one: the two differ only in their attributes.
const SMALL = { kind: 'user', key: 'u1' };
// Turns of 2000 reads (LaunchDarkly's: 15 ms), 16 measured turns of each context per side and round.
const TURNS = { turnOps: 2000, turns: 16, warmupTurns: 6, settleTurns: 2 };

export const meta = {
  unit: 'µs/op',
  note:
    `shadow read, parallel, one context of ${ATTRIBUTES} attributes (integers, decimals, short strings, ` +
    `${ATTRIBUTES / 500} arrays/objects), the same object every op. cutover: a plain client ` +
    "{ migrationVariation: () => 'shadow', trackMigrationOp(event) (counts) }; LD: createMigration " +
    '(LDConcurrentExecution) at shadow from a TestData flag (checkRatio 1); origins async (p) => p ' +
    '(LD: LDMigrationSuccess(p)); comparison a === b. Each side also times the read with {kind, key} ' +
    '(us0Attrs), in turns of 2000 reads with the big one in the same process (a young-generation GC, untimed, before each turn); ' +
    'ratio10kTo0 = big ÷ small. ' +
    'Target: cutover ratio10kTo0 ≤ 1.5',
  figures: [
    { key: 'us0Attrs', label: 'cutover, same read with {kind, key}', unit: 'µs/op' },
    { key: 'ratio10kTo0', label: `cutover, ${ATTRIBUTES} attributes ÷ {kind, key}`, max: 1.5 },
    { key: 'us0Attrs', side: 'launchdarkly', label: 'LD, same read with {kind, key}', unit: 'µs/op' },
    { key: 'ratio10kTo0', side: 'launchdarkly', label: `LD, ${ATTRIBUTES} attributes ÷ {kind, key}` },
  ],
};

const pair = ([small, big]) => ({ us0Attrs: small.usPerOp, ratio10kTo0: big.usPerOp / small.usPerOp, ops: big.ops, ops0Attrs: small.ops });

export async function cutover() {
  const c = await loadCutover();
  const big = bigContext();
  const { client, events } = plainClient(STAGE);
  const m = cutoverMigrator(c, client, 'parallel');
  sanity('read', await m.read(FLAG_KEY, big, 'off', PAYLOAD), 'value');
  sanityEvent(events, { stage: STAGE, op: 'read', context: big });
  const sameContext = events.first.context === big;
  const r = await timeAsyncInterleaved([
    () => m.read(FLAG_KEY, SMALL, 'off', PAYLOAD),
    () => m.read(FLAG_KEY, big, 'off', PAYLOAD),
  ], TURNS);
  const s = m.stats().read;
  return {
    value: r[1].usPerOp,
    info: { ...pair(r), eventsPerOp: events.count / s.count, consistencyChecked: s.consistency.checked, eventContextIsCallersObject: sameContext },
  };
}

export async function launchdarkly() {
  const ld = await loadLD();
  const big = bigContext();
  const { client } = await ldClientWithStage(ld, STAGE);
  const m = ldMigrator(ld, client, 'parallel');
  sanity('read', await m.read(FLAG_KEY, big, ld.LDMigrationStage.Off, PAYLOAD), 'result');
  const r = await timeAsyncInterleaved([
    () => m.read(FLAG_KEY, SMALL, ld.LDMigrationStage.Off, PAYLOAD),
    () => m.read(FLAG_KEY, big, ld.LDMigrationStage.Off, PAYLOAD),
  ], TURNS);
  client.close();
  return { value: r[1].usPerOp, info: pair(r) };
}
