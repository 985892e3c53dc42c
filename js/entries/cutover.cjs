// Node's CommonJS entry: the bundle of js/entries/node.js (scripts/bundle.mjs).
'use strict';
module.exports = require('./lib/node.js');
