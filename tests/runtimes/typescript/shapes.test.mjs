// index.d.ts's hand-written shapes against the objects the packed package really returns:
// Migrator#stats() and LDMigration#stats(), the Big Segments status (getStatus(), lastStatus,
// a listener's argument), BigSegmentStoreManager#stats(), a lookup's answer and the
// BigSegmentsStatus union, ExternalTracker (the methods and arguments a migrator uses on a flag
// answer's tracker), migrationVariation()'s result, OpTracker's methods and the Stage union.
//
// The objects are made by running the package (shapes/observe.mjs); their keys, recursively,
// and their value kinds are written out as type literals, and a generated TypeScript module
// asserts, node by node, that each declared type equals the observed one (exact identity, keys
// in both directions, a key optional exactly when some real object lacked it), which `tsc
// --strict` must compile. A self-check runs the same checks against deliberately wrong types and
// requires tsc to fail on exactly the checks each mistake should break.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bin, describeRun, PACKAGE_DIR, packageMissing, run } from '../common/run.mjs';

const TSC = bin('tsc');
const HERE = fileURLToPath(new URL('./shapes/', import.meta.url));
const LAUNCHDARKLY = fileURLToPath(new URL('../../../node_modules/@launchdarkly', import.meta.url));
const skip =
  packageMissing() ??
  (existsSync(TSC) ? undefined : `typescript is not installed (${TSC})`) ??
  (existsSync(LAUNCHDARKLY) ? undefined : `@launchdarkly/node-server-sdk is not installed (${LAUNCHDARKLY})`);

let obs; // what the package produced
let compiled; // tsc's verdict on both generated modules
let modules; // { declared, selfCheck }: source and line → label of each
let mustFail;
let scratch;

/** `file(line,col): error TSnnnn: message` → [{ file, line, text }] (a message's continuation lines kept). */
function errorsOf(out) {
  const errors = [];
  for (const line of out.split('\n')) {
    const m = /^(.+?)\((\d+),\d+\): error TS\d+: (.*)$/.exec(line);
    if (m) errors.push({ file: m[1], line: Number(m[2]), text: m[3] });
    else if (errors.length > 0 && line.trim()) errors.at(-1).text += `\n${line}`;
  }
  return errors;
}

before(async () => {
  if (skip) return;
  const subjects = await import('./shapes/subjects.mjs');
  const { checkModule } = await import('./shapes/shape.mjs');
  obs = await subjects.observeAll();
  const self = subjects.selfChecks(obs);
  mustFail = self.mustFail;
  modules = {
    declared: checkModule(subjects.IMPORTS, subjects.declaredChecks(obs)),
    selfCheck: checkModule(subjects.IMPORTS, self.checks),
  };
  // A scratch project that sees the packed package (and LaunchDarkly's SDK for its tracker type).
  scratch = mkdtempSync(join(tmpdir(), 'cutover-shapes-'));
  mkdirSync(join(scratch, 'node_modules'));
  symlinkSync(PACKAGE_DIR, join(scratch, 'node_modules/cutover'), 'dir');
  symlinkSync(LAUNCHDARKLY, join(scratch, 'node_modules/@launchdarkly'), 'dir');
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  copyFileSync(join(HERE, 'compare.mts'), join(scratch, 'compare.mts'));
  writeFileSync(join(scratch, 'declared.mts'), modules.declared.source);
  writeFileSync(join(scratch, 'self-check.mts'), modules.selfCheck.source);
  const options = { strict: true, exactOptionalPropertyTypes: true, module: 'nodenext', moduleResolution: 'nodenext',
    target: 'es2022', lib: ['es2022', 'dom'], types: [], noEmit: true, skipLibCheck: true };
  writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['declared.mts', 'self-check.mts'] }));
  const r = await run(TSC, ['-p', 'tsconfig.json', '--pretty', 'false'], { cwd: scratch, timeoutMs: 60_000 });
  const errors = errorsOf(r.stdout);
  compiled = { r, declared: errors.filter((e) => e.file === 'declared.mts'), selfCheck: errors.filter((e) => e.file === 'self-check.mts'),
    other: errors.filter((e) => e.file !== 'declared.mts' && e.file !== 'self-check.mts') };
});

// KEEP_SHAPES=1 keeps the scratch project (the generated modules) and prints where it is.
after(() => {
  if (!scratch) return;
  if (process.env.KEEP_SHAPES) console.error(`shapes: generated checks kept in ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
});

const labelled = (module, errors) => errors.map((e) => `${module.labels.get(e.line) ?? `line ${e.line} (not a check)`}\n  ${e.text}`);

test('the package states one set of stage names, and uses exactly it', { skip }, () => {
  const { names, stages } = obs;
  assert.ok(names.listed.length > 0, `no stage list in fixedStage's refusal: ${names.message}`);
  assert.deepEqual(names.enumValues, names.listed, "LDMigrationStage's values against fixedStage's list");
  // Every listed stage ran (a stage the wasm did not know would have run as the default) and was
  // counted in stats() under its own name, and no other name appeared there.
  assert.deepEqual([...stages].sort(), [...names.listed].sort(), 'the byStage keys of migrators run at each listed stage');
});

test("a migrator reads and calls on a flag client's tracker only methods LaunchDarkly's tracker has", { skip, timeout: 20_000 }, async () => {
  const { inspected, calls, sent } = obs.tracker;
  assert.deepEqual([...calls.keys()].sort(), [...inspected].sort(), 'every name read is a method called');
  assert.ok(sent.length > 0, 'createEvent()\'s events reached trackMigrationOp');
  const { init } = await import('@launchdarkly/node-server-sdk');
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const ld = init('sdk-key-shapes', { offline: true, logger: silent });
  try {
    await ld.waitForInitialization({ timeout: 5 });
    const { tracker } = await ld.migrationVariation('shapes-flag', { kind: 'user', key: 'shapes' }, 'off');
    const missing = [...inspected].filter((name) => typeof tracker[name] !== 'function');
    assert.deepEqual(missing, [], "methods cutover calls that LaunchDarkly's tracker lacks");
  } finally {
    ld.close();
  }
});

test("migrationVariation() hands back cutover's OpTracker or the answer's own tracker; lookups answer maps or null", { skip }, () => {
  assert.deepEqual([...new Set(obs.variations.map((v) => v.tracker))].sort(), ['ExternalTracker', 'OpTracker']);
  assert.deepEqual([...new Set(obs.answers.map((a) => a.membership))].sort(), ['frozen map of booleans', 'null']);
});

test('OpTracker is not an ExternalTracker: its method names differ (recorded, not a defect of the types)', { skip }, () => {
  // The declared OpTracker methods are checked against its prototype in the tsc run; this pins
  // down that an OpTracker handed back as a flag answer's tracker lacks the methods a migrator
  // calls, so the difference is noticed if either side changes.
  const lacking = [...obs.tracker.calls.keys()].filter((name) => !obs.opTrackerMethods.includes(name)).sort();
  assert.deepEqual(lacking, ['consistency', 'createEvent', 'op']);
});

test("index.d.ts's declared shapes equal the real objects' (tsc --strict on the generated checks)", { skip, timeout: 60_000 }, () => {
  assert.deepEqual(compiled.other, [], describeRun(compiled.r));
  // tsc really checked the modules: it reported the self-check's planted mistakes.
  assert.ok(compiled.selfCheck.length > 0 && compiled.r.signal === null, describeRun(compiled.r));
  const failed = labelled(modules.declared, compiled.declared);
  assert.equal(failed.length, 0, `declared and observed shapes differ:\n${failed.join('\n')}`);
  assert.ok(modules.declared.labels.size > 100, `${modules.declared.labels.size} checks`);
});

test('self-check: tsc fails on exactly the checks that each deliberately wrong declaration breaks', { skip, timeout: 60_000 }, () => {
  const failed = new Set(compiled.selfCheck.map((e) => modules.selfCheck.labels.get(e.line) ?? `line ${e.line}`));
  assert.deepEqual([...failed].sort(), [...mustFail].sort(), labelled(modules.selfCheck, compiled.selfCheck).join('\n'));
  // tsc's message names what differs, e.g. the key a declaration has and the objects lack.
  const keys = compiled.selfCheck.find((e) => modules.selfCheck.labels.get(e.line) === 'mistake: counters: keys');
  assert.match(keys.text, /declaredButNeverSeen: "bogus"; seenButNotDeclared: "statusErrors"/);
});
