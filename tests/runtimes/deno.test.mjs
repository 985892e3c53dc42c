// Deno (npm `deno` 2.9.6) runs the packed package from tests/node_modules via --node-modules-dir=manual.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { assertSmoke, EXPORTS, parseReport } from './common/expect.mjs';
import { writeConditionProbe } from './common/condprobe.mjs';
import { bin, describeRun, packageMissing, run } from './common/run.mjs';

const DENO = bin('deno');
const skip = !existsSync(DENO) ? `deno is not installed (${DENO})` : packageMissing();
const denoArgs = (script) => ['run', '--allow-read', '--allow-env', '--no-prompt', '--node-modules-dir=manual', script];
const env = { DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' };

test('deno: export conditions picked (deno for import, node/require for require)', { skip, timeout: 20_000 }, async (t) => {
  const dir = writeConditionProbe();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const r = await run(DENO, denoArgs('probe.mjs'), { cwd: dir, env });
  assert.equal(r.code, 0, describeRun(r));
  assert.deepEqual(parseReport(r.stdout), { import: 'deno.default', require: 'node.require.default' });
});

test('deno: migrations and big segments from the packed package (ESM and CommonJS)', { skip, timeout: 20_000 }, async (t) => {
  const r = await run(DENO, denoArgs('runtimes/deno/smoke.mjs'), { env });
  assert.equal(r.code, 0, describeRun(r));
  const report = parseReport(r.stdout);
  t.diagnostic(`deno ${report.runtime.version}: import → ${report.runtime.resolved}; require → ${report.runtime.requireResolved}`);
  assert.match(report.runtime.version, /^2\./);
  assert.match(report.runtime.resolved, /\/tests\/node_modules\/cutover\/dist\/cutover\.deno\.mjs$/);
  assert.match(report.runtime.requireResolved, /\/tests\/node_modules\/cutover\/dist\/cutover\.cjs$/);
  assertSmoke(report, { runtime: 'deno (ESM)' });
  assertSmoke(report.cjs, { runtime: 'deno (CJS)' });
  assert.deepEqual(report.exports, EXPORTS);
});
