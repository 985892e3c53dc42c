// Vercel Edge fixture (edge-runtime), bundled by esbuild as Vercel-style bundles resolve packages:
// the `edge-light` condition, cutover_bg.wasm imported as a WebAssembly.Module (the test's
// bundle plugin hands over the module the host compiled, as Vercel's wasm bindings do), one
// classic script without top-level await. Nothing but imports runs at global scope.
//   GET /smoke  → the shared smoke report (migrations + Big Segments with an in-worker JS store)
//   GET /shadow → one background shadow read (../workerd/shadow.mjs) handed the fetch event's own
//                 waitUntil, { waitUntil: (p) => event.waitUntil(p) }: the response goes out while
//                 the new origin is still waiting on the test's server
import * as api from 'cutover';
import { smoke } from '../common/smoke.mjs';
import { shadowRead } from '../workerd/shadow.mjs';

const json = (body) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });

addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  event.respondWith(
    (async () => {
      if (url.pathname === '/shadow') return json(await shadowRead(api, url, (p) => event.waitUntil(p)));
      const report = await smoke(api);
      report.runtime = { name: 'edge-runtime', edgeRuntime: typeof EdgeRuntime === 'string' ? EdgeRuntime : null };
      return json(report);
    })(),
  );
});
