// Replays one fuzz counterexample (as printed by fuzz/run.mjs or the fuzz test) against the
// repo's dist/, with the same oracle and canary:
//   node --unhandled-rejections=strict fuzz/replay.mjs '<property name>' '<counterexample>' [--tame]
// The counterexample is the printed recipe (JavaScript literal syntax: NaN, 0n, __proto__:null).
import { createRequire } from 'node:module';

import { GUARD_PROPERTIES } from '../tests/hardening/helpers/guard.mjs';
import { PROPERTIES as CORE } from '../tests/hardening/helpers/properties.mjs';
import { executeCase, makeState, moduleLoader, muteConsole } from '../tests/hardening/helpers/harness.mjs';

const PROPERTIES = [...CORE, ...GUARD_PROPERTIES];
const [name, text] = process.argv.slice(2);
const prop = PROPERTIES.map((p) => p.prop).find((p) => p.name === name);
if (!prop || !text) {
  console.error(`usage: replay.mjs '<property>' '<counterexample>'\nproperties: ${PROPERTIES.map((p) => p.prop.name).join(', ')}`);
  process.exit(2);
}
const input = (0, eval)(`(${text})`); // the printed recipe is a JavaScript literal
const loader = moduleLoader(createRequire(import.meta.url));
process.on('exit', () => loader.dispose());
const state = makeState(loader, { tame: process.argv.includes('--tame') });
const restore = muteConsole();
const failure = await executeCase(prop, input, state);
restore();
state.watch.dispose();
console.log(failure ? `FAIL ${failure.message}` : 'pass');
process.exit(failure ? 1 : 0);
