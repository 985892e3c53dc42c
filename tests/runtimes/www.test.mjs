// The browser dashboard (www/): serve it, open it in headless Chromium, and check that the wasm
// package runs in the page and that the controls change what cutover measures.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInterface } from 'node:readline';
import { CHROMIUM, launchChromium } from './common/chromium.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const SCREENSHOT = join(HERE, 'www', 'dashboard.png');

const skip = !existsSync(CHROMIUM) ? `${CHROMIUM} not installed`
  : !existsSync(join(ROOT, 'dist', 'cutover.browser.mjs')) ? 'dist/ not built'
  : false;

/** Starts www/serve.mjs on a free port; resolves with the child and its URL. */
async function startServer() {
  const child = spawn(process.execPath, [join(ROOT, 'www', 'serve.mjs'), '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 5000);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      const match = /^cutover dashboard: (http:\/\/127\.0\.0\.1:(\d+)\/)$/.exec(line);
      if (match && Number(match[2]) > 0) resolveUrl(match[1]);
      else reject(new Error(`unexpected first line: ${JSON.stringify(line)}`));
    });
  });
  return { child, url };
}

async function stopServer(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(2000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** '1,234.5' → 1234.5, '97.3%' → 97.3, '—' → NaN. */
const num = (text) => (text == null || /^[—–-]$/.test(text.trim()) ? NaN : Number(text.replace(/[,%\s]|ms$/g, '')));

describe('www dashboard in headless Chromium', { skip, timeout: 60_000 }, () => {
  let server;
  let browser;
  let page;
  const problems = []; // console errors, page errors, failed requests
  let loaded = false; // the later steps need a running page
  const needPage = (t) => {
    if (!loaded) t.skip('the dashboard did not load');
    return !loaded;
  };

  const text = (id) => page.locator(`[data-testid="${id}"]`).textContent();
  const value = async (id) => num(await text(id));

  /** Polls `read` until `ok(result)`; fails with the last value after `timeoutMs`. */
  async function until(what, read, ok, timeoutMs = 6000) {
    const deadline = Date.now() + timeoutMs;
    let last;
    for (;;) {
      last = await read();
      if (ok(last)) return last;
      if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(last)} after ${timeoutMs} ms`);
      await sleep(100);
    }
  }
  const ticks = () => value('tick');
  async function waitTicks(n) {
    const start = await ticks();
    await until(`${n} more ticks`, ticks, (t) => t >= start + n, n * 1000 + 3000);
  }
  async function setRange(id, v) {
    await page.locator(`[data-testid="${id}"]`).evaluate((input, v) => {
      input.value = String(v);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }, v);
  }
  const setStage = (stage) => page.selectOption('[data-testid="stage-select"]', stage);

  before(async () => {
    const { chromium } = await import('playwright-core');
    server = await startServer();
    browser = await launchChromium(chromium);
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console: ${msg.text()}`); });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
    page.on('response', (res) => { if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`); });
  });

  after(async () => {
    await browser?.close();
    await stopServer(server?.child);
  });

  it('the server sends the wasm as application/wasm and refuses paths outside www/ and dist/', async () => {
    const wasm = await fetch(new URL('/dist/cutover_bg.wasm', server.url));
    assert.equal(wasm.status, 200);
    assert.equal(wasm.headers.get('content-type'), 'application/wasm');
    const bytes = new Uint8Array(await wasm.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 4)], [0x00, 0x61, 0x73, 0x6d]);
    const page = await fetch(server.url);
    assert.match(page.headers.get('content-type'), /^text\/html/);
    const mjs = await fetch(new URL('/app.mjs', server.url));
    assert.match(mjs.headers.get('content-type'), /^text\/javascript/);
    // fetch() normalizes dot segments, so send raw paths over a socket-level request.
    const { request } = await import('node:http');
    const raw = (path) => new Promise((ok, bad) => {
      const { hostname, port } = new URL(server.url);
      request({ hostname, port, path }, (res) => { res.resume(); ok(res.statusCode); }).on('error', bad).end();
    });
    for (const path of ['/../package.json', '/dist/../package.json', '/dist/..%2fpackage.json',
      '/%2e%2e%2fpackage.json', '/dist/%2e%2e/%2e%2e/package.json', '/..%5cpackage.json']) {
      const status = await raw(path);
      assert.ok(status === 403 || status === 404, `${path} → ${status}`);
    }
  });

  it('loads the wasm package and shows live numbers, without console errors', async () => {
    await page.goto(server.url);
    const status = await until('wasm status', () => text('wasm-status'), (s) => s === 'running' || s.startsWith('error'), 10_000);
    assert.equal(status, 'running', `the page could not load cutover (${problems.join('; ')})`);
    await until('first ticks', ticks, (t) => t >= 2, 6000);
    assert.equal(await text('stage'), 'shadow');
    assert.ok(await value('ops-per-sec') > 0, 'operations per second');
    assert.ok(await value('old-p50') > 0, 'old p50');
    assert.ok(await value('new-p99') >= await value('new-p50'), 'new p99 ≥ p50');
    assert.match(await text('consistency-rate'), /^\d+(\.\d)?%$/);
    assert.ok(await value('consistency-checked') > 0);
    assert.ok(await value('events-count') > 0, 'migration_op events received');
    const line = await page.locator('[data-testid="events"] > div').first().textContent();
    const event = JSON.parse(line);
    assert.equal(event.kind, 'migration_op');
    assert.equal(event.evaluation.key, 'kv-store-migration');
    assert.equal(event.evaluation.value, 'shadow');
    const d = await page.locator('[data-testid="latency-chart"] path[data-series="newP50"]').getAttribute('d');
    assert.match(d, /^M[\d.]+,[\d.]+L/, 'the latency chart draws a line');
    // Big Segments
    assert.ok(await value('segment-members') > 1000);
    await until('segment lookups/s', () => value('segment-lookups-per-sec'), (v) => v > 0);
    assert.match(await text('segment-cache-hit-rate'), /^\d+(\.\d)?%$/);
    assert.equal(await text('segment-status'), 'HEALTHY');
    assert.deepEqual(problems, []);
    loaded = true;
  });

  it('50% mismatches in shadow bring the consistency rate down', async (t) => {
    if (needPage(t)) return;
    await setStage('shadow');
    await setRange('mismatch-rate', 50);
    assert.equal(await text('mismatch-rate-value'), '50%');
    const rate = await until('consistency rate', () => value('consistency-rate'), (v) => v < 80, 5000);
    assert.ok(rate > 20, `about half the reads should still agree, got ${rate}%`);
    assert.equal(await page.locator('[data-testid="consistency-rate"]').getAttribute('data-level'), 'bad');
    await setRange('mismatch-rate', 2);
  });

  it('raising the new store latency raises the new p50', async (t) => {
    if (needPage(t)) return;
    const before = await value('new-p50');
    assert.ok(before < 40, `new p50 starts low (${before} ms)`);
    await setRange('new-latency', 150);
    await until('new p50', () => value('new-p50'), (v) => v > 100, 6000);
    assert.ok(await value('old-p50') < 80, 'the old store is not affected');
    await setRange('new-latency', 15);
  });

  it('the stale toggle flips the Big Segments store status and back', async (t) => {
    if (needPage(t)) return;
    await page.click('[data-testid="stale-toggle"]');
    assert.equal(await text('segment-sync'), 'halted');
    await until('segment status', () => text('segment-status'), (s) => s === 'STALE', 5000);
    await page.click('[data-testid="stale-toggle"]');
    await until('segment status', () => text('segment-status'), (s) => s === 'HEALTHY', 5000);
    assert.ok(await value('segment-status-changes') >= 2);
  });

  it('the background switch takes a slow new origin off the caller\'s path and sheds past the limit', async (t) => {
    if (needPage(t)) return;
    await setStage('shadow');
    await setRange('old-latency', 10);
    await setRange('new-latency', 200);
    assert.equal(await text('background-state'), 'off');
    assert.equal(await text('background-pill'), 'foreground');
    // Without background(), every shadow read and write waits for the slow new store.
    const foreground = await until('caller read p50 without background()', () => value('caller-read-p50'), (v) => v > 100);
    assert.ok(await value('caller-read-p99') >= foreground, 'caller read p99 ≥ p50');
    // Writes tick on their own cadence: wait for their window to fill too (a single read raced it on a clean clone).
    await until('shadow writes wait for both stores too', () => value('caller-write-p50'), (v) => v > 100);
    assert.equal(await text('read-shed'), '0', 'stats().read.shed is there, and 0 without background()');
    assert.equal(await text('write-shed'), '0');
    assert.equal(await value('read-shed-total'), 0);
    assert.equal(await value('background-in-flight'), 0);

    // On, with room for 4 background parts: callers wait for the old store only, the rest is shed.
    await setRange('max-in-flight', 4);
    assert.equal(await text('max-in-flight-value'), '4');
    await page.check('[data-testid="background-toggle"]');
    assert.equal(await text('background-state'), 'on');
    assert.equal(await text('background-pill'), 'background · at most 4');
    assert.equal(await page.locator('[data-testid="background-pill"]').getAttribute('class'), 'pill ok');
    await until('caller read p50 with background()', () => value('caller-read-p50'), (v) => v < foreground / 2);
    await until('caller write p50 with background()', () => value('caller-write-p50'), (v) => v < foreground / 2);
    await until('reads shed', () => value('read-shed-total'), (v) => v > 0);
    await until('writes shed', () => value('write-shed-total'), (v) => v > 0);
    await until('reads shed this tick', () => value('read-shed'), (v) => v > 0);
    await until('background parts in flight', () => value('background-in-flight'), (v) => v > 0);
    // A shed read's event records the authoritative origin only.
    const shedEvent = await until('a shed read in the event stream', async () => {
      const lines = await page.locator('[data-testid="events"] > div').allTextContents();
      return lines.map((line) => JSON.parse(line)).find((e) => e.operation === 'read' && e.evaluation.value === 'shadow' &&
        JSON.stringify(e.measurements.find((m) => m.key === 'invoked')?.values) === '{"old":true}');
    }, (e) => e !== undefined);
    assert.equal(shedEvent.measurements.find((m) => m.key === 'consistent'), undefined, 'no comparison when shed');
    const d = await page.locator('[data-testid="caller-chart"] path[data-series="callerReadP99"]').getAttribute('d');
    assert.match(d, /^M[\d.]+,[\d.]+L/, 'the caller chart draws a line');

    // Off again: a foreground migrator never sheds, and callers wait for both stores again.
    await page.uncheck('[data-testid="background-toggle"]');
    assert.equal(await text('background-state'), 'off');
    assert.equal(await text('background-pill'), 'foreground');
    await waitTicks(2);
    assert.equal(await text('read-shed'), '0');
    assert.equal(await text('write-shed'), '0');
    const shedTotal = await value('read-shed-total');
    await waitTicks(1);
    assert.equal(await value('read-shed-total'), shedTotal, 'no more reads shed');
    await until('caller read p50 without background() again', () => value('caller-read-p50'), (v) => v > 100);

    await setRange('old-latency', 40);
    await setRange('new-latency', 15);
    await setRange('max-in-flight', 100);
  });

  it('the Differences panel counts paths, lists mismatches with their differences, and ignores a path', async (t) => {
    if (needPage(t)) return;
    await setStage('shadow');
    await setRange('mismatch-rate', 2);
    const KINDS = ['changed', 'added', 'removed', 'type'];
    /** '/items/2/price' → '/items/*\/price', as stats().read.consistency.paths counts it. */
    const normalise = (path) => path.replace(/\/(0|[1-9]\d*)(?=\/|$)/g, '/*');
    const paths = () => page.locator('[data-testid="diff-paths"] tbody tr[data-path]')
      .evaluateAll((rows) => rows.map((tr) => ({ path: tr.dataset.path, count: Number(tr.dataset.count) })));
    const mismatches = () => page.locator('[data-testid="mismatches"] > li[data-stage]').evaluateAll((items) => items.map((li) => ({
      stage: li.dataset.stage,
      differences: [...li.querySelectorAll('li[data-path]')].map((d) => ({ path: d.dataset.path, kind: d.dataset.kind, text: d.textContent })),
    })));
    assert.equal(await text('diff-comparison'), 'sameStructure()');
    assert.equal(await text('diff-keep'), '20');

    // The simulated new store differs at /updatedAt, /version and /items/*/price (and a read that
    // races a write at /plan or /version).
    const counted = await until('paths with counts', paths,
      (rows) => rows.length >= 2 && rows.every((r) => r.count > 0) && rows.some((r) => r.path === '/updatedAt'));
    for (const { path } of counted) assert.match(path, /^(\/[^/]*)+$|^_OTHER$/, `${path} is a JSON Pointer`);
    const sorted = counted.map((r) => r.count);
    assert.deepEqual(sorted, sorted.slice().sort((a, b) => b - a), 'paths by count, the most frequent first');
    assert.ok(await value('diff-mismatched') > 0);
    const listed = await until('mismatches with differences', mismatches, (list) => list.length > 0 && list.every((m) => m.differences.length > 0));
    for (const m of listed) {
      assert.equal(m.stage, 'shadow');
      for (const d of m.differences) {
        assert.ok(KINDS.includes(d.kind), d.kind);
        assert.match(d.text, /→/, 'old → new');
      }
    }

    // Ignore the most frequent path: the comparison is rebuilt, and that path is counted no more.
    const top = counted[0].path;
    await page.fill('[data-testid="ignore-input"]', top);
    await page.click('[data-testid="ignore-apply"]');
    assert.equal(await text('diff-comparison'), `sameStructure({ ignore: ['${top}'] })`);
    assert.equal(await page.locator('[data-testid="ignore-error"]').isVisible(), false);
    const others = await until('other paths counted after the ignore', paths, (rows) => rows.length > 0);
    assert.ok(!others.some((r) => r.path === top), `${top} is not counted after it is ignored: ${JSON.stringify(others)}`);
    await until('mismatches after the ignore', mismatches, (list) => list.length > 0);
    await waitTicks(2);
    const later = await paths();
    assert.ok(later.length > 0 && !later.some((r) => r.path === top), `${top} still absent: ${JSON.stringify(later)}`);
    for (const m of await mismatches()) {
      assert.ok(m.differences.length > 0);
      for (const d of m.differences) assert.notEqual(normalise(d.path), top, `a new mismatch differs at ${d.path}`);
    }

    // Not a JSON Pointer: the panel shows the TypeError, and the running comparison stays.
    await page.fill('[data-testid="ignore-input"]', 'updatedAt');
    await page.press('[data-testid="ignore-input"]', 'Enter');
    const error = page.locator('[data-testid="ignore-error"]');
    await until('the ignore error', () => error.isVisible(), (v) => v);
    assert.match(await error.textContent(), /^TypeError: .*ignore.*JSON Pointer/, 'the TypeError names the option');
    assert.equal(await page.locator('[data-testid="ignore-input"]').getAttribute('aria-invalid'), 'true');
    assert.equal(await text('diff-comparison'), `sameStructure({ ignore: ['${top}'] })`);
    assert.equal(await text('wasm-status'), 'running');
    const before = await value('ops-total');
    await waitTicks(1);
    assert.ok(await value('ops-total') > before, 'the page runs on');

    // Valid again: the error goes away (the screenshot shows the panel with the ignore applied).
    await page.fill('[data-testid="ignore-input"]', top);
    await page.click('[data-testid="ignore-apply"]');
    assert.equal(await error.isVisible(), false);
    assert.deepEqual(problems, []);
  });

  it("stage 'off' stops calls to the new origin and consistency checks", async (t) => {
    if (needPage(t)) return;
    await setStage('off');
    assert.equal(await text('stage'), 'off');
    await waitTicks(2); // operations started before the switch have finished and been counted
    const total = await value('new-invoked-total');
    await waitTicks(2);
    assert.equal(await value('new-invoked-total'), total, 'no more new-origin calls');
    assert.equal(await value('new-invoked'), 0);
    assert.ok(await value('old-invoked') > 0, 'the old origin still serves');
    assert.equal(await text('consistency-rate'), '—');
    assert.equal(await text('new-p50'), '—');
    const event = JSON.parse(await page.locator('[data-testid="events"] > div').first().textContent());
    assert.equal(event.evaluation.value, 'off');
    assert.deepEqual(event.measurements.find((m) => m.key === 'invoked').values, { old: true });
  });

  it('renders a clean dashboard (screenshot) with no console errors', async (t) => {
    if (needPage(t)) return;
    await setStage('live');
    await page.selectOption('[data-testid="order-select"]', 'serial'); // rebuilds the migrator
    assert.equal(await text('execution-order'), 'serial');
    await setRange('mismatch-rate', 3);
    await setRange('error-rate', 2);
    await setRange('max-in-flight', 8);
    await page.check('[data-testid="background-toggle"]'); // the old store's calls leave the caller's path
    assert.equal(await text('background-state'), 'on');
    await waitTicks(3);
    assert.ok(await value('new-invoked') > 0, 'the new origin serves again');
    assert.ok(await value('consistency-checked') > 0, 'live reads are compared again');
    assert.ok(await value('caller-read-p50') > 0, 'the caller panel shows the caller\'s latency');
    assert.ok(Number.isInteger(await value('read-shed')), 'and this tick\'s shed count');
    await until('the Differences panel in live', () => page.locator('[data-testid="mismatches"] > li[data-stage="live"]').count(), (n) => n > 0);
    assert.ok((await page.locator('[data-testid="diff-paths"] tbody tr[data-path]').count()) > 0, 'paths counted in live');
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    assert.deepEqual(problems, []);
  });
});
