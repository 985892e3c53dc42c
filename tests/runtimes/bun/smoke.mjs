// Bun fixture: `bun --no-install run` with cwd tests/.
// Smokes the ESM entry Bun resolves for 'cutover', then require('cutover').
import * as api from 'cutover';
import { smoke } from '../common/smoke.mjs';

const report = await smoke(api);
report.cjs = await smoke(require('cutover'));
report.runtime = {
  name: 'bun',
  version: Bun.version,
  resolved: import.meta.resolve('cutover'),
  requireResolved: require.resolve('cutover'),
};
console.log('CUTOVER_REPORT ' + JSON.stringify(report));
