// A short soak (100 000 reads + 100 000 lookups, sampled every 10 000) in a child process with
// --expose-gc: wasm memory and heap growth after warm-up within a proportional bound (at least one
// 64 KiB page for wasm, 512 KiB for the heap). The warm-up is 50 000 operations: the lookup phase
// makes its last one-time wasm allocations (the cache's tables) within the first ~40 000 lookups
// and is flat from there to 1 000 000 (`npm run soak`, the full run, warms up for 100 000).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

test('soak (short profile): no wasm or heap growth after warm-up, every result right', () => {
  const child = fileURLToPath(new URL('./helpers/soak-child.mjs', import.meta.url));
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', '--unhandled-rejections=strict', child, '--reads', '100000', '--lookups', '100000', '--every', '10000', '--warmup', '50000'],
    { encoding: 'utf8', timeout: 60_000 },
  );
  const out = `${r.stdout}\n${r.stderr}`;
  assert.equal(r.status, 0, out);
  assert.match(r.stdout, /soak: PASS/, out);
  console.log(r.stdout.split('\n').filter((l) => /^(reads|lookups):/.test(l)).join('\n'));
});
