// `npm run soak`: 1 000 000 migration reads (shadow, parallel, with a comparison, every event to a
// counting client) and 1 000 000 Big Segment lookups (hits and misses, contextCacheSize 1000) in
// one process, with wasm linear memory and JS heap sampled after GC every 100 000 operations;
// then background mode (`background()`): 30 rounds of 10 000 operations whose background parts
// are all in flight at once (held, released, `settled()`), each followed by a burst of 10 000
// against the default maxInFlight (at most 100 at once, the rest shed), sampled every round; then
// the guard (`guard()`): 300 000 reads at 'live' over 10 000 flag keys in runs of 10, the new origin
// failing for 1 key in 7 (each of those trips and falls back), so the guard's table (at most 100
// keys) is refilled again and again; sampled every 100 000, trips and fallbacks counted exactly.
//
//   node --expose-gc --unhandled-rejections=strict soak/run.mjs [--reads N] [--lookups N] [--every N] [--warmup N]
//     [--phases reads,lookups,background,guard] [--bg-rounds N] [--bg-parts N] [--bg-burst N] [--bg-max N] [--bg-warmup ROUNDS]
//     [--guard-ops N] [--guard-keys N]
//
// Passes when growth after the warm-up (the first 100 000 operations of the reads, lookups and guard phases, the
// first 5 rounds of background mode) is ≤ 1 MiB for both the wasm memory and the heap, and every
// result and count was right. A short run: `--reads 100000 --lookups 100000 --every 10000
// --warmup 50000 --bg-rounds 6 --bg-warmup 2`. What is measured, and how the wasm memory is
// found: tests/hardening/helpers/soak.mjs. Uses the repo's dist/ (self-reference).
import { soakMain } from '../tests/hardening/helpers/soak.mjs';

process.exitCode = await soakMain(() => import('cutover'));
