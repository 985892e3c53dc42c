// guard() in workerd through Miniflare (issue 30, API.md §1 "Guardrails", §2c): a Worker
// (./workerd/guard-worker.mjs) runs createMigration(ldClient, { …, guard }) made once per isolate,
// so the guard lives across requests. The LaunchDarkly client there is a stub serving 'live' (a
// fixedStage-like client with trackMigration), not LaunchDarkly's edge SDK: that SDK's client
// belongs to the request that made it, and a guard must outlive requests (the edge SDK itself is
// covered by workerd-launchdarkly.test.mjs). Requests, one at a time: the new origin fails three
// times in a row → tripped, the old origin answers reads and goes first on writes, the event says
// what ran; after the cooldown (100 ms) probing, and closed after three healthy probes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { jsonAnswer } from './common/expect.mjs';
import { packageMissing } from './common/run.mjs';
import { bundleWorker, Miniflare, miniflareMissing, workerOptions } from './common/workerd.mjs';

const WORKER = fileURLToPath(new URL('./workerd/guard-worker.mjs', import.meta.url));
const skip = miniflareMissing ?? packageMissing();

let mf;
const op = async (query) => jsonAnswer(await mf.dispatchFetch(`http://worker.test/op?${new URLSearchParams(query)}`));

test('workerd: createMigration with guard trips in live, falls back to the old origin, probes and closes', { skip, timeout: 60_000 }, async (t) => {
  // One test: the Worker is built and started here, and disposed of after it.
  const outdir = mkdtempSync(join(tmpdir(), 'cutover-workerd-guard-'));
  t.after(() => rmSync(outdir, { recursive: true, force: true }));
  await bundleWorker({ worker: WORKER }, outdir);
  mf = new Miniflare(workerOptions(outdir, 'worker.js'));
  t.after(() => mf.dispose().catch(() => {}));
  await mf.ready;

  for (let i = 0; i < 2; i++) {
    const out = await op({ op: 'read', new: 'fail' });
    assert.deepEqual(out.result, { origin: 'new', success: false });
    assert.equal(out.guard.state, 'closed', `after failure ${i + 1}`);
  }
  const third = await op({ op: 'read', new: 'fail' });
  assert.equal(third.guard.state, 'tripped');
  assert.equal(third.guard.reason, '3 consecutive errors');
  assert.deepEqual(third.changes, [{ from: 'closed', to: 'tripped', reason: '3 consecutive errors' }]);
  assert.deepEqual(third.logs, ['warn: migration guard of flag "workerd-guard": closed -> tripped: 3 consecutive errors']);

  const read = await op({ op: 'read', new: 'fail' });
  assert.deepEqual(read.result, { origin: 'old', success: true });
  assert.deepEqual(read.ran, ['readOld']);
  assert.deepEqual(read.event, { value: 'live', invoked: { old: true } }, 'the event: old only, the flag’s stage');
  const write = await op({ op: 'write', new: 'ok' });
  assert.deepEqual(write.result, { authoritative: 'old', nonAuthoritative: 'new' });
  assert.deepEqual(write.ran, ['writeOld', 'writeNew']);
  assert.deepEqual([write.stats.trips, write.stats.fallbacks], [1, { read: 1, write: 1 }]);

  await sleep(120);
  const probes = [];
  for (let i = 0; i < 3; i++) probes.push(await op({ op: 'read', new: 'ok' }));
  assert.deepEqual(probes.map((p) => p.ran.sort()), Array(3).fill(['readNew', 'readOld']), 'probeRatio 1: every read probes');
  assert.ok(probes.every((p) => p.result.origin === 'old'), 'probes return the old value');
  assert.deepEqual(probes.map((p) => p.guard.state), ['probing', 'probing', 'closed']);
  assert.deepEqual(probes[2].changes.map((c) => c.to), ['tripped', 'probing', 'closed']);
  const closed = await op({ op: 'read', new: 'ok' });
  assert.deepEqual([closed.result, closed.ran.sort()], [{ origin: 'new', success: true }, ['readNew', 'readOld']]);
  assert.deepEqual([closed.stats.trips, closed.stats.recoveries], [1, 1]);
});
