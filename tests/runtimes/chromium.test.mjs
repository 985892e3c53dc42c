// Headless Chromium (Debian /usr/bin/chromium) through playwright-core: the packed dist/ served
// over HTTP, loaded via an import map (browser entry, TLA init), via cutover/web with explicit
// init(), and as esbuild bundles.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleForPage, launchChromium, loadChromium } from './common/chromium.mjs';
import { assertSmoke } from './common/expect.mjs';
import { startStaticServer } from './common/static-server.mjs';
import { PACKAGE_DIR, packageMissing, ROOT_DIR } from './common/run.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const { chromium, esbuild, missing } = await loadChromium({ withEsbuild: true });
const skip = missing ?? packageMissing();

let browser, server, bundleDir;
before(async () => {
  if (skip) return;
  bundleDir = mkdtempSync(join(tmpdir(), 'cutover-chromium-'));
  server = await startStaticServer({
    '/dist/': join(PACKAGE_DIR, 'dist'),
    '/common/': here('./common'),
    '/pages/': here('./chromium'),
    '/bundle/': bundleDir,
  });
  browser = await launchChromium(chromium);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

/** Bundles chromium/<name>.mjs into the served /bundle/ directory (the wasm beside it); returns cutover's inputs. */
async function bundle(name, target) {
  const result = await bundleForPage(esbuild, { entry: here(`./chromium/${name}.mjs`), outdir: bundleDir, name, target });
  return Object.keys(result.metafile.inputs)
    .filter((p) => p.includes('node_modules/cutover/'))
    .map((p) => relative('node_modules/cutover', p))
    .sort();
}

/** Loads a page and returns its `window.__report` (with page errors attached on failure). */
async function report(path) {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console.error: ${m.text()}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  try {
    const response = await page.goto(server.origin + path);
    assert.equal(response.status(), 200);
    await page.waitForFunction(() => window.__report !== undefined, null, { timeout: 10_000 });
    // JSON round trip, as the other runtimes report (drops undefined properties).
    const result = JSON.parse(await page.evaluate(async () => JSON.stringify(await window.__report)));
    assert.equal(result?.failed, undefined, `${path} failed in the page: ${result?.failed}\n${problems.join('\n')}`);
    return result;
  } finally {
    await page.close();
  }
}

test('chromium: import map → cutover.browser.mjs (top-level-await init)', { skip, timeout: 20_000 }, async (t) => {
  const r = await report('/pages/importmap.html');
  t.diagnostic(`${browser.version()}: ${r.runtime.entry}`);
  assertSmoke(r, { runtime: 'chromium (browser entry)' });
  assert.ok(server.served.includes('/dist/cutover_bg.wasm'), 'the wasm was fetched from dist/');
});

test('chromium: cutover/web with explicit await init()', { skip, timeout: 20_000 }, async () => {
  const r = await report('/pages/web.html');
  assert.equal(r.runtime.initIsDefault, true, 'init is the default export');
  assert.equal(r.runtime.hasInitSync, true);
  assertSmoke(r, { runtime: 'chromium (cutover/web)' });
});

test('chromium: esbuild bundle of cutover/web (target es2020, wasm served beside the bundle)', { skip, timeout: 20_000 }, async () => {
  assert.deepEqual(await bundle('bundle-web', 'es2020'), ['dist/cutover.web.mjs', 'dist/lib/esm/web.js']);
  const r = await report('/pages/bundle.html?entry=bundle-web');
  assertSmoke(r, { runtime: 'chromium (esbuild cutover/web)' });
  assert.ok(server.served.includes('/bundle/cutover_bg.wasm'));
});

test("chromium: esbuild bundle of 'cutover' picks the browser condition", { skip, timeout: 20_000 }, async () => {
  assert.deepEqual(await bundle('bundle-default', 'es2022'), ['dist/cutover.browser.mjs', 'dist/cutover.web.mjs', 'dist/lib/esm/web.js']);
  const r = await report('/pages/bundle.html?entry=bundle-default');
  assertSmoke(r, { runtime: "chromium (esbuild 'cutover')" });
});

test('chromium: openFeatureClient over @openfeature/web-sdk (esbuild bundle)', { skip, timeout: 20_000 }, async () => {
  await bundle('bundle-openfeature', 'es2022');
  const r = await report('/pages/bundle.html?entry=bundle-openfeature');
  assert.equal(r.live, 'new');
  assert.equal(r.missing, 'old');
  assert.deepEqual(r.evaluations.map((e) => [e.value, e.reason, e.variation]), [
    ['live', { kind: 'STATIC' }, 3],
    ['shadow', { kind: 'ERROR', errorKind: 'FLAG_NOT_FOUND' }, undefined],
  ]);
  assert.deepEqual(r.tracked.map((t) => [t.name, t.details.stage, t.details.operation, t.details.invokedOld, t.details.invokedNew, t.details.samplingRatio]), [
    ['migration_op', 'live', 'read', true, true, 1],
    ['migration_op', 'shadow', 'read', true, true, 1],
  ]);
});

// cutover/migrations (issue 23 part 6) is built into dist/migrations/ but not packed yet (its wasm
// would take the tarball over 170,000 B): the page of bench/lib/page-size.mjs, built from the
// repository's dist/, served with the two search answers it fetches beside it.
const MIGRATIONS_ENTRY = join(ROOT_DIR, 'dist/migrations/migrations.browser.mjs');
const skipMigrations = skip || (existsSync(MIGRATIONS_ENTRY) ? false : `${MIGRATIONS_ENTRY} is missing: run \`bash scripts/build.sh\``);

/** The size target's page built into /bundle/<dir>/ with `answers` as its two search endpoints. */
async function migrationsPage(dir, answers) {
  const { buildPage } = await import(join(ROOT_DIR, 'bench/lib/page-size.mjs'));
  const out = join(bundleDir, dir);
  mkdirSync(out, { recursive: true });
  const sizes = await buildPage('migrations', { outdir: out });
  writeFileSync(join(out, 'index.html'), '<!doctype html>\n<meta charset="utf-8">\n<script type="module" src="./migrations-page.js"></script>\n');
  writeFileSync(join(out, 'old-search.json'), JSON.stringify(answers.old));
  writeFileSync(join(out, 'new-search.json'), JSON.stringify(answers.new));
  return sizes;
}

const lamps = (tookMs, price) => ({ tookMs, items: [{ name: 'Desk lamp', price }, { name: 'Floor lamp', price: 89 }] });

test('chromium: the cutover/migrations page (its own wasm) shadows a search and compares with sameStructure', { skip: skipMigrations, timeout: 30_000 }, async () => {
  const sizes = await migrationsPage('migrations-same', { old: lamps(12, 35), new: lamps(4, 35) });
  const before = server.served.length;
  const r = await report('/bundle/migrations-same/index.html');
  const served = server.served.slice(before);
  assert.deepEqual(r, { origin: 'old', success: true, value: lamps(12, 35), consistency: { checked: 1, consistent: 1, paths: {} } });
  assert.ok(served.includes('/bundle/migrations-same/migrations_bg.wasm'), 'the migrations wasm was fetched');
  assert.ok(!served.some((p) => p.endsWith('/cutover_bg.wasm')), `the full wasm was not: ${served}`);
  assert.equal(sizes.wasm, 'migrations_bg.wasm');
});

test('chromium: the cutover/migrations page counts a different answer as inconsistent (/tookMs ignored, a price not)', { skip: skipMigrations, timeout: 30_000 }, async () => {
  await migrationsPage('migrations-different', { old: lamps(12, 35), new: lamps(4, 36) });
  const r = await report('/bundle/migrations-different/index.html');
  assert.equal(r.consistency.checked, 1);
  assert.equal(r.consistency.consistent, 0);
  assert.deepEqual(r.value, lamps(12, 35), 'the old origin still answers');
});
