// Memory per cached Big Segments context (issue 32): 200,000 distinct contexts cached in one
// manager over an in-memory JS store, each looked up twice (the miss, then a warm lookup); the
// growth of wasm memory + JS heap after full GCs, per context. What is measured and how:
// tests/hardening/helpers/cache-memory.mjs (tests/hardening/cache-memory.test.mjs bounds it).
import { hookWasmMemory } from '../../tests/hardening/helpers/soak.mjs';
import { cachedContextMemory } from '../../tests/hardening/helpers/cache-memory.mjs';
import { loadCutover } from '../lib/common.mjs';

const CONTEXTS = 200_000;
export const meta = {
  unit: 'B/context',
  note:
    `${CONTEXTS} distinct contexts cached (contextCacheSize ${CONTEXTS + 1}), each looked up twice, 1,000 at a time; ` +
    'growth of WebAssembly memory + process heapUsed after two gc() passes, per context (target ≤ 200, issue 32). ' +
    'Figures: the wasm and heap parts, and rss for context',
  figures: [
    { key: 'wasm', label: 'cutover, wasm memory per cached context', unit: 'B' },
    { key: 'heap', label: 'cutover, JS heap per cached context', unit: 'B' },
    { key: 'rss', label: 'cutover, rss per cached context (for context)', unit: 'B' },
  ],
};

export async function cutover() {
  const hook = hookWasmMemory();
  const c = await loadCutover();
  hook.restore();
  const r = await cachedContextMemory(c, hook, { contexts: CONTEXTS });
  return { value: r.total, info: { wasm: r.wasm, heap: r.heap, rss: r.rss, contexts: r.contexts } };
}
