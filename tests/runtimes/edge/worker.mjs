// Vercel Edge fixture (edge-runtime), bundled by esbuild as Vercel-style bundles resolve packages:
// the `edge-light` condition, cutover_bg.wasm imported as a WebAssembly.Module (the test's
// bundle plugin hands over the module the host compiled, as Vercel's wasm bindings do), one
// classic script without top-level await. Nothing but imports runs at global scope.
//   GET /smoke → the shared smoke report (migrations + Big Segments with an in-worker JS store)
import * as api from 'cutover';
import { smoke } from '../common/smoke.mjs';

addEventListener('fetch', (event) => {
  event.respondWith(
    (async () => {
      const report = await smoke(api);
      report.runtime = { name: 'edge-runtime', edgeRuntime: typeof EdgeRuntime === 'string' ? EdgeRuntime : null };
      return new Response(JSON.stringify(report), { headers: { 'content-type': 'application/json' } });
    })(),
  );
});
