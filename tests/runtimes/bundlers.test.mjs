// The bundler recipes of docs/BUNDLERS.md (issue 33), each built from the page code block the doc
// shows, as the doc says, against the packed package, and run in headless Chromium: esbuild (ESM
// and IIFE), Vite (`vite build`) and webpack 5. A page passes when its read ran (its title says
// `old {"checked":1,…}`) and the wasm it fetched came from where the recipe put it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractBlocks } from '../docs/extract.mjs';
import { launchChromium, loadChromium } from './common/chromium.mjs';
import { startStaticServer } from './common/static-server.mjs';
import { PACKAGE_DIR, packageMissing, ROOT_DIR } from './common/run.mjs';

const { chromium, esbuild, missing } = await loadChromium({ withEsbuild: true });
const skip = missing ?? packageMissing();
const DOC = 'docs/BUNDLERS.md';
const WASM = join(PACKAGE_DIR, 'dist/migrations/migrations_bg.wasm');
const TITLE = 'old {"checked":1,"consistent":1,"paths":{}}';

/** The page code of each recipe: its block's "not run" reason names the bundler. */
const pages = Object.fromEntries(
  extractBlocks(readFileSync(join(ROOT_DIR, DOC), 'utf8'), DOC)
    .map((b) => [b.skip?.match(/^a page for (esbuild \(esm\)|esbuild \(iife\)|vite|webpack);/)?.[1], b.code])
    .filter(([bundler]) => bundler !== undefined),
);

let browser, project;
before(async () => {
  if (skip) return;
  // A consumer project: the packed package and the bundlers, as node_modules.
  project = mkdtempSync(join(tmpdir(), 'cutover-bundlers-'));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(PACKAGE_DIR, join(project, 'node_modules/cutover'), 'dir');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  browser = await launchChromium(chromium);
});

after(async () => {
  await browser?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

/** A recipe's directory with its page.js (the doc's block) and an index.html loading `script`. */
function recipe(name, script) {
  const dir = join(project, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'page.js'), pages[name.replace(/^esbuild-(esm|iife)$/, 'esbuild ($1)')]);
  writeFileSync(join(dir, 'index.html'), `<!doctype html><html><head><link rel="icon" href="data:,">${script}</head><body></body></html>\n`);
  return dir;
}

/** Serves `dir`, loads its index.html; the page's title once it says what it ran, and what was fetched. */
async function run(dir) {
  const server = await startStaticServer({ '/': dir });
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console.error: ${m.text()}`));
  try {
    const response = await page.goto(`${server.origin}/index.html`);
    assert.equal(response.status(), 200);
    await page.waitForFunction(() => document.title !== '', null, { timeout: 10_000 }).catch(() => {});
    const title = await page.title();
    assert.equal(title, TITLE, `the page ran its read\n${problems.join('\n')}`);
    assert.deepEqual(problems, []);
    return { served: server.served };
  } finally {
    await page.close();
    await server.close();
  }
}

test('docs/BUNDLERS.md has a page for each recipe', () => {
  assert.deepEqual(Object.keys(pages).sort(), ['esbuild (esm)', 'esbuild (iife)', 'vite', 'webpack']);
});

test('esbuild, ESM: bundled, the wasm copied beside it (new URL(…, import.meta.url) finds it)', { skip, timeout: 30_000 }, async () => {
  const dir = recipe('esbuild-esm', '<script type="module" src="/assets/page.js"></script>');
  await esbuild.build({ entryPoints: [join(dir, 'page.js')], absWorkingDir: project, bundle: true, format: 'esm', outdir: join(dir, 'assets'), logLevel: 'silent' });
  copyFileSync(WASM, join(dir, 'assets/migrations_bg.wasm'));
  const { served } = await run(dir);
  assert.ok(served.includes('/assets/migrations_bg.wasm'), `fetched: ${served}`);
});

test('esbuild, IIFE: cutover/migrations/web with init({ module_or_path })', { skip, timeout: 30_000 }, async () => {
  const dir = recipe('esbuild-iife', '<script src="/assets/page.js"></script>');
  await esbuild.build({ entryPoints: [join(dir, 'page.js')], absWorkingDir: project, bundle: true, format: 'iife', outdir: join(dir, 'assets'), logLevel: 'silent' });
  copyFileSync(WASM, join(dir, 'assets/migrations_bg.wasm'));
  assert.doesNotMatch(readFileSync(join(dir, 'assets/page.js'), 'utf8'), /^\s*(import|export)\b/m, 'a classic script');
  const { served } = await run(dir);
  assert.ok(served.includes('/assets/migrations_bg.wasm'), `fetched: ${served}`);
});

test('Vite: vite build emits the wasm as an asset, no configuration', { skip, timeout: 60_000 }, async (t) => {
  const { build, version } = await import('vite');
  const dir = recipe('vite', '<script type="module" src="./page.js"></script>');
  await build({ root: dir, configFile: false, logLevel: 'silent', build: { outDir: join(dir, 'dist') } });
  const assets = readdirSync(join(dir, 'dist/assets'));
  t.diagnostic(`vite ${version}: ${assets.join(', ')}`);
  const wasm = assets.find((f) => /^migrations_bg-.*\.wasm$/.test(f));
  assert.ok(wasm, `the wasm emitted: ${assets}`);
  const { served } = await run(join(dir, 'dist'));
  assert.ok(served.includes(`/assets/${wasm}`), `fetched: ${served}`);
});

test('webpack 5: the wasm emitted as an asset, no configuration', { skip, timeout: 60_000 }, async (t) => {
  const { default: webpack } = await import('webpack');
  const dir = recipe('webpack', '<script src="/dist/main.js"></script>');
  const stats = await new Promise((resolve, reject) => {
    const compiler = webpack({ mode: 'production', context: dir, entry: './page.js', output: { path: join(dir, 'dist') } });
    compiler.run((error, result) => compiler.close(() => (error ? reject(error) : resolve(result))));
  });
  assert.equal(stats.hasErrors(), false, stats.toString({ all: false, errors: true }));
  const emitted = readdirSync(join(dir, 'dist'));
  t.diagnostic(`webpack ${webpack.version}: ${emitted.join(', ')}`);
  const wasm = emitted.find((f) => f.endsWith('.wasm'));
  assert.ok(wasm, `the wasm emitted: ${emitted}`);
  const { served } = await run(dir);
  assert.ok(served.includes(`/dist/${wasm}`), `fetched: ${served}`);
});
