// Node's CommonJS entry: the one ES module body, loaded by require() (Node 20.19 and later, Bun,
// Deno), so `import` and `require` share one module, one wasm instance and one copy of the code.
// It requires the body itself rather than cutover.node.mjs: one ES module fewer to load through
// require() (measured: require('cutover') 18.5 → 12.6 ms, Node 20.20).
'use strict';
let body;
try {
  body = require('./lib/esm/web.js');
} catch (error) {
  if (error === null || typeof error !== 'object' || error.code !== 'ERR_REQUIRE_ESM') throw error;
  throw new Error(`require('cutover') needs Node 20.19 or later (require of ES modules); this is Node ${process.versions.node}: upgrade, or use import`);
}
const { initGlue, initSync, ...api } = body;
// The wasm beside this file, compiled and instantiated synchronously (a no-op when cutover.node.mjs did it).
initSync({ module: require('node:fs').readFileSync(`${__dirname}/cutover_bg.wasm`) });
module.exports = api;
