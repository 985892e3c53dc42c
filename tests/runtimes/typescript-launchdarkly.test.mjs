// TypeScript: launchDarklyBrowserClient and launchDarklyClient against the own types of
// LaunchDarkly's browser SDK (@launchdarkly/js-client-sdk 4.x) and edge SDK
// (@launchdarkly/cloudflare-server-sdk 2.x), resolved as a bundler does
// (typescript/tsconfig.bundler-clients.json says why), with every @ts-expect-error needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bin, describeRun, PACKAGE_DIR, packageMissing, ROOT_DIR, run } from './common/run.mjs';

const TSC = bin('tsc');
const DIR = fileURLToPath(new URL('./typescript/', import.meta.url));
const CONFIG = 'tsconfig.bundler-clients.json';
const FILES = 'bundler-clients';
const skip = existsSync(TSC) ? packageMissing() : `typescript is not installed (${TSC})`;
const tsc = (cwd) => run(TSC, ['-p', CONFIG, '--pretty', 'false'], { cwd, timeoutMs: 60_000 });
const errorLines = (out) => [...new Set([...out.matchAll(/^(.+?)\((\d+),\d+\): error TS\d+:/gm)].map(([, file, line]) => `${file}:${line}`))].sort();

test("typescript: LaunchDarkly's browser and edge SDK clients are accepted by their adapters", { skip, timeout: 60_000 }, async () => {
  const r = await tsc(DIR);
  assert.equal(r.code, 0, describeRun(r));
});

test('typescript: each @ts-expect-error of the LaunchDarkly browser/edge file is needed', { skip, timeout: 60_000 }, async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), 'cutover-ts-ld-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  mkdirSync(join(scratch, 'node_modules'));
  symlinkSync(PACKAGE_DIR, join(scratch, 'node_modules/cutover'), 'dir');
  symlinkSync(join(ROOT_DIR, 'node_modules/@launchdarkly'), join(scratch, 'node_modules/@launchdarkly'), 'dir');
  symlinkSync(join(ROOT_DIR, 'node_modules/@cloudflare'), join(scratch, 'node_modules/@cloudflare'), 'dir');
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  for (const config of ['tsconfig.json', CONFIG]) cpSync(join(DIR, config), join(scratch, config));
  mkdirSync(join(scratch, FILES));
  const expected = [];
  for (const name of readdirSync(join(DIR, FILES))) {
    const lines = readFileSync(join(DIR, FILES, name), 'utf8').split('\n');
    lines.forEach((l, i) => l.includes('// @ts-expect-error') && expected.push(`${FILES}/${name}:${i + 2}`));
    writeFileSync(join(scratch, FILES, name), lines.map((l) => l.replace('// @ts-expect-error', '// (expect error)')).join('\n'));
  }
  assert.ok(expected.length >= 2, `${expected.length} directives`);
  const r = await tsc(scratch);
  assert.deepEqual(errorLines(r.stdout), expected.sort(), `errors exactly on the lines after the directives\n${r.stdout}`);
});
