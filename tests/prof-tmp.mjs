import { sameStructure } from 'cutover';
import { makeValue } from './value-tmp.mjs';
const a = makeValue(), b = makeValue();
const eq = sameStructure();
let r = 0; for (let i = 0; i < 300000; i++) r += eq(a, b) ? 1 : 0;
console.log(r);
