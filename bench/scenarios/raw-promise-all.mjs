// The physical floor of a parallel shadow read: two trivial origins, Promise.all, compare.
import { CONTEXT, PAYLOAD, compare, cutoverOrigin, timeAsync } from '../lib/common.mjs';

export const meta = {
  unit: 'µs/op',
  note: 'floor: await Promise.all([old(p), new(p)]) + compare, plain JS, no library (reported in the cutover column)',
};
export async function cutover() {
  const oldFn = cutoverOrigin;
  const newFn = cutoverOrigin;
  let consistent = 0;
  const op = async () => {
    const [a, b] = await Promise.all([oldFn(PAYLOAD, CONTEXT), newFn(PAYLOAD, CONTEXT)]);
    if (compare(a, b)) consistent++;
    return a;
  };
  const r = await timeAsync(op, { ops: 1_000_000 }); // about 0.4 s
  return { value: r.usPerOp, info: { ops: r.ops, consistent } };
}
