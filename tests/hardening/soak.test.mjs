// A short soak in child processes with --expose-gc (helpers/soak.mjs):
// - 100 000 reads + 100 000 lookups, sampled every 10 000: wasm memory and heap growth after
//   warm-up within a proportional bound (at least one 64 KiB page for wasm, 512 KiB for the
//   heap). The warm-up is 50 000 operations: the lookup phase makes its last one-time wasm
//   allocations (the cache's tables) within the first ~40 000 lookups and is flat from there to
//   1 000 000 (`npm run soak`, the full run, warms up for 100 000).
// - background mode: 12 rounds of 10 000 background parts in flight at once and a burst of
//   10 000 against the default maxInFlight (100), sampled every round, warm-up 2 rounds (the
//   full run: 30 rounds, warm-up 5).
// - guard(): 100 000 reads over 10 000 flag keys (runs of 10 reads per key; 1 key in 7 trips and
//   falls back), sampled every 10 000, warm-up 50 000: flat memory, at most 100 keys kept, trips
//   and fallbacks exact (the full run: 300 000 reads).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const child = fileURLToPath(new URL('./helpers/soak-child.mjs', import.meta.url));
const soak = (args) => {
  const r = spawnSync(process.execPath, ['--expose-gc', '--unhandled-rejections=strict', child, ...args], { encoding: 'utf8', timeout: 60_000 });
  const out = `${r.stdout}\n${r.stderr}`;
  assert.equal(r.status, 0, out);
  assert.match(r.stdout, /soak: PASS/, out);
  console.log(r.stdout.split('\n').filter((l) => /^(reads|lookups|background|guard):/.test(l)).join('\n'));
};

test('soak (short profile): no wasm or heap growth after warm-up, every result right', () => {
  soak(['--phases', 'reads,lookups', '--reads', '100000', '--lookups', '100000', '--every', '10000', '--warmup', '50000']);
});

test('soak (short profile), background mode: 10 000 parts in flight, flat memory, maxInFlight holds under a burst', () => {
  soak(['--phases', 'background', '--bg-rounds', '12', '--bg-warmup', '2']);
});

test('soak (short profile), guard(): 10 000 flag keys through one migrator, flat memory, at most 100 kept', () => {
  soak(['--phases', 'guard', '--guard-ops', '100000', '--guard-keys', '10000', '--every', '10000', '--warmup', '50000']);
});
