// Memory per cached Big Segments context (issue 32), in a child process with --expose-gc
// (helpers/cache-memory.mjs says what is measured and how): 200,000 distinct contexts cached in
// one manager, each looked up twice, the growth of wasm memory + JS heap divided by 200,000.
// Measured at 198 B (was 637 B before issue 32, when the cache kept every key twice, an Rc of
// per-status answers and resolved promises, and null-prototype objects in V8's dictionary mode).
// The bound is generous, for the run-to-run wiggle of V8's heap and the allocator's pages, and
// still fails long before a return to the old figures.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const child = fileURLToPath(new URL('./helpers/cache-memory-child.mjs', import.meta.url));
const BOUND = 300; // bytes per cached context

test(`memory per cached Big Segments context (200,000 contexts) is at most ${BOUND} B`, () => {
  const r = spawnSync(process.execPath, ['--expose-gc', '--unhandled-rejections=strict', child, '--contexts', '200000'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  const out = `${r.stdout}\n${r.stderr}`;
  assert.equal(r.status, 0, out);
  const line = r.stdout.split('\n').find((l) => l.startsWith('@@CACHE_MEMORY '));
  assert.ok(line, out);
  const figure = JSON.parse(line.slice('@@CACHE_MEMORY '.length));
  console.log(r.stdout.split('\n').find((l) => l.startsWith('cache memory:')));
  assert.equal(figure.stats.cacheHits, 200_000, 'every context was looked up warm once');
  assert.ok(figure.total <= BOUND, `${figure.total.toFixed(1)} B per cached context (wasm ${figure.wasm.toFixed(1)}, heap ${figure.heap.toFixed(1)})`);
});
