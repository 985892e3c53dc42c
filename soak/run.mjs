// `npm run soak`: 1 000 000 migration reads (shadow, parallel, with a comparison, every event to a
// counting client) and 1 000 000 Big Segment lookups (hits and misses, contextCacheSize 1000) in
// one process, with wasm linear memory and JS heap sampled after GC every 100 000 operations.
//
//   node --expose-gc --unhandled-rejections=strict soak/run.mjs [--reads N] [--lookups N] [--every N] [--warmup N]
//
// Passes when growth after the warm-up (the first 100 000 operations of each phase) is ≤ 1 MiB for
// both the wasm memory and the heap, and every result was right. What is measured, and how the wasm
// memory is found: tests/hardening/helpers/soak.mjs. Uses the repo's dist/ (self-reference).
import { soakMain } from '../tests/hardening/helpers/soak.mjs';

process.exitCode = await soakMain(() => import('cutover'));
