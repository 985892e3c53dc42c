// `npm run fuzz`: fuzzes cutover's whole JavaScript surface with fast-check.
//
//   node --unhandled-rejections=strict fuzz/run.mjs [--cases N] [--seed S] [--only NAME] [--shrink-ms T] [--tame] [--background] [--differences] [--guard]
//
// Runs the properties of tests/hardening/helpers/properties.mjs (≥ 100 000 generated cases by
// default) against the repo's dist/ (self-reference 'cutover'), loaded through `require` so a
// trapped wasm instance can be replaced by a fresh one and the run can go on. Prints per-property
// counts, every distinct failure (shrunk counterexample, seed), and a final line
//   fuzz: N cases, T traps, U unhandled rejections
// Exit code 1 on any failure.
//
// The default run includes background mode's properties (helpers/background.mjs: maxInFlight,
// shedding, settled(), waitUntil, hostile and re-entrant origins, createMigration's
// `background`); `--background` runs only those, splitting N between them in their shares' ratio.
// Likewise the structural walk's two (helpers/differences.mjs: sameStructure() and mismatches()
// over random JSON and hostile values: throwing getters and proxies, revoked proxies, 10,000-deep
// chains, cycles, 10,000-key objects, sparse arrays, symbols, BigInts, Dates, NaN, -0) and
// `--differences`. And the guard's two (helpers/guard.mjs: guard() options valid and not, and
// streams of random outcomes on 1–3 flag keys at random stages with a hostile onChange that
// throws, re-enters, returns rejecting or never-settling promises) and `--guard`.
import { createRequire } from 'node:module';

import { BACKGROUND_PROPERTIES, coverage } from '../tests/hardening/helpers/background.mjs';
import { DIFFERENCES_PROPERTIES, coverage as walked } from '../tests/hardening/helpers/differences.mjs';
import { GUARD_PROPERTIES, coverage as guarded } from '../tests/hardening/helpers/guard.mjs';
import { PROPERTIES } from '../tests/hardening/helpers/properties.mjs';
import { canary, fuzzProperty, makeState, moduleLoader, muteConsole } from '../tests/hardening/helpers/harness.mjs';

const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
};
const totalCases = Number(arg('cases', 110000));
const seed = Number(arg('seed', Date.now() % 2 ** 31));
const only = arg('only', undefined);
const shrinkMs = Number(arg('shrink-ms', 4000));
const tame = argv.includes('--tame'); // leave out the known bug families' inputs (see hostile.mjs)
const backgroundOnly = argv.includes('--background');
const isBackground = (prop) => BACKGROUND_PROPERTIES.some((p) => p.prop === prop);
const backgroundShare = BACKGROUND_PROPERTIES.reduce((sum, p) => sum + p.share, 0);
const differencesOnly = argv.includes('--differences');
const isDifferences = (prop) => DIFFERENCES_PROPERTIES.some((p) => p.prop === prop);
const differencesShare = DIFFERENCES_PROPERTIES.reduce((sum, p) => sum + p.share, 0);
const guardOnly = argv.includes('--guard');
const isGuard = (prop) => GUARD_PROPERTIES.some((p) => p.prop === prop);
const guardShare = GUARD_PROPERTIES.reduce((sum, p) => sum + p.share, 0);

const require = createRequire(import.meta.url);
const loader = moduleLoader(require);
process.on('exit', () => loader.dispose());
await canary(loader.current);

const state = makeState(loader, { tame });
const restoreConsole = muteConsole();
const started = performance.now();
const report = [];
let generated = 0;
try {
  for (const { prop, share } of [...PROPERTIES, ...GUARD_PROPERTIES]) {
    if (only && !prop.name.toLowerCase().includes(only.toLowerCase())) continue;
    if (backgroundOnly && !isBackground(prop)) continue;
    if (differencesOnly && !isDifferences(prop)) continue;
    if (guardOnly && !isGuard(prop)) continue;
    const portion = only
      ? 1
      : backgroundOnly
        ? share / backgroundShare
        : differencesOnly
          ? share / differencesShare
          : guardOnly
            ? share / guardShare
            : share;
    const numRuns = Math.max(1, Math.round(totalCases * portion));
    const t0 = performance.now();
    const stats = await fuzzProperty(prop, { numRuns, seed, state, shrinkMs });
    stats.ms = performance.now() - t0;
    generated += stats.runs;
    report.push(stats);
    process.stdout.write(
      `${prop.name.padEnd(40)} ${String(stats.runs).padStart(7)} cases ${String(Math.round(stats.ms)).padStart(7)} ms` +
        `  failures: ${stats.failures.length} distinct, ${stats.occurrenceCount} cases${prop.todo ? ` (todo: ${prop.todo})` : ''}\n`,
    );
  }
} finally {
  const muted = restoreConsole();
  state.watch.dispose();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const failures = report.flatMap((r) => r.failures);
  for (const f of failures) {
    console.log(`\nFAILURE ${f.signature}\n  kind: ${f.kind}\n  ${f.message.slice(0, 600)}\n  counterexample: ${f.counterexample.slice(0, 2000)}\n  replay: seed ${f.seed}, path ${JSON.stringify(f.path)}`);
  }
  const c = state.counts;
  console.log(
    `\n${state.executed} executions in ${seconds} s (incl. shrinking), seed ${seed}${tame ? ' (tame)' : ''}${backgroundOnly ? ' (background only)' : ''}${differencesOnly ? ' (differences only)' : ''}${guardOnly ? ' (guard only)' : ''}, wasm instances loaded: ${loader.loads}, console lines muted: ${muted}`,
  );
  console.log(
    `other violations: ${c['non-error']} non-Error throws, ${c.hang} hangs, ${c.contract} contract, ${c.broken} broken-after, ${c.uncaught} uncaught exceptions`,
  );
  if (coverage.cases + coverage.bursts > 0) {
    const b = coverage;
    console.log(
      `background: ${b.cases} random cases (${b.exact} with exact bookkeeping checks): ${b.ops} operations, ${b.parts} background origin calls, ` +
        `${b.shed} shed, ${b.reentries} re-entrant calls, ${b.earlyAborts} early aborts, ${b.waitUntilCalls} waitUntil calls, ` +
        `in-flight peak at maxInFlight in ${b.peakAtLimit}; ${b.bursts} bursts of ${b.burstOps} operations`,
    );
  }
  if (walked.comparisons + walked.reads > 0) {
    const w = walked;
    console.log(
      `differences: ${w.comparisons} sameStructure calls (${w.jsonPairs} JSON pairs, ${w.hostilePairs} hostile), ${w.reads} reads with mismatches(), ` +
        `${w.stringifyChecked} held to JSON.stringify, ${w.explained} explained (${w.referenceChecked} against the reference walk), ${w.differences} differences, ${w.truncated} truncated, ` +
        `kinds seen: ${[...w.kinds].sort().join('/') || 'none'}, slowest call ${w.slowestMs.toFixed(1)} ms`,
    );
  }
  if (guarded.cases > 0) {
    const g = guarded;
    console.log(
      `guard: ${g.cases} stream cases, ${g.ops} operations (${g.aborted} aborted), changes seen by onChange: ${g.trips} trips, ${g.probes} to probing, ` +
        `${g.recoveries} recoveries; ${g.trippedReadsChecked} tripped reads checked for no new-origin call, ${g.reentries} re-entrant onChange calls`,
    );
  }
  console.log(`fuzz: ${generated} cases, ${c.trap} traps, ${c.unhandled} unhandled rejections`);
  const bad = Object.values(c).some((n) => n > 0) || failures.length > 0;
  process.exitCode = bad ? 1 : 0;
  // Abandoned-by-design cases (never-settling stores, pollers of dead instances) may leave
  // timers behind; report what is left, then exit rather than wait for them.
  const left = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
  if (left.length) console.log(`active resources at exit: ${JSON.stringify(Object.fromEntries([...new Set(left)].map((r) => [r, left.filter((x) => x === r).length])))}`);
  if (process.env.FUZZ_DEBUG_TIMERS) {
    const timers = process._getActiveHandles().filter((h) => h.constructor.name === 'Timeout');
    console.log(timers.map((t) => `${t._idleTimeout}ms ${t.hasRef() ? 'ref' : 'unref'} ${String(t._onTimeout).slice(0, 80).replace(/\s+/g, ' ')}`).join('\n'));
  }
  setTimeout(() => process.exit(), 0).unref();
}
