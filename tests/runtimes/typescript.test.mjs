// TypeScript consumer (typescript 7 `tsc`) against the shipped declarations of the packed package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bin, describeRun, PACKAGE_DIR, packageMissing, ROOT_DIR, run } from './common/run.mjs';

const TSC = bin('tsc');
const DIR = fileURLToPath(new URL('./typescript/', import.meta.url));
const MODULES = join(ROOT_DIR, 'node_modules');
const skip = existsSync(TSC) ? packageMissing() : `typescript is not installed (${TSC})`;
const tsc = (project, cwd = DIR, extra = []) => run(TSC, ['-p', project, '--pretty', 'false', ...extra], { cwd, timeoutMs: 60_000 });
/** The package's declaration files tsc loaded (from --explainFiles). */
const declarationsOf = (out) => [...new Set([...out.matchAll(/node_modules\/cutover\/(dist\/[\w./-]+\.d\.[mc]?ts)$/gm)].map((m) => m[1]))].sort();
/** `file(line,col): error TSnnnn: …` lines → [{file, line, code}]. */
const errorsOf = (out) =>
  [...out.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+):/gm)].map(([, file, line, code]) => ({ file, line: Number(line), code }));

/**
 * Compiles `dirs` of DIR with every `// @ts-expect-error` disabled, in a scratch project that links
 * the package and `links` (names under the root node_modules, or every one of them when 'all'),
 * and requires errors on exactly the lines after the directives.
 */
async function directivesAreNeeded(t, { dirs, tsconfig, links }) {
  const scratch = mkdtempSync(join(tmpdir(), 'cutover-ts-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  mkdirSync(join(scratch, 'node_modules'));
  symlinkSync(PACKAGE_DIR, join(scratch, 'node_modules/cutover'), 'dir');
  for (const name of links === 'all' ? readdirSync(MODULES).filter((n) => !n.startsWith('.')) : links) {
    symlinkSync(join(MODULES, name), join(scratch, 'node_modules', name), 'dir');
  }
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  cpSync(join(DIR, 'tsconfig.json'), join(scratch, 'tsconfig.json'));
  if (tsconfig !== 'tsconfig.json') cpSync(join(DIR, tsconfig), join(scratch, tsconfig));
  const expected = [];
  for (const dir of dirs) {
    mkdirSync(join(scratch, dir));
    for (const name of readdirSync(join(DIR, dir))) {
      const lines = readFileSync(join(DIR, dir, name), 'utf8').split('\n');
      lines.forEach((l, i) => {
        if (l.includes('// @ts-expect-error')) expected.push(`${dir}/${name}:${i + 2}`);
      });
      writeFileSync(join(scratch, dir, name), lines.map((l) => l.replace('// @ts-expect-error', '// (expect error)')).join('\n'));
    }
  }
  const r = await tsc(tsconfig, scratch);
  const got = [...new Set(errorsOf(r.stdout).map((e) => `${e.file}:${e.line}`))].sort();
  assert.deepEqual(got, expected.sort(), `errors only on the lines after the directives\n${r.stdout}`);
  return expected.length;
}

test('typescript: a strict nodenext consumer compiles (ESM → index.d.mts, CJS → index.d.cts, lib check on)', { skip, timeout: 60_000 }, async (t) => {
  const version = await run(TSC, ['--version']);
  t.diagnostic(version.stdout.trim());
  const r = await tsc('tsconfig.json', DIR, ['--explainFiles']);
  assert.equal(r.code, 0, describeRun(r));
  // Both entry files re-export the one set of declarations in index.d.ts.
  assert.deepEqual(declarationsOf(r.stdout), [
    'dist/index.d.cts',
    'dist/index.d.mts',
    'dist/index.d.ts',
    'dist/migrations/migrations.d.cts',
    'dist/migrations/migrations.d.mts',
    'dist/migrations/migrations.d.ts',
  ]);
});

test('typescript: every @ts-expect-error is needed by its own line, for the reason it names', { skip, timeout: 60_000 }, async (t) => {
  // pass/opentelemetry.ts and pass/contexts.ts compile against OpenTelemetry's and OpenFeature's own types.
  const directives = await directivesAreNeeded(t, { dirs: ['pass'], tsconfig: 'tsconfig.json', links: ['@opentelemetry', '@openfeature'] });
  assert.ok(directives >= 60, `${directives} directives`);
});

test("typescript: the real clients' types (redis, ioredis, Upstash, AWS, LaunchDarkly) are accepted, wrong ones refused", { skip, timeout: 60_000 }, async (t) => {
  const r = await tsc('tsconfig.clients.json');
  assert.equal(r.code, 0, describeRun(r));
  const directives = await directivesAreNeeded(t, { dirs: ['clients'], tsconfig: 'tsconfig.clients.json', links: 'all' });
  assert.ok(directives >= 8, `${directives} directives`);
});

test('typescript: cutover/web under nodenext (`import init from "cutover/web"; await init()`)', { skip, timeout: 60_000 }, async () => {
  const r = await tsc('tsconfig.web.json');
  assert.equal(r.code, 0, describeRun(r));
});

test('typescript: a bundler consumer (moduleResolution bundler, workerd condition) compiles', { skip, timeout: 60_000 }, async () => {
  const r = await tsc('tsconfig.bundler.json', DIR, ['--explainFiles']);
  assert.equal(r.code, 0, describeRun(r));
  const declarations = declarationsOf(r.stdout);
  assert.ok(declarations.includes('dist/index.d.ts'), `workerd condition → dist/index.d.ts: ${declarations}`);
  assert.ok(declarations.some((d) => /^dist\/web\.d\.m?ts$/.test(d)), `cutover/web types: ${declarations}`);
});

test('typescript: the control file fails to compile, with exactly its two planted errors', { skip, timeout: 60_000 }, async () => {
  const r = await tsc('tsconfig.fail.json');
  assert.notEqual(r.code, 0, `the control compiled:\n${describeRun(r)}`);
  assert.deepEqual(
    errorsOf(r.stdout).map((e) => `${e.file}:${e.line} ${e.code}`),
    ['fail/control.ts:9 TS2322', 'fail/control.ts:10 TS2578'],
    describeRun(r),
  );
});
