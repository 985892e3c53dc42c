// migrationConsole as a user sees it: a real Node http service with live migrators and a Big
// Segments manager, its console opened in headless Chromium at 1280×800 and on a phone. Live
// numbers, no console error, no CSP violation, nothing from another origin; screenshots in
// tests/runtimes/console/ (look at them); and the page's weight bound.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import { BigSegmentStoreManager, MigratorBuilder, failure, fixedStage, hashContextKey, redisFleet, sameStructure } from 'cutover';
import { loadChromium, launchChromium } from './common/chromium.mjs';
import { serveConsole } from '../node/helpers/console.mjs';

const SHOTS = join(dirname(fileURLToPath(import.meta.url)), 'console');
const { chromium, missing } = await loadChromium();
/** The project's bound on the page: HTML + script + stylesheet, each gzipped (issue 31). */
const PAGE_WEIGHT_BOUND = 30_000;

/** A stage per context, so that the stage mix has more than one. */
const client = { migrationVariation: (flag, context) => (Number(context.key.slice(-1)) < 3 ? 'live' : 'shadow') };
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function service() {
  const orders = new MigratorBuilder(client)
    .read(async (n) => { await wait(4 + (n % 7)); return { id: n, total: 10 }; },
      async (n) => { await wait(2 + (n % 3)); if (n % 50 === 0) return failure(new Error('new store down')); return { id: n, total: n % 20 === 0 ? 11 : 10 }; },
      sameStructure())
    .write(async (x) => x, async (x) => { await wait(1); return x; })
    .mismatches()
    .build();
  const members = new Map([[hashContextKey('user-1'), { 'beta.g1': true }]]);
  const manager = new BigSegmentStoreManager({
    store: { getMetadata: async () => ({ lastUpToDate: Date.now() }), getMembership: async (hash) => members.get(hash) ?? null },
    contextCacheTimeMs: 500,
  });
  let n = 0;
  const traffic = setInterval(() => {
    for (let i = 0; i < 5; i++, n++) {
      orders.read('orders-store', { kind: 'user', key: `user-${n % 10}` }, 'off', n).catch(() => {});
      manager.getUserMembership(`user-${n % 40}`).catch(() => {});
    }
    orders.write('orders-store', { kind: 'user', key: `user-${n % 10}` }, 'off', { n }).catch(() => {});
  }, 20);
  return { orders, manager, stop: () => { clearInterval(traffic); return manager.close(); } };
}

/**
 * A migrator with a guard (API §1's stats().guard, from issue 30's guard()): closed at first, tripped
 * once `trip()` is called. Any object with stats() can be shown.
 */
function guardedMigrator() {
  const counts = () => ({ count: 3, byStage: { live: 3 }, old: { invoked: 3, errors: 0, timeouts: 0, latencyMs: null }, new: { invoked: 3, errors: 3, timeouts: 0, latencyMs: null }, consistency: { checked: 0, consistent: 0, paths: {} }, shed: 0 });
  const since = Date.now();
  let flags = { 'payments-store': { state: 'closed', since, reason: null } };
  return {
    stats: () => ({ read: counts(), write: counts(), guard: { trips: flags['payments-store'].state === 'tripped' ? 1 : 0, recoveries: 0, fallbacks: { read: 2, write: 0 }, flags } }),
    trip: () => { flags = { 'payments-store': { state: 'tripped', since: Date.now(), reason: '10 consecutive errors' } }; },
  };
}

describe('the console in Chromium, over a real Node service', { skip: missing, timeout: 90_000 }, () => {
  let svc, app, browser;
  const problems = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    app = service();
    app.payments = guardedMigrator();
    svc = await serveConsole({ migrators: { orders: app.orders, payments: app.payments }, managers: { 'beta-testers': app.manager } });
    browser = await launchChromium(chromium);
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
    await app?.stop();
  });

  /** A page that records every console error, page error, failed or foreign request and CSP violation. */
  async function open(viewport) {
    const page = await browser.newPage({ viewport });
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
    });
    page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console: ${msg.text()}`); });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('requestfailed', (req) => { if (!req.url().endsWith('/api/stream')) problems.push(`request failed: ${req.url()}`); });
    page.on('request', (req) => { if (!req.url().startsWith(svc.url)) problems.push(`foreign request: ${req.url()}`); });
    page.on('response', (res) => { if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`); });
    await page.goto(`${svc.url}/cutover/`);
    return page;
  }

  const kpi = (page, card, label) => page.locator(`${card} .kpi`, { hasText: label }).locator('b').textContent();
  async function until(what, read, ok, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const last = await read();
      if (ok(last)) return last;
      if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(last)}`);
      await sleep(200);
    }
  }

  it('shows live numbers at 1280×800, with no console error, CSP violation or foreign request', async () => {
    const page = await open({ width: 1280, height: 800 });
    const card = '[data-migrator="orders"]';
    await until('the stream is live', () => page.locator('#live').textContent(), (t) => t === 'live');
    const reads = Number(await until('reads/s', () => kpi(page, card, 'reads/s'), (t) => Number(t) > 10));
    assert.ok(reads > 10 && reads < 1000, `reads/s ${reads}`);
    const count = async () => Number((await page.locator(`${card} h2 small`).textContent()).replace(/[^\d]/g, ''));
    const first = await count();
    await until('the operations go on', count, (c) => c > first);
    assert.match(await kpi(page, card, 'consistent'), /^\d+(\.\d)?%$/);
    assert.match(await kpi(page, card, 'new errors'), /^\d+(\.\d)?%$/);
    // The stage mix, the charts, the mismatch paths (redacted differences), the manager.
    assert.match(await page.locator(`${card} .mix .legend`).textContent(), /live .*%.*shadow|shadow .*%/s);
    assert.equal(await page.locator(`${card} figure.chart`).count(), 6);
    await until('latency lines drawn', () => page.locator(`${card} figure.chart path.line`).count(), (n) => n >= 6);
    assert.match(await page.locator(`${card} table.paths`).textContent(), /\/total/);
    assert.match(await page.locator(`${card} ol.mismatches`).textContent(), /\/total changed/);
    assert.doesNotMatch(await page.locator(`${card} ol.mismatches`).textContent(), /→/, 'values are redacted');
    const manager = '[data-manager="beta-testers"]';
    await until('the manager is healthy', () => page.locator(`${manager} .pill`).textContent(), (t) => t === 'HEALTHY');
    assert.match(await kpi(page, manager, 'cache hit rate'), /%$/);
    assert.match(await kpi(page, manager, 'store p50 / p99'), /^[\d.]+ ms \/ [\d.]+ ms$/);
    // The guard: its state per flag, and the change the sampler saw.
    const guard = '[data-migrator="payments"] .guard';
    assert.equal(await page.locator(`${guard} .pill`).textContent(), 'closed');
    app.payments.trip();
    await until('the guard tripped', () => page.locator(`${guard} .pill`).textContent(), (t) => t === 'tripped');
    assert.match(await page.locator(`${guard} ol.changes`).textContent(), /payments-store: closed → tripped \(10 consecutive errors\)/);
    await sleep(1500);
    await page.screenshot({ path: join(SHOTS, 'console-1280x800.png') });
    await page.screenshot({ path: join(SHOTS, 'console-1280-full.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('is readable on a phone (390×844): one column, nothing wider than the screen', async () => {
    const page = await open({ width: 390, height: 844 });
    await until('live', () => page.locator('#live').textContent(), (t) => t === 'live');
    await until('numbers', () => kpi(page, '[data-migrator="orders"]', 'reads/s'), (t) => Number(t) > 0);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
    const widths = await page.locator('section.card').evaluateAll((cards) => cards.map((c) => c.getBoundingClientRect().width));
    assert.ok(widths.every((w) => w > 340 && w <= 390), `cards ${widths}`);
    await page.screenshot({ path: join(SHOTS, 'console-phone.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('shows the whole fleet: each instance, and totals that are their sums', async () => {
    // Two processes' consoles over one Redis (a command function over a Map, as a RedisCommand).
    const hashes = new Map();
    const redis = async ([command, key, ...rest]) => {
      const hash = hashes.get(key) ?? new Map();
      hashes.set(key, hash);
      if (command === 'HSET') return hash.set(rest[0], rest[1]) && 1;
      if (command === 'HGETALL') return Object.fromEntries(hash);
      if (command === 'HDEL') return rest.filter((field) => hash.delete(field)).length;
      throw new Error(`unexpected ${command}`);
    };
    const migratorOf = async (reads) => {
      const m = new MigratorBuilder(fixedStage('shadow')).read(async (n) => { await wait(1 + (n % 3)); return n; }, (n) => n).write((x) => x, (x) => x).build();
      for (let i = 0; i < reads; i++) await m.read('orders-store', { key: `u${i}` }, 'off', i);
      return m;
    };
    const other = await serveConsole({ migrators: { orders: await migratorOf(30) }, fleet: redisFleet(redis, { instance: 'web-2', intervalMs: 200, ttlMs: 2000 }) });
    const fleetSvc = await serveConsole({ migrators: { orders: await migratorOf(12) }, managers: { 'beta-testers': app.manager }, fleet: redisFleet(redis, { instance: 'web-1', intervalMs: 200, ttlMs: 2000 }) });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      await page.goto(`${fleetSvc.url}/cutover/`);
      await page.getByRole('button', { name: 'Whole fleet' }).click();
      const fleet = page.locator('section.fleet');
      await until('two instances', () => fleet.locator('h2').textContent(), (t) => t.startsWith('Fleet: 2 instances'));
      const totals = await fleet.locator('table').first().locator('tbody tr').first().locator('td').allTextContents();
      assert.deepEqual(totals.slice(0, 3), ['orders', '2', '42']);
      assert.match(totals[4], /ms \/ .* ms/, 'merged read old p50 / p99');
      const segments = await fleet.locator('table').nth(1).locator('tbody tr').first().locator('td').allTextContents();
      assert.equal(segments[0], 'beta-testers');
      assert.equal(segments[1], '1');
      assert.match(segments[5], /ms \/ .* ms/, 'the store latency');
      const rows = await fleet.locator('table').nth(2).locator('tbody tr').allTextContents();
      assert.equal(rows.length, 2);
      assert.ok(rows.some((r) => r.startsWith('web-1 (this one)') && r.includes('12 / 0')), rows.join(' | '));
      assert.ok(rows.some((r) => r.startsWith('web-2') && r.includes('30 / 0')), rows.join(' | '));
      await page.screenshot({ path: join(SHOTS, 'console-fleet.png') });
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      await other.close();
      await fleetSvc.close();
    }
  });

  it(`weighs at most ${PAGE_WEIGHT_BOUND} B gzipped (HTML + script + stylesheet)`, async () => {
    let total = 0;
    const sizes = {};
    for (const file of ['', 'console.js', 'console.css']) {
      const body = Buffer.from(await (await fetch(`${svc.url}/cutover/${file}`)).arrayBuffer());
      sizes[file || 'page'] = gzipSync(body, { level: 9 }).length;
      total += sizes[file || 'page'];
    }
    process.stdout.write(`# console page weight: ${total} B gzipped ${JSON.stringify(sizes)}\n`);
    assert.ok(total <= PAGE_WEIGHT_BOUND, `${total} B`);
  });
});
