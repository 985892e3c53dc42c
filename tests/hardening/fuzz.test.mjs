// The fuzz in a short profile (`npm test`): every property of helpers/properties.mjs with its
// share of 2 500 generated cases (at least 20), fixed seed, against the packed build; background
// mode's three (helpers/background.mjs) and the guard's two (helpers/guard.mjs) included. The full run (≥ 100 000
// cases, random seed) is `npm run fuzz`. A failure lists each distinct violation once, shrunk,
// with its counterexample (recipes: see helpers/hostile.mjs) and the seed/path to replay it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { GUARD_PROPERTIES } from './helpers/guard.mjs';
import { PROPERTIES } from './helpers/properties.mjs';
import { canary, fuzzProperty } from './helpers/harness.mjs';
import { harnessSuite } from './helpers/suite.mjs';

const CASES = Number(process.env.CUTOVER_FUZZ_CASES ?? 2500);
const SEED = Number(process.env.CUTOVER_FUZZ_SEED ?? 20261130);

const { loader, state } = harnessSuite(createRequire(import.meta.url));

for (const { prop, share } of [...PROPERTIES, ...GUARD_PROPERTIES]) {
  // A property with `todo` (a library bug it found is open, see its note) reports without failing.
  test(`fuzz: ${prop.name}`, { timeout: 40_000, todo: prop.todo }, async () => {
    const numRuns = Math.max(20, Math.round(CASES * share));
    const stats = await fuzzProperty(prop, { numRuns, seed: SEED, state, shrinkMs: 3000 });
    const report = stats.failures.map(
      (f) => `${f.signature}\n    ${f.message.slice(0, 400)}\n    counterexample: ${f.counterexample.slice(0, 1200)}\n    seed ${f.seed}, path ${f.path}`,
    );
    assert.deepEqual(report, [], `${stats.runs} cases, ${stats.occurrenceCount} failing (${[...stats.occurrences].map(([k, n]) => `${n}× ${k}`).join('; ')})`);
  });
}

test('fuzz: module still works at the end', async () => {
  await canary(loader.current);
});
