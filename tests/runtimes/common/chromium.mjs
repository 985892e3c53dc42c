// Headless Chromium for the browser suites: Debian's /usr/bin/chromium driven by playwright-core,
// launched with the flags the suites share, and esbuild bundles for their pages with the
// package's wasm beside them.
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_DIR, TESTS_DIR } from './run.mjs';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * playwright-core's `chromium` (and `esbuild` too when `withEsbuild`), and `missing`: why the
 * suite cannot run (a module not installed, or no Chromium at CHROMIUM), else undefined.
 */
export async function loadChromium({ withEsbuild = false } = {}) {
  let chromium, esbuild;
  try {
    ({ chromium } = await import('playwright-core'));
    if (withEsbuild) esbuild = await import('esbuild');
  } catch (e) {
    return { missing: `${withEsbuild ? 'playwright-core/esbuild' : 'playwright-core'} not installed: ${e.message}` };
  }
  return { chromium, esbuild, missing: existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed` };
}

/** A headless Chromium without sandbox, GPU, QUIC or background traffic. */
export function launchChromium(chromium) {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Bundles `entry` for the browser into `outdir`/<name>.js (esbuild's result, with its metafile)
 * and copies cutover_bg.wasm beside it: the glue's init() fetches new URL('cutover_bg.wasm', import.meta.url).
 */
export async function bundleForPage(esbuild, { entry, outdir, name, target = 'es2022' }) {
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: TESTS_DIR,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target,
    outfile: join(outdir, `${name}.js`),
    metafile: true,
    logLevel: 'silent',
  });
  copyFileSync(join(PACKAGE_DIR, 'dist/cutover_bg.wasm'), join(outdir, 'cutover_bg.wasm'));
  return result;
}
