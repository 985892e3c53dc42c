// Every hostile value of helpers/differences.mjs, one by one (the fuzz draws them at random: its
// short run in fuzz.test.mjs may miss some). For each: sameStructure() called directly, and a
// shadow read with mismatches() (a comparison answering false, so the walk explains it), with the
// value placed each way (`PLACEMENTS`: the same reference on both sides, a twin, against a plain
// value either way, nested). Held to the harness's oracle (no trap, nothing uncaught or
// unhandled, nothing pending, the module still works) and the properties' own checks.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { HOSTILE_NAMES, KNOWN_PAIRS, MISMATCHES_PROPERTY, PLACEMENTS, SAME_STRUCTURE_PROPERTY } from './helpers/differences.mjs';
import { canary, executeCase } from './helpers/harness.mjs';
import { harnessSuite } from './helpers/suite.mjs';

const { loader, state } = harnessSuite(createRequire(import.meta.url));

const pairsOf = (name) => PLACEMENTS.map((placement) => ({ pair: { k: 'hostile', name, placement, swap: false } }));

for (const name of HOSTILE_NAMES) {
  test(`structural walk, hostile value: ${name}`, async () => {
    const failures = [];
    const direct = await executeCase(SAME_STRUCTURE_PROPERTY, pairsOf(name), state);
    if (direct) failures.push(`sameStructure: ${direct.message}`);
    for (const [stage, background, comparison] of [
      ['shadow', false, 'false'],
      ['live', true, 'sameStructure'],
    ]) {
      const input = { stage, background, order: 'parallel', keep: 2, maxDifferences: 3, onMismatch: 'throw', comparison, reads: pairsOf(name) };
      const failure = await executeCase(MISMATCHES_PROPERTY, input, state);
      if (failure) failures.push(`mismatches() (${stage}${background ? ', background' : ''}, ${comparison}): ${failure.message}`);
    }
    assert.deepEqual(failures, []);
  });
}

test('structural walk, pairs whose answer is known', async () => {
  const cases = KNOWN_PAIRS.map((_, i) => ({ pair: { k: 'known', i } }));
  const failure = await executeCase(SAME_STRUCTURE_PROPERTY, cases, state);
  assert.equal(failure?.message, undefined);
  const read = await executeCase(
    MISMATCHES_PROPERTY,
    { stage: 'shadow', background: false, order: 'serial', keep: 20, maxDifferences: 16, onMismatch: 'record', comparison: 'sameStructure', reads: cases.slice(0, 4) },
    state,
  );
  assert.equal(read?.message, undefined);
});

test('structural walk: the module still works at the end', async () => {
  await canary(loader.current);
});
