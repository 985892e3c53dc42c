// Differences (issue 22). Part 1: `sameStructure()` against a hand-written
// `JSON.stringify(a) === JSON.stringify(b)` on two equal 1 KB JSON-like values (parsed from the
// same text: equal, sharing nothing), in turns in one process; also, for the record, the same
// comparison of a reordered copy (equal, its keys in another order: JSON.stringify says false)
// and of a copy whose last field differs. Target: sameStructure ≤ 1.0 × the JSON.stringify
// comparison on the equal pair.
import { loadCutover, timeInterleaved } from '../lib/common.mjs';
import { equalPair, reordered } from '../lib/values.mjs';

const TURNS = { turnOps: 2000, turns: 16, warmupTurns: 6, settleTurns: 2 };

export const meta = {
  unit: 'µs/op',
  note:
    'sameStructure()(a, b) on two equal 1 KB JSON-like values (an order: 4 items, a customer, totals; ' +
    'JSON.parse of the same text twice), the same pair every call; against (a, b) => JSON.stringify(a) === ' +
    'JSON.stringify(b) in turns of 2000 calls in the same process (a young-generation GC, untimed, before each turn). ' +
    'Also timed: a copy with every object\'s keys reversed (structurally equal; walked), and a copy whose last field differs (walked to it). ' +
    'Target: sameStructure ÷ JSON.stringify ≤ 1.0 on the equal pair',
  figures: [
    { key: 'stringifyUs', label: 'JSON.stringify(a) === JSON.stringify(b), equal 1 KB values', unit: 'µs/op' },
    { key: 'ratioToStringify', label: 'sameStructure ÷ JSON.stringify, equal 1 KB values', max: 1.0 },
    { key: 'reorderedUs', label: 'sameStructure, the keys reordered (walked)', unit: 'µs/op' },
    { key: 'differentUs', label: 'sameStructure, the last field differs (walked)', unit: 'µs/op' },
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
  return {
    value: s.usPerOp,
    info: {
      stringifyUs: j.usPerOp,
      ratioToStringify: s.usPerOp / j.usPerOp,
      reorderedUs: r.usPerOp,
      differentUs: d.usPerOp,
      reorderedToStringify: r.usPerOp / j.usPerOp,
      differentToStringify: d.usPerOp / j.usPerOp,
      jsonBytes: JSON.stringify(a).length,
      ops: s.ops,
    },
  };
}
