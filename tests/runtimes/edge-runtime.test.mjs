// Vercel Edge through edge-runtime (Vercel's emulator, npm `edge-runtime`): a bare
// `import 'cutover'` bundled as Vercel-style bundles do it (esbuild with the `edge-light`
// condition, one classic script, the wasm as a WebAssembly.Module binding), evaluated in an
// EdgeRuntime VM and driven by a fetch event.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertSmoke, jsonAnswer } from './common/expect.mjs';
import { packageMissing, ROOT_DIR, TESTS_DIR } from './common/run.mjs';

const WORKER = fileURLToPath(new URL('./edge/worker.mjs', import.meta.url));
let esbuild, EdgeRuntime, missing;
try {
  esbuild = await import('esbuild');
  ({ EdgeRuntime } = await import('edge-runtime'));
} catch (e) {
  missing = `edge-runtime/esbuild not installed: ${e.message}`;
}
const VERSION = missing ? '' : JSON.parse(readFileSync(join(ROOT_DIR, 'node_modules/edge-runtime/package.json'), 'utf8')).version;
const skip = missing ?? packageMissing();

/** `.wasm` imports become the WebAssembly.Module the host put at globalThis.__wasm_<file>. */
const wasmBinding = {
  name: 'wasm-binding',
  setup(b) {
    b.onResolve({ filter: /\.wasm$/ }, (args) => ({ path: join(args.resolveDir, args.path), namespace: 'wasm-binding' }));
    b.onLoad({ filter: /.*/, namespace: 'wasm-binding' }, (args) => ({
      contents: `export default globalThis[${JSON.stringify(bindingName(args.path))}];`,
      loader: 'js',
    }));
  },
};
const bindingName = (file) => `__wasm_${file.split('/').pop().replace(/\W/g, '_')}`;

let bundle;
before(async () => {
  if (skip) return;
  const result = await esbuild.build({
    entryPoints: [WORKER],
    absWorkingDir: TESTS_DIR,
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife', // a classic script: top-level await would not bundle
    target: 'es2022',
    conditions: ['edge-light', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    plugins: [wasmBinding],
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile.inputs);
  const wasmFiles = inputs.filter((p) => p.startsWith('wasm-binding:')).map((p) => p.slice('wasm-binding:'.length));
  bundle = { code: result.outputFiles[0].text, inputs, wasmFiles };
});

/** A fresh EdgeRuntime with the bundle's wasm bindings compiled inside it, and the bundle evaluated. */
function runtime() {
  const edge = new EdgeRuntime();
  for (const file of bundle.wasmFiles) {
    edge.context.__wasmBytes = new Uint8Array(readFileSync(file));
    edge.evaluate(`globalThis[${JSON.stringify(bindingName(file))}] = new WebAssembly.Module(__wasmBytes); delete globalThis.__wasmBytes;`);
  }
  edge.evaluate(bundle.code);
  return edge;
}

test('edge-runtime: the bundle resolved the edge-light entry and takes the wasm as a module binding', { skip }, () => {
  const pkg = bundle.inputs.filter((p) => p.startsWith('node_modules/cutover/')).map((p) => relative('node_modules/cutover', p)).sort();
  assert.deepEqual(pkg, ['dist/cutover.edge-light.mjs', 'dist/cutover.web.mjs', 'dist/lib/esm/web.js']);
  assert.deepEqual(bundle.wasmFiles.map((f) => relative(join(TESTS_DIR, 'node_modules/cutover'), f)), ['dist/cutover_bg.wasm']);
});

test('edge-runtime: without edge-light, the browser entry (top-level await) does not bundle as a script', { skip }, async () => {
  await assert.rejects(
    esbuild.build({ entryPoints: [WORKER], absWorkingDir: TESTS_DIR, bundle: true, write: false, format: 'iife', target: 'es2022', platform: 'browser', conditions: ['worker', 'browser'], plugins: [wasmBinding], logLevel: 'silent' }),
    /Top-level await is currently not supported with the "iife" output format/,
  );
});

test('edge-runtime: migrations and big segments in a fetch handler', { skip, timeout: 20_000 }, async (t) => {
  const report = await jsonAnswer(await runtime().dispatchFetch('http://edge.test/smoke'));
  t.diagnostic(`edge-runtime ${VERSION} (EdgeRuntime global: ${report.runtime.edgeRuntime})`);
  assert.equal(report.runtime.edgeRuntime, 'edge-runtime');
  assertSmoke(report, { runtime: 'edge-runtime' });
});

/** Awaits every promise the fetch event was handed with waitUntil, including ones handed meanwhile. */
async function drainWaitUntil(res) {
  while ((await res.waitUntil()).length > 0);
}

// Issue 21 (API.md §1 "Shadowing in production"): a shadow read with background() and the fetch
// event's own waitUntil, { waitUntil: (p) => event.waitUntil(p) } (edge-runtime's FetchEvent keeps
// those promises; the Response it dispatches has waitUntil() → Promise.all of them). The new
// origin is a fetch to the test's local server, which holds its answer until the test has the
// response: the response can only come first if the read did not wait for the shadow. Once the
// event's waitUntil promises have all settled, the one migration_op event is already at the server.
test('edge-runtime: background() answers before the shadow origin settles; the event is sent within FetchEvent#waitUntil', { skip, timeout: 60_000 }, async (t) => {
  const { startShadowServer, assertShadowEvent, eventShape, foregroundRead, positions, shadowUrls } = await import('./workerd/shadow-server.mjs');
  const server = await startShadowServer();
  t.after(() => server.close());
  const edge = runtime();
  const url = shadowUrls('http://edge.test', server);
  const backgroundEvents = {};

  for (const [id, value, consistent] of [['same', 'v1', true], ['differs', 'v2', false]]) {
    await t.test(`new origin returns ${value}: consistent ${consistent}`, async () => {
      const res = await edge.dispatchFetch(url(id, value));
      server.log.push(`response:${id}`);
      assert.equal(typeof res.waitUntil, 'function', "edge-runtime's dispatched Response exposes the event's waitUntil promises");
      const out = await jsonAnswer(res);
      assert.deepEqual(out.result, { origin: 'old', success: true, value: 'v1' }, 'the authoritative (old) result');
      assert.deepEqual(
        out.atResponse,
        { newStarted: true, newSettled: false, backgroundEnded: false, waitUntilCalls: 1, waitUntilArg: 'promise' },
        'when the read resolved: the new origin had started (parallel) but not settled, waitUntil had been handed one promise',
      );
      const drained = drainWaitUntil(res).then(() => server.log.push(`drained:${id}`));

      await server.slowRequested(id);
      assert.equal(server.events.has(id), false, 'no event before the shadow origin settled');
      assert.equal(server.log.includes(`drained:${id}`), false, "the event's waitUntil promises wait for the shadow origin");
      server.release(id);
      await drained;
      // No waiting on the server here: settling the waitUntil promises means the event was sent.
      const events = server.events.get(id) ?? [];
      const [response, released, event, done] = positions(server.log, `response:${id}`, `slow-released:${id}`, `event:${id}`, `drained:${id}`);
      assert.ok(response >= 0 && response < released && released < event && event < done, `response, the shadow's answer, the event, then waitUntil settled: ${server.log.join(', ')}`);
      assert.equal(events.length, 1, JSON.stringify(events));
      assertShadowEvent(assert, events[0], { consistent, where: `edge-runtime ${id}` });
      assert.deepEqual(server.logs.filter((l) => l.id === id), [], 'nothing logged at warn/error');
      backgroundEvents[id] = events[0];
    });
  }

  await t.test('control: the same read without background() waits for the shadow, and sends the same event', async () => {
    const id = 'foreground';
    const res = await foregroundRead(server, edge, url(id, 'v1', { bg: false }), id);
    const out = await jsonAnswer(res);
    assert.deepEqual(out.result, { origin: 'old', success: true, value: 'v1' });
    assert.equal(out.atResponse.newSettled, true, 'the foreground read resolved after the new origin');
    const [released, response] = positions(server.log, `slow-released:${id}`, `response:${id}`);
    assert.ok(released >= 0 && released < response, server.log.join(', '));
    await drainWaitUntil(res);
    const [event, ...more] = server.events.get(id) ?? [];
    assert.deepEqual(more, []);
    assertShadowEvent(assert, event, { consistent: true, where: 'edge-runtime foreground' });
    assert.ok(backgroundEvents.same, 'the background case ran');
    assert.deepEqual(eventShape(backgroundEvents.same), eventShape(event), 'background() records the same event as the foreground read');
  });

  assert.deepEqual(server.logs, [], 'nothing logged at warn/error');
  assert.equal(server.log.filter((e) => e.startsWith('slow-failsafe')).length, 0, server.log.join(', '));
});
