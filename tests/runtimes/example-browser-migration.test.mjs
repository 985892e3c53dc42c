// examples/browser-migration end to end in headless Chromium: the example's own server
// (serve.mjs, with the packed package's dist/), its page driven as a visitor would: a search in
// shadow (old answer shown, the new endpoint compared in the background, the differences list),
// then in live; the page's events sent home with beaconSink to the example's migrationEventRelay,
// which forwards them to the real @launchdarkly/node-server-sdk (offline flags, events posted to
// a local collector). Every request that does not go to the local server is blocked, and there is
// none.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchChromium, loadChromium } from './common/chromium.mjs';
import { PACKAGE_DIR, packageMissing, ROOT_DIR } from './common/run.mjs';

const { chromium, missing } = await loadChromium();
const skip = missing ?? packageMissing();

let browser, server, ld;
before(async () => {
  if (skip) return;
  const { startExampleServer } = await import(join(ROOT_DIR, 'examples/browser-migration/serve.mjs'));
  const { startLaunchDarkly } = await import('../node/helpers/launchdarkly.mjs');
  ld = await startLaunchDarkly('sdk-example-test');
  server = await startExampleServer({ cutoverDist: join(PACKAGE_DIR, 'dist'), stage: 'off', ldClient: ld.client });
  browser = await launchChromium(chromium);
});

after(async () => {
  await browser?.close();
  await server?.close();
  await ld?.close();
});

/** The migration_op events LaunchDarkly's SDK posted since the last call. */
const arrivedAtLaunchDarkly = () => ld.migrationEvents();

/** Opens the example at `?stage=`, with every non-local request blocked into `blocked`. */
async function open(t, stage) {
  const page = await browser.newPage();
  t.after(() => page.close());
  const blocked = [];
  const problems = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(server.url)) return route.continue();
    blocked.push(url);
    return route.abort('blockedbyclient');
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console.error: ${m.text()}`));
  await page.goto(`${server.url}?stage=${stage}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  return { page, blocked, problems };
}

/** Searches for `q`; resolves when the results and the comparison of this search are shown. */
async function search(page, q, checks) {
  await page.fill('#q', q);
  await page.click('#search button');
  await page.waitForSelector(`#results[data-query="${q}"]`);
  await page.waitForSelector(`#checks[data-checked="${checks}"]`);
  return page.evaluate(() => ({
    served: document.getElementById('served').dataset.origin,
    results: [...document.querySelectorAll('#results li')].map((li) => li.textContent),
    differences: [...document.querySelectorAll('#differences li')].map((li) => [li.dataset.path, li.textContent]),
    checks: document.getElementById('checks').textContent,
    events: Number(document.getElementById('events').dataset.count),
  }));
}

test('example browser-migration: shadow shows the old answer, and the differences of the new one', { skip, timeout: 60_000 }, async (t) => {
  const { page, blocked, problems } = await open(t, 'shadow');
  assert.equal(await page.textContent('#stage'), 'shadow', 'the stage, from the bootstrapped LaunchDarkly client');

  const jacket = await search(page, 'jacket', 1);
  assert.equal(jacket.served, 'old');
  assert.deepEqual(jacket.results, ['Rain jacket 150.00 €']);
  assert.deepEqual(jacket.differences, [], 'the same items: tookMs differs, and is ignored');
  assert.equal(jacket.checks, '1 comparison, 1 identical.');

  const boots = await search(page, 'boots', 2);
  assert.equal(boots.served, 'old');
  assert.deepEqual(boots.results, ['Hiking boots 89.50 €', 'Rain boots 28.00 €'], 'the old endpoint applies the sale');
  assert.deepEqual(boots.differences, [['/items/1/price', '“boots”: /items/1/price changed, old 28, new 35']]);
  assert.equal(boots.checks, '2 comparisons, 1 identical.');
  assert.equal(boots.events, 2, 'one migration_op event per search');

  assert.ok(server.requests.includes('GET /api/search/new'), 'the new endpoint was called in shadow');

  // Sent home: "Send now" flushes the page's beaconSink into the relay, which forwards to LaunchDarkly's SDK.
  await arrivedAtLaunchDarkly(); // nothing before
  await page.click('#send');
  await page.waitForSelector('#events[data-sent="2"]');
  assert.equal(await page.getAttribute('#events', 'data-failed'), '0');
  assert.equal(server.requests.filter((r) => r === 'POST /migration-events').length, 1, 'one batch');
  const arrived = await arrivedAtLaunchDarkly();
  assert.equal(arrived.length, 2, JSON.stringify(arrived));
  for (const [event, consistent] of [[arrived[0], true], [arrived[1], false]]) {
    assert.equal(event.operation, 'read');
    assert.deepEqual(event.context, { kind: 'user', key: 'visitor-1', anonymous: true }, 'the identified context, as the page passed it');
    assert.deepEqual(event.evaluation, { key: 'search-migration', value: 'shadow', default: 'off', reason: { kind: 'FALLTHROUGH' }, variation: 2 });
    const m = Object.fromEntries(event.measurements.map((x) => [x.key, x]));
    assert.deepEqual(m.invoked.values, { old: true, new: true });
    assert.deepEqual(m.consistent, { key: 'consistent', value: consistent, samplingRatio: 1 }, 'the page\'s comparison, as LaunchDarkly records it');
  }

  assert.deepEqual(blocked, [], 'requests to anywhere but the local server');
  assert.deepEqual(problems, []);
});

test('example browser-migration: live shows the new answer, still compared with the old one', { skip, timeout: 60_000 }, async (t) => {
  const { page, blocked, problems } = await open(t, 'live');
  assert.equal(await page.textContent('#stage'), 'live');
  const boots = await search(page, 'boots', 1);
  assert.equal(boots.served, 'new');
  assert.deepEqual(boots.results, ['Hiking boots 89.50 €', 'Rain boots 35.00 €']);
  assert.deepEqual(boots.differences.map(([path]) => path), ['/items/1/price']);
  assert.deepEqual(blocked, []);
  assert.deepEqual(problems, []);
});

test('example browser-migration: off calls the old endpoint only', { skip, timeout: 60_000 }, async (t) => {
  const { page } = await open(t, 'off');
  const before = server.requests.filter((r) => r === 'GET /api/search/new').length;
  await page.fill('#q', 'shoes');
  await page.click('#search button');
  await page.waitForSelector('#results[data-query="shoes"]');
  assert.equal(await page.getAttribute('#served', 'data-origin'), 'old');
  assert.equal(await page.getAttribute('#events', 'data-count'), '1');
  assert.equal(server.requests.filter((r) => r === 'GET /api/search/new').length, before, 'no request to the new endpoint');
});
