// The workerd suites' Workers (TOOLCHAIN §6): esbuild bundles resolved with the `workerd`
// condition, the package's cutover_bg.wasm kept as a separate CompiledWasm module, run in
// Miniflare 4. `miniflareMissing` is why the suites skip when miniflare or esbuild is absent.
import { join } from 'node:path';
import { TESTS_DIR } from './run.mjs';

let esbuild, Miniflare, missing;
try {
  esbuild = await import('esbuild');
  ({ Miniflare } = await import('miniflare'));
} catch (e) {
  missing = `miniflare/esbuild not installed: ${e.message}`;
}
export { Miniflare };
export const miniflareMissing = missing;

/** Bundles `entryPoints` for workerd into `outdir`; `extra` esbuild options go over the shared ones. */
export function bundleWorker(entryPoints, outdir, extra = {}) {
  return esbuild.build({
    entryPoints,
    absWorkingDir: TESTS_DIR,
    bundle: true,
    platform: 'neutral',
    format: 'esm',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    loader: { '.wasm': 'copy' }, // keeps `import m from './x.wasm'`, copied next to the bundle
    outdir,
    logLevel: 'silent',
    ...extra,
  });
}

/** Miniflare options running `outdir`/`script` (the bundle's .js and .wasm files as modules); `extra` added. */
export const workerOptions = (outdir, script, extra = {}) => ({
  modules: true,
  modulesRoot: outdir,
  scriptPath: join(outdir, script),
  modulesRules: [
    { type: 'ESModule', include: ['**/*.js', '**/*.mjs'] },
    { type: 'CompiledWasm', include: ['**/*.wasm'] },
  ],
  compatibilityDate: '2026-04-01',
  ...extra,
});
