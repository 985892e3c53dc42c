// esbuild entry (platform browser, target es2022) through plain 'cutover': esbuild picks the
// `browser` condition (cutover.browser.mjs, top-level-await init).
import * as api from 'cutover';
import { smoke } from '../common/smoke.mjs';

export async function run() {
  const report = await smoke(api);
  report.runtime = { name: 'chromium', userAgent: navigator.userAgent, entry: "esbuild bundle of 'cutover' (browser condition)" };
  return report;
}
