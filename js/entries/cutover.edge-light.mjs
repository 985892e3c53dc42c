// Vercel Edge (the `edge-light` condition; Next.js middleware, edge-runtime): the wasm imported
// as a WebAssembly.Module, as Vercel's bundles provide it; no top-level await.
import wasmModule from './cutover_bg.wasm';
import { initSync } from './cutover.web.mjs';
initSync({ module: wasmModule });
export * from './cutover.web.mjs';
