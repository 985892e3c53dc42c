// Deno: the web build, initialised from the file next to it (Deno reads files through node:fs).
import { readFileSync } from 'node:fs';
import { initSync } from './cutover.web.mjs';
initSync({ module: readFileSync(new URL('./cutover_bg.wasm', import.meta.url)) });
export * from './cutover.web.mjs';
