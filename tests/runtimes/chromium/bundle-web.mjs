// esbuild entry (platform browser, target es2020: no top-level await) through `cutover/web`:
// the bundle is served next to cutover_bg.wasm, which init() fetches relative to import.meta.url.
import init, * as web from 'cutover/web';
import { smoke } from '../common/smoke.mjs';

export async function run() {
  await init();
  const report = await smoke(web);
  report.runtime = { name: 'chromium', userAgent: navigator.userAgent, entry: 'esbuild bundle of cutover/web' };
  return report;
}
