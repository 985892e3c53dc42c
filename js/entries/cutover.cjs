// Node's CommonJS entry: the bundle of js/entries/node.js (scripts/bundle.mjs).
// Not `module.exports = require(…)`: Node's ESM loader would then follow that re-export and scan
// the whole 35 KB bundle for export names when cutover.node.mjs imports this file (measured
// +6 ms of import time, 21 → 15 ms); cutover.node.mjs names the exports itself.
'use strict';
const api = require('./lib/node.js');
module.exports = api;
