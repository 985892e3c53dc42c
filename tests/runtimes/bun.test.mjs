// Bun (npm `bun` 1.4.5) runs the packed package from tests/node_modules with --no-install.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { assertSmoke, parseReport } from './common/expect.mjs';
import { writeConditionProbe } from './common/condprobe.mjs';
import { bin, describeRun, packageMissing, run } from './common/run.mjs';

const BUN = bin('bun');
const skip = !existsSync(BUN) ? `bun is not installed (${BUN})` : packageMissing();

test('bun: export conditions picked (node/import for import, node/require for require)', { skip, timeout: 20_000 }, async (t) => {
  const dir = writeConditionProbe();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const r = await run(BUN, ['--no-install', 'run', 'probe.mjs'], { cwd: dir });
  assert.equal(r.code, 0, describeRun(r));
  assert.deepEqual(parseReport(r.stdout), { import: 'node.import.default', require: 'node.require.default' });
});

test('bun: migrations and big segments from the packed package (ESM and CommonJS)', { skip, timeout: 20_000 }, async (t) => {
  const r = await run(BUN, ['--no-install', 'run', 'runtimes/bun/smoke.mjs']);
  assert.equal(r.code, 0, describeRun(r));
  const report = parseReport(r.stdout);
  t.diagnostic(`bun ${report.runtime.version}: import → ${report.runtime.resolved}; require → ${report.runtime.requireResolved}`);
  assert.match(report.runtime.version, /^1\./);
  assert.match(report.runtime.resolved, /\/tests\/node_modules\/cutover\/dist\/cutover\.node\.mjs$/);
  assert.match(report.runtime.requireResolved, /\/tests\/node_modules\/cutover\/dist\/cutover\.cjs$/);
  assertSmoke(report, { runtime: 'bun (ESM)' });
  assertSmoke(report.cjs, { runtime: 'bun (CJS)' });
});
