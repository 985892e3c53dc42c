// Deno fixture: `deno run --allow-read --allow-env --no-prompt --node-modules-dir=manual` with cwd tests/.
// Smokes the ESM entry Deno resolves for 'cutover', then the CommonJS one through node:module.
import { createRequire } from 'node:module';
import * as api from 'cutover';
import { smoke } from '../common/smoke.mjs';

const require = createRequire(import.meta.url);
const report = await smoke(api);
report.cjs = await smoke(require('cutover'));
report.runtime = {
  name: 'deno',
  version: Deno.version.deno,
  resolved: import.meta.resolve('cutover'),
  requireResolved: require.resolve('cutover'),
};
console.log('CUTOVER_REPORT ' + JSON.stringify(report));
