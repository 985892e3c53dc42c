// Node's CommonJS entry (dist/lib/node.js, bundled by scripts/bundle.mjs): the wasm beside the
// bundle, compiled and instantiated synchronously at load. Node's ESM entry re-exports this one.
import { readFileSync } from 'node:fs';
import { initSync } from '../wasm/cutover.js';

initSync({ module: readFileSync(`${__dirname}/../cutover_bg.wasm`) });

export * from '../api.js';
