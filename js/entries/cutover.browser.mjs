// Browsers: the web build, initialised by top-level await (the wasm fetched beside the entry).
import init from './cutover.web.mjs';
await init();
export * from './cutover.web.mjs';
