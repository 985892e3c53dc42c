// The ESM body (dist/lib/esm/migrations.js, bundled by scripts/bundle.mjs) of cutover/migrations:
// the migrations API only, over the wasm built without Big Segments (cargo's `segments` feature
// off), for pages and workers that pay for every byte. Its runtime entries mirror the main ones.
export * from '../migrations-api.js';
// The glue of the migrations wasm: bundle.mjs resolves '../wasm/cutover.js' (here and in every
// module above) to js/wasm-migrations/cutover.js.
export { default as initGlue, initSync } from '../wasm/cutover.js';
