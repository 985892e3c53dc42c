// workerd through Miniflare 4 (TOOLCHAIN §6): the worker is an esbuild bundle resolved with the
// `workerd` condition, the package's cutover_bg.wasm kept as a separate CompiledWasm module.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertSmoke, jsonAnswer } from './common/expect.mjs';
import { packageMissing, ROOT_DIR } from './common/run.mjs';
import { bundleWorker, Miniflare, miniflareMissing, workerOptions } from './common/workerd.mjs';

const WORKER = fileURLToPath(new URL('./workerd/worker.mjs', import.meta.url));
const MINIFLARE_VERSION = miniflareMissing ? '' : JSON.parse(readFileSync(join(ROOT_DIR, 'node_modules/miniflare/package.json'), 'utf8')).version;
const skip = miniflareMissing ?? packageMissing();

let outdir, mf, inputs;
before(async () => {
  if (skip) return;
  outdir = mkdtempSync(join(tmpdir(), 'cutover-workerd-'));
  const result = await bundleWorker([WORKER], outdir, { metafile: true });
  inputs = Object.keys(result.metafile.inputs);
});

/** The Miniflare instance (started on first use, so a start failure fails only the tests that need it). */
async function worker(bindings = { UPSTASH_URL: 'http://127.0.0.1:9', UPSTASH_TOKEN: 'unset' }) {
  if (!mf) {
    const instance = new Miniflare(workerOptions(outdir, 'worker.js', { bindings }));
    try {
      await instance.ready;
    } catch (e) {
      await instance.dispose().catch(() => {});
      throw e;
    }
    mf = instance;
  } else {
    await mf.setOptions(workerOptions(outdir, 'worker.js', { bindings }));
  }
  return mf;
}

after(async () => {
  await mf?.dispose().catch(() => {});
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

test('workerd: the bundle resolved the workerd entry and kept the wasm as a module', { skip }, () => {
  const pkg = inputs.filter((p) => p.includes('node_modules/cutover/')).map((p) => relative('node_modules/cutover', p)).sort();
  assert.deepEqual(pkg, ['dist/cutover.web.mjs', 'dist/cutover.workerd.mjs', 'dist/cutover_bg.wasm', 'dist/lib/esm/web.js']);
  const files = readdirSync(outdir);
  assert.ok(files.some((f) => /^cutover_bg.*\.wasm$/.test(f)), `wasm module next to the bundle: ${files}`);
});

test('workerd: migrations and big segments in a fetch handler', { skip, timeout: 20_000 }, async (t) => {
  const report = await jsonAnswer(await (await worker()).dispatchFetch('http://worker.test/smoke'));
  t.diagnostic(`workerd via miniflare ${MINIFLARE_VERSION} (compatibilityDate 2026-04-01), user agent ${report.runtime.userAgent}`);
  assertSmoke(report, { runtime: 'workerd' });
});

const REDIS_URL = process.env.REDIS_URL;
test(
  'workerd: upstashHost(@upstash/redis) → local Upstash REST server → redis',
  { skip: skip ?? (REDIS_URL ? false : 'REDIS_URL is not set (scripts/test.sh starts a private redis-server)'), timeout: 20_000 },
  async (t) => {
    const { createClient } = await import('redis');
    const { startUpstashServer } = await import('./common/upstash-server.mjs');
    const { hashContextKey } = await import('cutover');
    const redis = createClient({ url: REDIS_URL, socket: { connectTimeout: 2000, reconnectStrategy: false } });
    await redis.connect();
    const prefix = `cutover-workerd-${process.pid}-${Date.now()}`;
    const keys = [`${prefix}:big_segments_synchronized_on`, `${prefix}:big_segment_include:${hashContextKey('user-1')}`, `${prefix}:big_segment_exclude:${hashContextKey('user-1')}`];
    const server = await startUpstashServer(redis);
    t.after(async () => {
      await server.close();
      await redis.sendCommand(['DEL', ...keys]);
      await redis.quit();
    });
    await redis.sendCommand(['SET', keys[0], String(Date.now())]);
    await redis.sendCommand(['SADD', keys[1], 'beta.g3', 'gamma.g1']);
    await redis.sendCommand(['SADD', keys[2], 'alpha.g1', 'gamma.g1']);
    await worker({ UPSTASH_URL: server.url, UPSTASH_TOKEN: server.token });
    const res = await mf.dispatchFetch(`http://worker.test/upstash?user=user-1&prefix=${encodeURIComponent(prefix)}`);
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const out = JSON.parse(text);
    assert.deepEqual(out.member, { status: 'HEALTHY', membership: { 'beta.g3': true, 'gamma.g1': true, 'alpha.g1': false } }, text);
    assert.equal(out.strangerFromStore, null, 'the store: both sets missing → null membership (SPEC B6)');
    assert.deepEqual(out.stranger, { status: 'HEALTHY', membership: {} }, 'the manager caches null as {} (SPEC B3)');
    assert.deepEqual(out.status, { available: true, stale: false }, text);
    assert.equal(typeof out.metadata?.lastUpToDate, 'number', text);
    assert.deepEqual(out.errors, [], text);
    assert.ok(server.requests.some((r) => r.path === '/pipeline'), 'membership went through one pipeline request');
  },
);

// Issue 21 (API.md §1 "Shadowing in production"): a shadow read with background() and
// { waitUntil: (p) => ctx.waitUntil(p) }. The new origin is a fetch to the test's local server,
// which holds its answer until the test has the worker's response in hand: the response can only
// arrive first if the read did not wait for the shadow. The one migration_op event then still
// reaches the server (posted by trackMigrationOp, kept alive by ctx.waitUntil after the response).
test('workerd: background() answers before the shadow origin settles; the event follows through ctx.waitUntil', { skip, timeout: 60_000 }, async (t) => {
  const { startShadowServer, assertShadowEvent, eventShape, foregroundRead, positions, shadowUrls } = await import('./workerd/shadow-server.mjs');
  const server = await startShadowServer();
  t.after(() => server.close());
  const mf = await worker();
  const url = shadowUrls('http://worker.test', server);
  const backgroundEvents = {};

  for (const [id, value, consistent] of [['same', 'v1', true], ['differs', 'v2', false]]) {
    await t.test(`new origin returns ${value}: consistent ${consistent}`, async () => {
      const out = await jsonAnswer(await mf.dispatchFetch(url(id, value)));
      server.log.push(`response:${id}`);
      assert.deepEqual(out.result, { origin: 'old', success: true, value: 'v1' }, 'the authoritative (old) result');
      assert.deepEqual(
        out.atResponse,
        { newStarted: true, newSettled: false, backgroundEnded: false, waitUntilCalls: 1, waitUntilArg: 'promise' },
        'when the read resolved: the new origin had started (parallel) but not settled, waitUntil had been handed one promise',
      );
      assert.equal(server.events.has(id), false, 'no event before the shadow origin settled');

      await server.slowRequested(id);
      server.release(id);
      const events = await server.eventsFor(id);
      const [response, released, event] = positions(server.log, `response:${id}`, `slow-released:${id}`, `event:${id}`);
      assert.ok(response >= 0 && response < released && released < event, `response, then the shadow's answer, then the event: ${server.log.join(', ')}`);
      assert.equal(events.length, 1, JSON.stringify(events));
      assertShadowEvent(assert, events[0], { consistent, where: `workerd ${id}` });
      backgroundEvents[id] = events[0];
    });
  }

  await t.test('control: the same read without background() waits for the shadow, and sends the same event', async () => {
    const id = 'foreground';
    const out = await jsonAnswer(await foregroundRead(server, mf, url(id, 'v1', { bg: false }), id));
    assert.deepEqual(out.result, { origin: 'old', success: true, value: 'v1' });
    assert.equal(out.atResponse.newSettled, true, 'the foreground read resolved after the new origin');
    const [released, response] = positions(server.log, `slow-released:${id}`, `response:${id}`);
    assert.ok(released >= 0 && released < response, server.log.join(', '));
    const [event] = await server.eventsFor(id);
    assertShadowEvent(assert, event, { consistent: true, where: 'workerd foreground' });
    assert.ok(backgroundEvents.same, 'the background case ran');
    assert.deepEqual(eventShape(backgroundEvents.same), eventShape(event), 'background() records the same event as the foreground read');
  });

  assert.deepEqual(server.logs, [], 'nothing logged at warn/error');
  assert.equal(server.log.filter((e) => e.startsWith('slow-failsafe')).length, 0, server.log.join(', '));
});
