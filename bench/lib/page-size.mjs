// Builds bench/pages/migrations-page.mjs the way a site would (esbuild: bundled, minified, ESM,
// the browser condition) against one of the package's browser entries, and weighs what a visitor
// downloads: the bundle and the wasm it fetches, each gzipped (level 9) and brotli'd (quality 11,
// what LaunchDarkly budgets its browser SDK in), in bytes.
//   entry 'migrations': dist/migrations/migrations.browser.mjs (its own wasm, migrations_bg.wasm)
//   entry 'full':       dist/cutover.browser.mjs (cutover_bg.wasm), for comparison
import { build } from 'esbuild';
import { copyFileSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const PAGE = join(ROOT, 'bench/pages/migrations-page.mjs');
export const ENTRIES = {
  migrations: { module: join(ROOT, 'dist/migrations/migrations.browser.mjs'), wasm: join(ROOT, 'dist/migrations/migrations_bg.wasm') },
  full: { module: join(ROOT, 'dist/cutover.browser.mjs'), wasm: join(ROOT, 'dist/cutover_bg.wasm') },
};

const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const br = (bytes) => brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

/**
 * The page bundled against `entry` ('migrations' or 'full'); with `outdir`, written there with
 * the wasm beside it (as a site serves it). Returns { jsRaw, jsGz, jsBr, wasmRaw, wasmGz, wasmBr,
 * totalGz, totalBr, wasm }.
 */
export async function buildPage(entry, { outdir } = {}) {
  const { module, wasm } = ENTRIES[entry];
  const result = await build({
    entryPoints: [PAGE],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    alias: { 'cutover/migrations': module },
    legalComments: 'none',
    write: outdir !== undefined,
    ...(outdir !== undefined ? { outfile: join(outdir, 'migrations-page.js') } : { outdir: '/nowhere' }),
    logLevel: 'silent',
  });
  const js = outdir !== undefined ? readFileSync(join(outdir, 'migrations-page.js')) : result.outputFiles[0].contents;
  // The entry's init() fetches new URL('<wasm>', import.meta.url): beside the bundle.
  if (outdir !== undefined) copyFileSync(wasm, join(outdir, basename(wasm)));
  const wasmBytes = readFileSync(wasm);
  const sizes = { jsRaw: js.length, jsGz: gz(js), jsBr: br(js), wasmRaw: wasmBytes.length, wasmGz: gz(wasmBytes), wasmBr: br(wasmBytes), wasm: basename(wasm) };
  return { ...sizes, totalGz: sizes.jsGz + sizes.wasmGz, totalBr: sizes.jsBr + sizes.wasmBr, dir: dirname(module) };
}
