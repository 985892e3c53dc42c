import { sameStructure } from 'cutover';
import { makeValue } from './value-tmp.mjs';
const a = makeValue(), b = makeValue();
const eq = sameStructure();
const json = (x, y) => JSON.stringify(x) === JSON.stringify(y);
function time(f, n) { const t0 = process.hrtime.bigint(); let r = 0; for (let i = 0; i < n; i++) r += f(a, b) ? 1 : 0; if (r !== n) throw new Error('not equal'); return Number(process.hrtime.bigint() - t0) / n / 1000; }
for (let round = 0; round < 6; round++) {
  const j = time(json, 100000), s = time(eq, 100000);
  console.log('json', j.toFixed(3), 'same', s.toFixed(3), 'ratio', (s / j).toFixed(3));
}
