// Node packaging: the npm-pack tarball installed into a throwaway project (npm install --offline,
// or unpacked when npm cannot install), then require/import/cutover/web from there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assertSmoke, EXPORTS, parseReport } from './common/expect.mjs';
import { describeRun, ROOT_DIR, run, TARBALL } from './common/run.mjs';

const skip = existsSync(TARBALL) ? false : `${TARBALL} is missing: run \`bash scripts/pack-for-tests.sh\``;
const here = (p) => new URL(p, import.meta.url);
const env = { CUTOVER_SMOKE_URL: here('./common/smoke.mjs').href };
// npm's own npm_* variables (set when this runs under `npm test`) must not leak into the child npm.
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

let project, installedBy;
before(async () => {
  if (skip) return;
  project = mkdtempSync(join(tmpdir(), 'cutover-consumer-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, version: '1.0.0' }));
  const npm = await new Promise((resolve) => {
    import('node:child_process').then(({ execFile }) =>
      execFile('npm', ['install', TARBALL, '--no-audit', '--no-fund', '--offline', '--ignore-scripts', '--no-package-lock'], { cwd: project, env: cleanEnv, timeout: 30_000 }, (error, stdout, stderr) =>
        resolve({ error, stdout, stderr }),
      ),
    );
  });
  if (!npm.error && existsSync(join(project, 'node_modules/cutover/package.json'))) {
    installedBy = 'npm install --offline';
  } else {
    // Offline npm could not install: unpacking is installing (cutover has no dependencies).
    const dir = join(project, 'node_modules/cutover');
    mkdirSync(dir, { recursive: true });
    const tar = await run('tar', ['-xzf', TARBALL, '-C', dir, '--strip-components=1']);
    assert.equal(tar.code, 0, describeRun(tar));
    installedBy = `tar (npm failed: ${String(npm.stderr || npm.error).trim().split('\n').pop()})`;
  }
  copyFileSync(here('./node/check.cjs'), join(project, 'check.cjs'));
  copyFileSync(here('./node/check.mjs'), join(project, 'check.mjs'));
});

after(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

test('tarball: only dist/, README.md, LICENSE, CHANGELOG.md and package.json are shipped', { skip }, async () => {
  const r = await run('tar', ['-tzf', TARBALL]);
  assert.equal(r.code, 0, describeRun(r));
  const files = r.stdout.trim().split('\n').sort();
  assert.deepEqual(files, [
    'package/CHANGELOG.md',
    'package/LICENSE',
    'package/README.md',
    'package/dist/cutover.browser.mjs',
    'package/dist/cutover.cjs',
    'package/dist/cutover.deno.mjs',
    'package/dist/cutover.edge-light.mjs',
    'package/dist/cutover.node.mjs',
    'package/dist/cutover.web.mjs',
    'package/dist/cutover.workerd.mjs',
    'package/dist/cutover_bg.wasm',
    'package/dist/index.d.cts',
    'package/dist/index.d.mts',
    'package/dist/index.d.ts',
    'package/dist/lib/esm/package.json',
    'package/dist/lib/esm/web.js',
    'package/dist/web.d.mts',
    'package/package.json',
  ]);
});

test('tarball: LICENSE is the license package.json names', { skip }, async () => {
  const r = await run('tar', ['-xzOf', TARBALL, 'package/LICENSE', 'package/package.json']);
  assert.equal(r.code, 0, describeRun(r));
  const license = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))).license;
  assert.equal(license, 'Apache-2.0');
  assert.match(r.stdout, /Apache License\s+Version 2\.0, January 2004/);
});

// 170,000 → 192,000 B with issue 31's console (measured 189,213 B): its wasm part (src/fleet and
// its binding: 111,274 → 114,104 B of gzipped wasm) and its facade, page (6.2 KB gzipped, served
// from the package: no CDN) and types.
test('tarball: the whole package is at most 192 KB gzipped (what npm publishes; the project bound)', { skip }, () => {
  const bytes = statSync(TARBALL).size;
  assert.ok(bytes <= 192_000, `the npm tarball is ${bytes} bytes`);
});

// cutover/migrations (issue 23 part 6): built into the repository's dist/migrations/ by
// scripts/build.sh, kept out of the tarball (package.json files: !dist/migrations/) while its
// wasm (77 KB gzipped) would take the package over the bound above. Guarded from dist/.
const MIGRATIONS_DIR = join(ROOT_DIR, 'dist/migrations');
const skipMigrations = existsSync(join(MIGRATIONS_DIR, 'migrations_bg.wasm')) ? false : `${MIGRATIONS_DIR} is missing: run \`bash scripts/build.sh\``;
// Every name of the full entry but Big Segments', the relay's and the console's, the server halves
// (API.md §2c, §2d: the migrations API only).
const NOT_MIGRATIONS = ['migrationConsole', 'migrationEventRelay', 'redisFleet', 'BigSegmentStoreManager', 'awsDynamoDbHost', 'bigSegmentRef', 'dynamoDbBigSegmentStore', 'hashContextKey', 'ioredisHost', 'launchDarklyBigSegmentStore', 'nodeRedisHost', 'redisBigSegmentStore', 'upstashHost'];

test('cutover/migrations: the migrations names only, the same from import and require, over its own wasm', { skip: skipMigrations, timeout: 20_000 }, async () => {
  const esm = await import(pathToFileURL(join(MIGRATIONS_DIR, 'migrations.node.mjs')).href);
  const cjs = createRequire(import.meta.url)(join(MIGRATIONS_DIR, 'migrations.cjs'));
  assert.deepEqual(Object.keys(esm).sort(), EXPORTS.filter((n) => !NOT_MIGRATIONS.includes(n)));
  assert.deepEqual(Object.keys(cjs).sort(), Object.keys(esm).sort());
  assert.equal(cjs.MigratorBuilder, esm.MigratorBuilder, 'one module instance for import and require');
  const migrator = new esm.MigratorBuilder(esm.fixedStage('shadow'))
    .read((n) => ({ n, at: 1 }), (n) => ({ n, at: 2 }), esm.sameStructure({ ignore: ['/at'] }))
    .write((n) => n, (n) => n)
    .build();
  assert.deepEqual(await migrator.read('flag', { kind: 'user', key: 'k' }, 'off', 7), { origin: 'old', success: true, value: { n: 7, at: 1 } });
  assert.deepEqual(migrator.stats().read.consistency, { checked: 1, consistent: 1, paths: {} });
  // Its wasm is the migrations-only build: none of Big Segments' exports.
  const wasmExports = WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(join(MIGRATIONS_DIR, 'migrations_bg.wasm'))));
  const fullExports = WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(join(ROOT_DIR, 'dist/cutover_bg.wasm'))));
  assert.ok(wasmExports.length < fullExports.length, `${wasmExports.length} exports against the full wasm's ${fullExports.length}`);
});

// Issue 23's target for this page is 40,000 B (not met: bench/scenarios/migrations-page-bytes.mjs
// reports it). This bound is today's figure, 88,963 B (with beaconSink in the page), plus 2%: it
// keeps the page from growing unnoticed until the target is reached, when it becomes the target.
const MIGRATIONS_PAGE_BOUND = 90_700;
test(`cutover/migrations: the size target's page, JS + wasm gzipped, is at most ${MIGRATIONS_PAGE_BOUND} B (target 40,000 B, not met)`, { skip: skipMigrations, timeout: 20_000 }, async (t) => {
  const { buildPage } = await import(pathToFileURL(join(ROOT_DIR, 'bench/lib/page-size.mjs')).href);
  const page = await buildPage('migrations');
  const full = await buildPage('full');
  t.diagnostic(`migrations page ${page.totalGz} B (JS ${page.jsGz}, wasm ${page.wasmGz}); on the full entry ${full.totalGz} B`);
  assert.ok(page.totalGz <= MIGRATIONS_PAGE_BOUND, `the page is ${page.totalGz} B gzipped (JS ${page.jsGz}, wasm ${page.wasmGz})`);
  assert.ok(page.totalGz < full.totalGz, 'smaller than the same page on the full entry');
});

test('node: every target of the exports map exists in the installed package', { skip }, () => {
  const dir = join(project, 'node_modules/cutover');
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const targets = [];
  const walk = (node) => (typeof node === 'string' ? targets.push(node) : Object.values(node).forEach(walk));
  walk(pkg.exports);
  for (const t of [...targets, pkg.main, pkg.module, pkg.types]) assert.ok(existsSync(join(dir, t)), `${t} exists`);
  assert.deepEqual(Object.keys(pkg.dependencies ?? {}), [], 'no runtime dependencies');
});

test('node: require("cutover") and import("cutover") from CommonJS give the same exports', { skip, timeout: 20_000 }, async (t) => {
  const r = await run(process.execPath, ['check.cjs'], { cwd: project, env });
  assert.equal(r.code, 0, describeRun(r));
  const report = parseReport(r.stdout);
  t.diagnostic(`installed by ${installedBy}; node ${process.version}: require → ${report.requireResolved}`);
  assert.deepEqual(report.requireExports, EXPORTS);
  assert.deepEqual(report.importExports, report.requireExports);
  assert.match(report.requireResolved, /node_modules\/cutover\/dist\/cutover\.cjs$/);
  assert.equal(report.version, '0.1.0');
  assertSmoke(report.cjs, { runtime: 'node require' });
});

test('node: import from ESM, and cutover/web with initSync({module: bytes of cutover/cutover_bg.wasm})', { skip, timeout: 20_000 }, async () => {
  const r = await run(process.execPath, ['check.mjs'], { cwd: project, env });
  assert.equal(r.code, 0, describeRun(r));
  const report = parseReport(r.stdout);
  assert.deepEqual(report.importExports, EXPORTS);
  assert.deepEqual(report.webExports, [...EXPORTS, 'default', 'init', 'initSync'].sort());
  assert.match(report.importResolved, /node_modules\/cutover\/dist\/cutover\.node\.mjs$/);
  assert.match(report.webResolved, /node_modules\/cutover\/dist\/cutover\.web\.mjs$/);
  assert.match(report.wasmResolved, /node_modules\/cutover\/dist\/cutover_bg\.wasm$/);
  assertSmoke(report.esm, { runtime: 'node import' });
  assertSmoke(report.web, { runtime: 'node cutover/web' });
});
