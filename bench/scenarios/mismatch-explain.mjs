// Differences (issue 22). Part 1: `sameStructure()` against a hand-written
// `JSON.stringify(a) === JSON.stringify(b)` on two equal 1 KB JSON-like values (parsed from the
// same text: equal, sharing nothing), in turns in one process; also, for the record, the same
// comparison of a reordered copy (equal, its keys in another order: JSON.stringify says false)
// and of a copy whose last field differs. Target: sameStructure ≤ 1.0 × the JSON.stringify
// comparison on the equal pair.
// Part 2: a shadow read (fixedStage('shadow'), parallel, sameStructure()) whose 1 KB values differ
// at 3 paths, with `mismatches()` against the same read without, in turns in one process: what
// explaining a mismatch adds per operation (target ≤ 5 µs); and the same for an equal pair (what
// `mismatches()` costs a read whose values agree).
import { CONTEXT, FLAG_KEY, loadCutover, timeAsyncInterleaved, timeInterleaved } from '../lib/common.mjs';
import { differentPair, equalPair, reordered } from '../lib/values.mjs';

const TURNS = { turnOps: 2000, turns: 16, warmupTurns: 6, settleTurns: 2 };
const READ_TURNS = { turnOps: 1000, turns: 12, warmupTurns: 4, settleTurns: 2 };

export const meta = {
  unit: 'µs/op',
  note:
    'sameStructure()(a, b) on two equal 1 KB JSON-like values (an order: 4 items, a customer, totals; ' +
    'JSON.parse of the same text twice), the same pair every call; against (a, b) => JSON.stringify(a) === ' +
    'JSON.stringify(b) in turns of 2000 calls in the same process (a young-generation GC, untimed, before each turn). ' +
    'Also timed: a copy with every object\'s keys reversed (structurally equal; walked), and a copy whose last field differs (walked to it). ' +
    'Target: sameStructure ÷ JSON.stringify ≤ 1.0 on the equal pair. ' +
    "Then a shadow read (fixedStage('shadow'), parallel, sameStructure()) of values differing at 3 paths, with mismatches({ keep: 20 }) " +
    'and without, in turns of 1000 reads; the same for an equal pair. Target: an explained mismatch adds ≤ 5 µs per operation',
  figures: [
    { key: 'stringifyUs', label: 'JSON.stringify(a) === JSON.stringify(b), equal 1 KB values', unit: 'µs/op' },
    { key: 'ratioToStringify', label: 'sameStructure ÷ JSON.stringify, equal 1 KB values', max: 1.0 },
    { key: 'reorderedUs', label: 'sameStructure, the keys reordered (walked)', unit: 'µs/op' },
    { key: 'differentUs', label: 'sameStructure, the last field differs (walked)', unit: 'µs/op' },
    { key: 'unexplainedReadUs', label: 'shadow read, values differing at 3 paths, without mismatches()', unit: 'µs/op' },
    { key: 'explainAddsUs', label: 'what mismatches() adds to that read (explained, kept)', unit: 'µs/op', max: 5 },
    { key: 'equalAddsUs', label: 'what mismatches() adds to a read whose values agree', unit: 'µs/op' },
  ],
};

export async function cutover() {
  const { sameStructure } = await loadCutover();
  const same = sameStructure();
  const [a, b] = equalPair();
  const moved = reordered(equalPair()[1]);
  const changed = { ...equalPair()[1], notes: 'Leave it with the neighbours.' };
  const stringify = (x, y) => JSON.stringify(x) === JSON.stringify(y);
  const answers = [same(a, b), stringify(a, b), same(a, moved), same(a, changed)];
  if (answers.join() !== 'true,true,true,false') throw new Error(`unexpected answers ${answers}`);
  const [s, j, r, d] = timeInterleaved([() => same(a, b), () => stringify(a, b), () => same(a, moved), () => same(a, changed)], TURNS);
  const reads = await explainedReads();
  return {
    value: s.usPerOp,
    info: {
      stringifyUs: j.usPerOp,
      ratioToStringify: s.usPerOp / j.usPerOp,
      reorderedUs: r.usPerOp,
      differentUs: d.usPerOp,
      reorderedToStringify: r.usPerOp / j.usPerOp,
      differentToStringify: d.usPerOp / j.usPerOp,
      ...reads,
      jsonBytes: JSON.stringify(a).length,
      ops: s.ops,
    },
  };
}

/** Part 2: the same shadow read with and without `mismatches()`, values differing and equal. */
async function explainedReads() {
  const { MigratorBuilder, fixedStage, sameStructure } = await loadCutover();
  const [old, differing] = differentPair();
  const [, equal] = equalPair();
  const migrator = (newValue, explained) => {
    let builder = new MigratorBuilder(fixedStage('shadow'))
      .read(async () => old, async () => newValue, sameStructure())
      .write(async () => 1, async () => 1);
    if (explained) builder = builder.mismatches({ keep: 20 });
    return builder.build();
  };
  const sides = [migrator(differing, false), migrator(differing, true), migrator(equal, false), migrator(equal, true)];
  const explained = sides[1];
  await explained.read(FLAG_KEY, CONTEXT, 'off');
  const paths = explained.mismatches().at(-1)?.differences.map((difference) => difference.path).join(' ');
  if (paths !== '/updatedAt /items/1/price /totals/total') throw new Error(`unexpected differences ${paths}`);
  const ops = sides.map((m) => () => m.read(FLAG_KEY, CONTEXT, 'off'));
  const [u, e, q, qe] = await timeAsyncInterleaved(ops, READ_TURNS);
  return {
    unexplainedReadUs: u.usPerOp,
    explainedReadUs: e.usPerOp,
    explainAddsUs: e.usPerOp - u.usPerOp,
    equalReadUs: q.usPerOp,
    equalAddsUs: qe.usPerOp - q.usPerOp,
  };
}
