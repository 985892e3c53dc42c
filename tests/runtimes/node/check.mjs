// Node packaging fixture (ESM), run inside a throwaway project that installed the tarball:
// import('cutover'), and cutover/web initialised with initSync from the shipped wasm bytes.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import * as api from 'cutover';
import * as web from 'cutover/web';

const require = createRequire(import.meta.url);
const { smoke } = await import(process.env.CUTOVER_SMOKE_URL);
const wasmPath = require.resolve('cutover/cutover_bg.wasm');
web.initSync({ module: readFileSync(wasmPath) });
const report = {
  importExports: Object.keys(api).sort(),
  webExports: Object.keys(web).sort(),
  importResolved: import.meta.resolve('cutover'),
  webResolved: import.meta.resolve('cutover/web'),
  wasmResolved: wasmPath,
  esm: await smoke(api),
  web: await smoke(web),
};
console.log('CUTOVER_REPORT ' + JSON.stringify(report));
