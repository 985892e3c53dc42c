// launchDarklyBrowserClient over the real @launchdarkly/js-client-sdk 4.x in headless Chromium:
// the page (chromium/bundle-launchdarkly.mjs, an esbuild bundle with 'cutover') gets its flags from
// bootstrap data and from the test's local polling endpoint; every request that does not go to
// that local server is blocked and recorded, and the test asserts there was none.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleForPage, launchChromium, loadChromium } from './common/chromium.mjs';
import { startLaunchDarklyBrowserServer } from './common/launchdarkly-browser-server.mjs';
import { packageMissing, ROOT_DIR } from './common/run.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const { chromium, esbuild, missing } = await loadChromium({ withEsbuild: true });
const SDK_PACKAGE = join(ROOT_DIR, 'node_modules/@launchdarkly/js-client-sdk/package.json');
const skip = missing ?? (existsSync(SDK_PACKAGE) ? packageMissing() : '@launchdarkly/js-client-sdk is not installed');
const SDK_VERSION = skip ? '' : JSON.parse(readFileSync(SDK_PACKAGE, 'utf8')).version;

const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];
/** Flags of the polling endpoint, by context key: only the second user has any. */
const POLLED = {
  'second-user': { 'mig-changes': { value: 'live', variation: 3, version: 13, reason: { kind: 'RULE_MATCH', ruleIndex: 1, ruleId: 'polled-rule' } } },
};

let browser, server, bundleDir, report, blocked, polled;
before(async () => {
  if (skip) return;
  bundleDir = mkdtempSync(join(tmpdir(), 'cutover-chromium-ld-'));
  await bundleForPage(esbuild, { entry: here('./chromium/bundle-launchdarkly.mjs'), outdir: bundleDir, name: 'bundle-launchdarkly' });
  polled = [];
  server = await startLaunchDarklyBrowserServer({
    routes: { '/bundle/': bundleDir, '/pages/': here('./chromium') },
    flagsFor: (context, request) => {
      polled.push({ context, ...request });
      return POLLED[context?.key] ?? {};
    },
  });
  browser = await launchChromium(chromium);
  const page = await browser.newPage();
  const problems = [];
  blocked = [];
  // No network: only the local server is reachable; anything else is aborted and recorded.
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${server.origin}/`)) return route.continue();
    blocked.push(url);
    return route.abort('blockedbyclient');
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  try {
    const response = await page.goto(`${server.origin}/pages/bundle.html?entry=bundle-launchdarkly`);
    assert.equal(response.status(), 200);
    await page.waitForFunction(() => window.__report !== undefined, null, { timeout: 20_000 });
    report = JSON.parse(await page.evaluate(async () => JSON.stringify(await window.__report)));
    assert.equal(report?.failed, undefined, `the page failed: ${report?.failed}\n${problems.join('\n')}`);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

test('chromium + LaunchDarkly browser SDK: no request left the local server', { skip }, (t) => {
  t.diagnostic(`@launchdarkly/js-client-sdk ${SDK_VERSION}, ${browser.version()}`);
  assert.deepEqual(blocked, [], 'requests to anywhere but the local server');
  assert.equal(report.started, 'complete', 'start() with bootstrap data completed');
  assert.deepEqual(report.identified, ['completed', 'completed']);
  // The only request to the service: the polling request of identify(SECOND), with reasons.
  const service = server.requests.filter((r) => !r.path.startsWith('/bundle/') && !r.path.startsWith('/pages/'));
  assert.equal(service.length, 1, JSON.stringify(service));
  assert.match(service[0].path, /^\/sdk\/evalx\/browser-env\/contexts\//);
  assert.deepEqual(polled.map((p) => [p.context.key, p.clientSideId, p.withReasons]), [['second-user', 'browser-env', true]]);
  assert.deepEqual(report.sdkLogs.filter((l) => l.level === 'error'), []);
  assert.deepEqual(report.cutoverLogs.filter((l) => l.level === 'error' || l.level === 'warn'), [
    { level: 'error', text: "migration flag 'mig-not-a-stage' served a value that is not a stage; using the default stage 'dualwrite'" },
    { level: 'error', text: "migration flag 'mig-number' served a value that is not a stage; using the default stage 'complete'" },
  ], 'only the core\'s SPEC A7.4 errors for the two flags that serve no stage');
});

test('chromium + LaunchDarkly browser SDK: each stage served by a variation runs that stage', { skip }, () => {
  // Which origins run for a read and a write, and which is authoritative (SPEC, stage table).
  const expected = {
    off: { read: 'old', readRan: ['read-old'], writeRan: ['write-old'] },
    dualwrite: { read: 'old', readRan: ['read-old'], writeRan: ['write-old', 'write-new'] },
    shadow: { read: 'old', readRan: ['read-old', 'read-new'], writeRan: ['write-old', 'write-new'] },
    live: { read: 'new', readRan: ['read-old', 'read-new'], writeRan: ['write-new', 'write-old'] },
    rampdown: { read: 'new', readRan: ['read-new'], writeRan: ['write-new', 'write-old'] },
    complete: { read: 'new', readRan: ['read-new'], writeRan: ['write-new'] },
  };
  assert.deepEqual(report.stages.map((s) => s.stage), STAGES);
  for (const [i, s] of report.stages.entries()) {
    const want = expected[s.stage];
    assert.deepEqual(s.read, { origin: want.read, success: true, value: 'same' }, s.stage);
    assert.deepEqual([...s.readRan].sort(), [...want.readRan].sort(), `${s.stage}: read origins`);
    assert.deepEqual([...s.writeRan].sort(), [...want.writeRan].sort(), `${s.stage}: write origins`);
    assert.equal(s.events.length, 2, `${s.stage}: one event per operation`);
    for (const [event, operation] of [[s.events[0], 'read'], [s.events[1], 'write']]) {
      assert.equal(event.kind, 'migration_op');
      assert.equal(event.operation, operation);
      assert.deepEqual(event.context, { kind: 'user', key: 'first-user', name: 'Ann' }, 'the identified context, passed as ld.getContext()');
      assert.deepEqual(event.evaluation, {
        key: `mig-${s.stage}`,
        value: s.stage,
        default: 'off',
        reason: { kind: 'RULE_MATCH', ruleIndex: i, ruleId: `rule-${s.stage}` },
        variation: i,
      }, `${s.stage} ${operation}: the SDK's value, variation and reason; no version (the browser SDK gives none)`);
      assert.equal('samplingRatio' in event, false);
    }
    const invoked = s.events[0].measurements.find((m) => m.key === 'invoked').values;
    assert.deepEqual(Object.keys(invoked).sort(), want.readRan.map((r) => r.slice(5)).sort(), `${s.stage}: invoked`);
    const consistent = s.events[0].measurements.find((m) => m.key === 'consistent');
    assert.deepEqual(consistent, want.readRan.length === 2 ? { key: 'consistent', value: true, samplingRatio: 1 } : undefined, `${s.stage}: consistency checked when both ran, its ratio written for LaunchDarkly`);
  }
});

test('chromium + LaunchDarkly browser SDK: the default stage for a missing flag or a value that is not a stage', { skip }, () => {
  const byKey = Object.fromEntries(report.defaults.map((d) => [d.key, d]));
  assert.equal(byKey['mig-missing'].origin, 'new', 'live');
  assert.deepEqual(byKey['mig-missing'].evaluation, { key: 'mig-missing', value: 'live', default: 'live', reason: { kind: 'ERROR', errorKind: 'FLAG_NOT_FOUND' } });
  for (const key of ['mig-not-a-stage', 'mig-number']) {
    const d = byKey[key];
    assert.equal(d.origin, d.def === 'dualwrite' ? 'old' : 'new', key);
    assert.deepEqual(d.evaluation, { key, value: d.def, default: d.def, reason: { kind: 'ERROR', errorKind: 'WRONG_TYPE' } }, key);
  }
  assert.deepEqual(byKey['mig-no-reason'].evaluation, { key: 'mig-no-reason', value: 'shadow', default: 'off', variation: 2 }, 'no reason in the flag data: none in the event');
});

test('chromium + LaunchDarkly browser SDK: events go to `events`, sampled by samplingRatio', { skip }, () => {
  assert.deepEqual(report.sampling[0], { sent: 0, ratios: [], count: 300 }, 'samplingRatio 0: no event, every operation counted');
  const three = report.sampling[3];
  assert.equal(three.count, 300);
  // 1 in 3 of 300: 100 expected; outside 40..170 has a probability far below 1e-9.
  assert.ok(three.sent > 40 && three.sent < 170, `${three.sent} of 300`);
  assert.deepEqual(three.ratios, [3], 'each sampled event says samplingRatio 3');
  assert.deepEqual(report.silentRead, { origin: 'new', success: true, value: 'same' }, 'without events, reads go on');
});

test('chromium + LaunchDarkly browser SDK: a flag change after identify() is read live', { skip }, () => {
  assert.deepEqual(report.changes.map((c) => [c.label, c.context.key, c.origin, c.evaluation?.value, c.evaluation?.variation, c.evaluation?.reason, c.eventContext?.key]), [
    ['bootstrap', 'first-user', 'old', 'off', 0, { kind: 'FALLTHROUGH' }, 'first-user'],
    ['polled', 'second-user', 'new', 'live', 3, { kind: 'RULE_MATCH', ruleIndex: 1, ruleId: 'polled-rule' }, 'second-user'],
    ['identify bootstrap', 'third-user', 'new', 'complete', 5, { kind: 'TARGET_MATCH' }, 'third-user'],
  ]);
});
