// Node packaging: the npm-pack tarball installed into a throwaway project (npm install --offline,
// or unpacked when npm cannot install), then require/import/cutover/web from there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

test('tarball: only dist/ (cutover/migrations included), docs/*.md, README.md, LICENSE, CHANGELOG.md and package.json are shipped', { skip }, async () => {
  const r = await run('tar', ['-tzf', TARBALL]);
  assert.equal(r.code, 0, describeRun(r));
  const files = r.stdout.trim().split('\n').sort();
  // docs/ARCHITECTURE.md is the map of the repository's files: not shipped.
  const docs = readdirSync(join(ROOT_DIR, 'docs')).filter((f) => f.endsWith('.md') && f !== 'ARCHITECTURE.md').map((f) => `package/docs/${f}`);
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
    'package/dist/migrations/lib/esm/migrations.js',
    'package/dist/migrations/lib/esm/package.json',
    'package/dist/migrations/migrations.browser.mjs',
    'package/dist/migrations/migrations.cjs',
    'package/dist/migrations/migrations.d.cts',
    'package/dist/migrations/migrations.d.mts',
    'package/dist/migrations/migrations.d.ts',
    'package/dist/migrations/migrations.deno.mjs',
    'package/dist/migrations/migrations.edge-light.mjs',
    'package/dist/migrations/migrations.node.mjs',
    'package/dist/migrations/migrations.web.mjs',
    'package/dist/migrations/migrations.workerd.mjs',
    'package/dist/migrations/migrations_bg.wasm',
    'package/dist/migrations/web.d.mts',
    'package/dist/web.d.mts',
    ...docs,
    'package/package.json',
  ].sort());
});

test('tarball: the packed package.json has no script or dev dependency (each needs files the tarball lacks) and sideEffects names shipped files only', { skip }, async () => {
  const list = await run('tar', ['-tzf', TARBALL]);
  const shipped = new Set(list.stdout.trim().split('\n').map((f) => f.replace(/^package\//, './')));
  const r = await run('tar', ['-xzOf', TARBALL, 'package/package.json']);
  assert.equal(r.code, 0, describeRun(r));
  const packed = JSON.parse(r.stdout);
  assert.equal(packed.scripts, undefined, `scripts: ${JSON.stringify(packed.scripts)}`);
  assert.equal(packed.devDependencies, undefined);
  assert.ok(packed.sideEffects.length > 0);
  for (const file of packed.sideEffects) assert.ok(shipped.has(file), `sideEffects names ${file}, which the tarball lacks`);
  // Everything else is the repository's manifest as it is (and npm pack put that one back).
  const repository = JSON.parse(readFileSync(join(ROOT_DIR, 'package.json'), 'utf8'));
  assert.ok(repository.scripts.test, "the repository's package.json keeps its scripts");
  const { scripts, devDependencies, ...rest } = repository;
  assert.deepEqual(packed, rest);
});

test('tarball: LICENSE is the license package.json names', { skip }, async () => {
  const r = await run('tar', ['-xzOf', TARBALL, 'package/LICENSE', 'package/package.json']);
  assert.equal(r.code, 0, describeRun(r));
  const license = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))).license;
  assert.equal(license, 'Apache-2.0');
  assert.match(r.stdout, /Apache License\s+Version 2\.0, January 2004/);
});

// Issue 33's bound, with cutover/migrations' own wasm and the docs in the package.
// The target is 300,000 B (issue 33); guard() (issue 30) added about 5 KB gzipped to each wasm
// (303,977 B), the console (issue 31: its page, facade, fleet binding and docs/CONSOLE.md)
// 24.6 KB more (328,608 B), and the server wasm built for speed again (issue 32: LLVM's own
// inline threshold instead of 25, 5–11 % faster for +10.2 KB of gzipped wasm): 341,134 B; with
// the Big Segments cache in pages and the tape's writer per level (issue 32): measured 343,044 B.
// The bound stands just above it until the two wasms share one engine (their common code is in
// the tarball twice: 81 KB of the migrations wasm's gzipped bytes).
const TARBALL_BOUND = 344_000;
test(`tarball: the whole package is at most ${TARBALL_BOUND} B (what npm publishes; the project bound)`, { skip }, (t) => {
  const bytes = statSync(TARBALL).size;
  t.diagnostic(`the npm tarball is ${bytes} B`);
  assert.ok(bytes <= TARBALL_BOUND, `the npm tarball is ${bytes} bytes`);
});

// cutover/migrations: the installed package's, reached through its exports map by import and
// require from the consumer project; its wasm compared with the full one.
// Every name of the full entry but Big Segments', the relay's and the console's, the server halves
// (API.md §2c, §2d: the migrations API only).
const NOT_MIGRATIONS = ['migrationConsole', 'migrationEventRelay', 'redisFleet', 'BigSegmentStoreManager', 'awsDynamoDbHost', 'bigSegmentRef', 'dynamoDbBigSegmentStore', 'hashContextKey', 'ioredisHost', 'launchDarklyBigSegmentStore', 'nodeRedisHost', 'redisBigSegmentStore', 'upstashHost'];
const MIGRATIONS_CHECK = `
import { createRequire } from 'node:module';
const esm = await import('cutover/migrations');
const require = createRequire(import.meta.url);
const cjs = require('cutover/migrations');
const migrator = new esm.MigratorBuilder(esm.fixedStage('shadow'))
  .read((n) => ({ n, at: 1 }), (n) => ({ n, at: 2 }), esm.sameStructure({ ignore: ['/at'] }))
  .write((n) => n, (n) => n)
  .build();
const result = await migrator.read('flag', { kind: 'user', key: 'k' }, 'off', 7);
console.log(JSON.stringify({
  esm: Object.keys(esm).sort(), cjs: Object.keys(cjs).sort(), same: cjs.MigratorBuilder === esm.MigratorBuilder,
  resolved: [import.meta.resolve('cutover/migrations'), require.resolve('cutover/migrations'), import.meta.resolve('cutover/migrations_bg.wasm')],
  result, consistency: migrator.stats().read.consistency,
}));
`;

test('cutover/migrations: installed, the migrations names only, the same from import and require, over its own wasm', { skip, timeout: 20_000 }, async () => {
  writeFileSync(join(project, 'check-migrations.mjs'), MIGRATIONS_CHECK);
  const r = await run(process.execPath, ['check-migrations.mjs'], { cwd: project });
  assert.equal(r.code, 0, describeRun(r));
  const report = JSON.parse(r.stdout);
  assert.deepEqual(report.esm, EXPORTS.filter((n) => !NOT_MIGRATIONS.includes(n)));
  assert.deepEqual(report.cjs, report.esm);
  assert.equal(report.same, true, 'one module instance for import and require');
  assert.match(report.resolved[0], /node_modules\/cutover\/dist\/migrations\/migrations\.node\.mjs$/);
  assert.match(report.resolved[1], /node_modules\/cutover\/dist\/migrations\/migrations\.cjs$/);
  assert.match(report.resolved[2], /node_modules\/cutover\/dist\/migrations\/migrations_bg\.wasm$/);
  assert.deepEqual(report.result, { origin: 'old', success: true, value: { n: 7, at: 1 } });
  assert.deepEqual(report.consistency, { checked: 1, consistent: 1, paths: {} });
  // Its wasm is the migrations-only build: none of Big Segments' exports.
  const dir = join(project, 'node_modules/cutover/dist');
  const wasmExports = WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(join(dir, 'migrations/migrations_bg.wasm'))));
  const fullExports = WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(join(dir, 'cutover_bg.wasm'))));
  assert.ok(wasmExports.length < fullExports.length, `${wasmExports.length} exports against the full wasm's ${fullExports.length}`);
});

const MIGRATIONS_DIR = join(ROOT_DIR, 'dist/migrations');
const skipMigrations = existsSync(join(MIGRATIONS_DIR, 'migrations_bg.wasm')) ? false : `${MIGRATIONS_DIR} is missing: run \`bash scripts/build.sh\``;

// Issue 33's target for this page is 60,000 B gzipped (not met: bench/scenarios/migrations-page-bytes.mjs
// reports it, with brotli). This bound is today's figure, 87,218 B (talc as the allocator,
// --strip-target-features), plus 2%: it keeps the page from growing unnoticed.
// Measured 95,433 B with guard() in the migrations wasm (87,218 before it); 96,113 B with the
// console's merge and a flag system's tracker settled in one call (issue 32: its measurements
// kept in the core, +313 B of gzipped wasm). The 60,000 B target is not met.
const MIGRATIONS_PAGE_BOUND = 96_500;
test(`cutover/migrations: the size target's page, JS + wasm gzipped, is at most ${MIGRATIONS_PAGE_BOUND} B (target 60,000 B, not met)`, { skip: skipMigrations, timeout: 20_000 }, async (t) => {
  const { buildPage } = await import(pathToFileURL(join(ROOT_DIR, 'bench/lib/page-size.mjs')).href);
  const page = await buildPage('migrations');
  const full = await buildPage('full');
  t.diagnostic(`migrations page ${page.totalGz} B gzipped (JS ${page.jsGz}, wasm ${page.wasmGz}), ${page.totalBr} B brotli (JS ${page.jsBr}, wasm ${page.wasmBr}); on the full entry ${full.totalGz} B gzipped, ${full.totalBr} B brotli`);
  assert.ok(page.totalGz <= MIGRATIONS_PAGE_BOUND, `the page is ${page.totalGz} B gzipped (JS ${page.jsGz}, wasm ${page.wasmGz})`);
  assert.ok(page.totalBr < page.totalGz, 'brotli measured');
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
