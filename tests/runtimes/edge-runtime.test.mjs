// Vercel Edge through edge-runtime (Vercel's emulator, npm `edge-runtime`): a bare
// `import 'cutover'` bundled as Vercel-style bundles do it (esbuild with the `edge-light`
// condition, one classic script, the wasm as a WebAssembly.Module binding), evaluated in an
// EdgeRuntime VM and driven by a fetch event.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertSmoke } from './common/expect.mjs';
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
  const res = await runtime().dispatchFetch('http://edge.test/smoke');
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const report = JSON.parse(text);
  t.diagnostic(`edge-runtime ${VERSION} (EdgeRuntime global: ${report.runtime.edgeRuntime})`);
  assert.equal(report.runtime.edgeRuntime, 'edge-runtime');
  assertSmoke(report, { runtime: 'edge-runtime' });
});
