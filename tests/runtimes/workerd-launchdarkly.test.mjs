// launchDarklyClient over LaunchDarkly's edge SDK (@launchdarkly/cloudflare-server-sdk 2.x) in
// workerd (Miniflare 4): flag data in a KV namespace under `LD-Env-<clientSideID>` (the SDK's
// EdgeFeatureStore reads that key and parses it as a polling payload, { flags, segments }).
// Stages come from the flag's targeting; with sendEvents the SDK's own event processor posts the
// migration_op events to its events endpoint (`<events base>/bulk`), flushed under ctx.waitUntil.
// The SDK accepts no events URI (only logger, sendEvents and featureStore pass its option
// check), so Miniflare's outboundService stands in for the network: every fetch the Worker makes
// is answered by this test, which records it. Nothing leaves the machine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonAnswer } from './common/expect.mjs';
import { packageMissing, ROOT_DIR } from './common/run.mjs';
import { bundleWorker, Miniflare, miniflareMissing, workerOptions } from './common/workerd.mjs';

const WORKER = fileURLToPath(new URL('./workerd/launchdarkly-edge.mjs', import.meta.url));
const SDK_PACKAGE = join(ROOT_DIR, 'node_modules/@launchdarkly/cloudflare-server-sdk/package.json');
const skip = miniflareMissing ?? (existsSync(SDK_PACKAGE) ? packageMissing() : '@launchdarkly/cloudflare-server-sdk is not installed');
const SDK_VERSION = skip ? '' : JSON.parse(readFileSync(SDK_PACKAGE, 'utf8')).version;

const CLIENT_SIDE_ID = 'edge-env-1';
const FLAG = 'search-migration';
const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];

/** The flag: each `user-<stage>` targeted to its stage, `beta-*` keys by a rule to live, others off. */
const flag = {
  key: FLAG,
  version: 7,
  on: true,
  variations: STAGES,
  offVariation: 0,
  fallthrough: { variation: 0 },
  targets: STAGES.map((stage, variation) => ({ values: [`user-${stage}`], variation })),
  contextTargets: [],
  rules: [{ id: 'beta-rule', variation: 3, trackEvents: false, clauses: [{ contextKind: 'user', attribute: 'key', op: 'startsWith', values: ['beta-'], negate: false }] }],
  prerequisites: [],
  salt: 'cutover',
  trackEvents: false,
  trackEventsFallthrough: false,
  debugEventsUntilDate: null,
  clientSide: false,
  deleted: false,
  migration: { checkRatio: 1 },
};

let outdir, mf, outbound, log, held;
before(async () => {
  if (skip) return;
  outdir = mkdtempSync(join(tmpdir(), 'cutover-workerd-ld-'));
  // The SDK imports node:events: workerd provides it with the nodejs_compat flag (as wrangler bundles it).
  await bundleWorker([WORKER], outdir, { external: ['node:*'] });
  outbound = [];
  log = [];
  mf = new Miniflare(workerOptions(outdir, 'launchdarkly-edge.js', {
    compatibilityFlags: ['nodejs_compat'],
    kvNamespaces: ['LD_KV'],
    bindings: { CLIENT_SIDE_ID },
    // The Worker's network: every outbound fetch lands here (the SDK's event posts).
    // While `held` is a promise, each answer waits for it: the Worker's flush stays pending.
    outboundService: async (request) => {
      const url = new URL(request.url);
      outbound.push({ method: request.method, path: url.pathname, headers: Object.fromEntries(request.headers), body: await request.text() });
      log.push(`post:${url.pathname}`);
      await held;
      log.push(`answered:${url.pathname}`);
      return new Response(null, { status: 202 });
    },
  }));
  await mf.ready;
  const kv = await mf.getKVNamespace('LD_KV');
  await kv.put(`LD-Env-${CLIENT_SIDE_ID}`, JSON.stringify({ flags: { [FLAG]: flag }, segments: {} }));
});

after(async () => {
  await mf?.dispose().catch(() => {});
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

async function migrate(query) {
  return jsonAnswer(await mf.dispatchFetch(`http://worker.test/migrate?${new URLSearchParams(query)}`));
}

/** The migration_op events of every bulk post so far. */
const posted = () => outbound.filter((r) => r.method === 'POST' && r.path.endsWith('/bulk')).flatMap((r) => JSON.parse(r.body)).filter((e) => e.kind === 'migration_op');

test('workerd + edge SDK: each stage comes from the flag\'s targeting in KV; no event without sendEvents', { skip, timeout: 60_000 }, async (t) => {
  t.diagnostic(`@launchdarkly/cloudflare-server-sdk ${SDK_VERSION}`);
  const expected = { off: 'old', dualwrite: 'old', shadow: 'old', live: 'new', rampdown: 'new', complete: 'new' };
  const bothRun = new Set(['shadow', 'live']);
  for (const stage of STAGES) {
    const out = await migrate({ user: `user-${stage}` });
    assert.equal(out.stage, stage, `user-${stage} is targeted to ${stage}`);
    assert.deepEqual(out.result, { origin: expected[stage], success: true }, stage);
    assert.deepEqual([...out.ran].sort(), bothRun.has(stage) ? ['new', 'old'] : [expected[stage]], `${stage}: origins run`);
    assert.deepEqual(out.errors, [], stage);
  }
  assert.equal((await migrate({ user: 'beta-7' })).stage, 'live', 'the rule');
  assert.equal((await migrate({ user: 'someone' })).stage, 'off', 'the fallthrough');
  const write = await migrate({ user: 'user-live', op: 'write' });
  assert.deepEqual(write.result, { authoritative: 'new', nonAuthoritative: 'old' });
  await mf.dispatchFetch('http://worker.test/none'); // a last request, after the earlier ones' waitUntil
  assert.deepEqual(outbound, [], 'sendEvents off (the SDK\'s default): nothing was fetched');
});

test('workerd + edge SDK: with sendEvents, the migration_op events reach the events endpoint after the response (ctx.waitUntil)', { skip, timeout: 60_000 }, async (t) => {
  const before = outbound.length;
  // The events endpoint answers nothing until both responses are in hand: a response that waited
  // for the flush would never come (the test would time out).
  let release;
  held = new Promise((resolve) => (release = resolve));
  const shadow = await migrate({ user: 'user-shadow', events: '1' });
  log.push('response:read');
  assert.deepEqual(shadow.result, { origin: 'old', success: true });
  const write = await migrate({ user: 'beta-9', events: '1', op: 'write' });
  log.push('response:write');
  assert.deepEqual(write.result, { authoritative: 'new', nonAuthoritative: 'old' });
  assert.deepEqual([shadow.errors, write.errors], [[], []]);
  release();
  // The flushes, kept alive by ctx.waitUntil, complete after the responses. Wait for their posts
  // (no timed assertion: the loop ends when they are answered, or the test's timeout fails it).
  while (log.filter((l) => l === 'answered:/bulk').length < 2) await new Promise((r) => setTimeout(r, 20));
  assert.ok(log.indexOf('response:write') < log.indexOf('answered:/bulk'), log.join(', '));
  const requests = outbound.slice(before);
  assert.ok(requests.every((r) => r.method === 'POST' && r.path === '/bulk'), JSON.stringify(requests.map((r) => [r.method, r.path])));
  // A fact of the SDK, not of cutover: it makes its client with the key 'n/a' (it is given a
  // client-side ID for KV only), so its posts say `authorization: n/a`.
  t.diagnostic(`the SDK's event posts: ${requests.length} to ${requests[0].path}, authorization ${JSON.stringify(requests[0].headers.authorization)}, user-agent ${JSON.stringify(requests[0].headers['user-agent'])}`);
  const [read, written] = posted();
  assert.equal(read.operation, 'read');
  assert.deepEqual(read.contextKeys, { user: 'user-shadow' });
  assert.deepEqual(read.evaluation, { key: FLAG, value: 'shadow', default: 'off', reason: { kind: 'TARGET_MATCH' }, variation: 2, version: 7 });
  const m = Object.fromEntries(read.measurements.map((x) => [x.key, x]));
  assert.deepEqual(m.invoked.values, { old: true, new: true });
  assert.deepEqual(m.consistent, { key: 'consistent', value: true, samplingRatio: 1 }, 'the check ratio as the SDK records it');
  assert.equal(typeof m.latency_ms.values.old, 'number');
  assert.equal(typeof m.latency_ms.values.new, 'number');
  assert.equal(written.operation, 'write');
  assert.deepEqual(written.contextKeys, { user: 'beta-9' });
  assert.deepEqual(written.evaluation, { key: FLAG, value: 'live', default: 'off', reason: { kind: 'RULE_MATCH', ruleIndex: 0, ruleId: 'beta-rule' }, variation: 3, version: 7 });
  assert.deepEqual(written.measurements.find((x) => x.key === 'invoked').values, { old: true, new: true });
});
