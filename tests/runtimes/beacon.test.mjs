// beaconSink in headless Chromium (playwright-core, /usr/bin/chromium), against a local collector
// on the page's own origin: batches posted with keepalive fetch, what waits sent with
// navigator.sendBeacon when the page is hidden and when it is left (a navigation, a closed tab:
// real pagehide events), and a page's cutover events through migrationEventRelay.
//
// Headless Chromium never hides a page (its visibilityState stays "visible" whatever is done to
// the window or the tab), so the hide is the page's own: visibilityState read as "hidden" and a
// real visibilitychange event dispatched. The unloads are real.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import { Readable } from 'node:stream';
import { PACKAGE_DIR, packageMissing } from './common/run.mjs';

const CHROMIUM = '/usr/bin/chromium';
let chromium, cutover, missing;
try {
  ({ chromium } = await import('playwright-core'));
  cutover = await import('cutover');
} catch (e) {
  missing = `playwright-core or cutover not installed: ${e.message}`;
}
const skip = missing ?? (existsSync(CHROMIUM) ? packageMissing() : `${CHROMIUM} is not installed`);

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>beaconSink</title>
<script type="importmap">{ "imports": { "cutover": "/dist/cutover.browser.mjs" } }</script>
<script type="module">
  import { beaconSink, MigratorBuilder } from 'cutover';
  const params = new URLSearchParams(location.search);
  // sendBeacon, marked: its requests reach the collector with ?via=beacon. beaconSink looks the
  // method up when it sends, so it finds this one.
  const realBeacon = navigator.sendBeacon.bind(navigator);
  window.beacons = [];
  window.refuseBeacons = false;
  navigator.sendBeacon = (url, data) => {
    const queued = window.refuseBeacons ? false : realBeacon(url + '?via=beacon', data);
    window.beacons.push(queued);
    return queued;
  };
  // ?only=pagehide: visibilitychange never reaches the document (unloads fire it before pagehide).
  if (params.get('only') === 'pagehide') addEventListener('visibilitychange', (e) => e.stopImmediatePropagation(), true);
  window.sink = beaconSink(params.get('to') ?? '/collect', {
    maxBatch: Number(params.get('maxBatch') ?? 50),
    flushIntervalMs: 2147483647,
  });
  window.MigratorBuilder = MigratorBuilder;
  window.hide = () => {
    Object.defineProperty(document, 'visibilityState', { get: () => 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  };
  window.ready = true;
</script>`;

const posts = [];
const waiters = [];
const relayed = [];
let server, origin, browser;

/** Resolves once `n` posts wait to be taken; then takes them. */
async function take(n) {
  while (posts.length < n) await new Promise((resolve) => waiters.push(resolve));
  return posts.splice(0);
}

before(async () => {
  if (skip) return;
  const relay = cutover.migrationEventRelay({ trackMigration: (event) => relayed.push(event) });
  server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (req.method === 'POST' && url.pathname === '/collect') {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      posts.push({ via: url.searchParams.get('via') ?? 'fetch', type: req.headers['content-type'], text: Buffer.concat(chunks).toString() });
      res.writeHead(204).end();
      for (const w of waiters.splice(0)) w();
      return;
    }
    if (url.pathname === '/relay') {
      const request = new Request(new URL(req.url, origin), {
        method: req.method,
        headers: req.headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : Readable.toWeb(req),
        duplex: 'half',
      });
      const response = await relay(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      return res.end(Buffer.from(await response.arrayBuffer()));
    }
    if (url.pathname === '/page.html' || url.pathname === '/other.html') {
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(url.pathname === '/page.html' ? PAGE : '<p>elsewhere</p>');
    }
    if (url.pathname.startsWith('/dist/')) {
      const dir = join(PACKAGE_DIR, 'dist');
      const file = normalize(join(dir, url.pathname.slice('/dist/'.length)));
      if (file.startsWith(dir + sep)) {
        try {
          const type = file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript; charset=utf-8';
          return res.writeHead(200, { 'content-type': type }).end(await readFile(file));
        } catch {
          // not found below
        }
      }
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking'],
  });
});

after(async () => {
  await browser?.close();
  if (server) {
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(() => resolve()));
  }
});

async function open(query = '') {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${origin}/page.html${query}`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 10_000 });
  page.problems = problems;
  return page;
}

const event = (n) => ({ kind: 'migration_op', creationDate: n, operation: 'read', note: `event ${n}` });

test('Chromium: maxBatch events go out as one keepalive fetch', { skip, timeout: 30_000 }, async () => {
  const page = await open('?maxBatch=2');
  await page.evaluate(([a, b]) => {
    window.sink(a);
    window.sink(b);
  }, [event(1), event(2)]);
  const [post] = await take(1);
  assert.deepEqual(post, { via: 'fetch', type: 'application/json', text: JSON.stringify([event(1), event(2)]) });
  assert.deepEqual(await page.evaluate(() => window.beacons), []);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('Chromium: when the page is hidden, what waits goes with sendBeacon', { skip, timeout: 30_000 }, async () => {
  const page = await open();
  await page.evaluate((e) => window.sink(e), event(3));
  await page.evaluate(() => window.hide());
  const [post] = await take(1);
  assert.deepEqual(post, { via: 'beacon', type: 'application/json', text: JSON.stringify([event(3)]) });
  assert.deepEqual(await page.evaluate(() => [window.beacons, window.sink.stats().sent]), [[true], 1]);
  await page.close();
});

test('Chromium: leaving the page (a navigation) sends what waits with sendBeacon on pagehide', { skip, timeout: 30_000 }, async () => {
  const page = await open();
  await page.evaluate(([a, b]) => {
    window.sink(a);
    window.sink(b);
  }, [event(4), event(5)]);
  await page.goto(`${origin}/other.html`);
  const [post] = await take(1);
  assert.deepEqual(post, { via: 'beacon', type: 'application/json', text: JSON.stringify([event(4), event(5)]) });
  await page.close();
});

test('Chromium: pagehide alone (no visibilitychange) sends what waits with sendBeacon', { skip, timeout: 30_000 }, async () => {
  const page = await open('?only=pagehide');
  await page.evaluate((e) => window.sink(e), event(8));
  await page.goto(`${origin}/other.html`);
  const [post] = await take(1);
  assert.deepEqual(post, { via: 'beacon', type: 'application/json', text: JSON.stringify([event(8)]) });
  await page.close();
});

test('Chromium: closing the tab sends what waits with sendBeacon on pagehide', { skip, timeout: 30_000 }, async () => {
  const page = await open();
  await page.evaluate((e) => window.sink(e), event(6));
  await page.close({ runBeforeUnload: true });
  const [post] = await take(1);
  assert.deepEqual(post, { via: 'beacon', type: 'application/json', text: JSON.stringify([event(6)]) });
});

test('Chromium: a refused sendBeacon falls back to a keepalive fetch', { skip, timeout: 30_000 }, async () => {
  const page = await open();
  await page.evaluate((e) => {
    window.refuseBeacons = true;
    window.sink(e);
    window.hide();
  }, event(7));
  const [post] = await take(1);
  assert.deepEqual(post, { via: 'fetch', type: 'application/json', text: JSON.stringify([event(7)]) });
  assert.deepEqual(await page.evaluate(() => window.beacons), [false]);
  await page.close();
});

test("Chromium: a page's cutover events reach the relay, which forwards them", { skip, timeout: 30_000 }, async () => {
  relayed.length = 0;
  const page = await open('?to=/relay');
  const sent = await page.evaluate(async () => {
    const events = [];
    const client = {
      migrationVariation: () => ({ value: 'dualwrite', variationIndex: 1, reason: { kind: 'FALLTHROUGH' } }),
      trackMigrationOp: (e) => {
        events.push(e);
        window.sink(e);
      },
    };
    const migrator = new window.MigratorBuilder(client)
      .read(async () => 'old', async () => 'new')
      .write(async () => 1, async () => 1)
      .build();
    const context = { kind: 'user', key: 'page-user' };
    await migrator.read('search-backend', context, 'off');
    await migrator.write('search-backend', context, 'off', 1);
    await window.sink.flush();
    return { events: JSON.parse(JSON.stringify(events)), stats: window.sink.stats() };
  });
  assert.equal(sent.events.length, 2);
  assert.deepEqual(sent.stats, { waiting: 0, sent: 2, failed: 0, dropped: 0, lastError: undefined });
  assert.deepEqual(relayed, sent.events);
  assert.deepEqual(page.problems, []);
  await page.close();
});
