// Cloudflare Workers (workerd, wrangler): the wasm imported as a WebAssembly.Module.
import wasmModule from './cutover_bg.wasm';
import { initSync } from './cutover.web.mjs';
initSync({ module: wasmModule });
export * from './cutover.web.mjs';
