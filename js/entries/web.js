// The ESM body (dist/lib/esm/web.js, bundled by scripts/bundle.mjs) of cutover/web, which the
// browser, Deno, workerd and edge-light entries re-export.
export * from '../api.js';
export { default as initGlue, initSync } from '../wasm/cutover.js';
