// Node's CommonJS entry: the ES module entry, loaded by require() (Node 20.19 and later, Bun,
// Deno), so `import` and `require` share one module, one wasm instance and one copy of the code.
'use strict';
try {
  module.exports = require('./cutover.node.mjs');
} catch (error) {
  if (error === null || typeof error !== 'object' || error.code !== 'ERR_REQUIRE_ESM') throw error;
  throw new Error(`require('cutover') needs Node 20.19 or later (require of ES modules); this is Node ${process.versions.node}: upgrade, or use import`);
}
