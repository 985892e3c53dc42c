// `npm run www` (www/serve.mjs): the demo service, with the console mounted over live simulated
// migrators and Big Segments. Serve it, open the console in headless Chromium, and check that it
// shows the migrations live.

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
      const match = /^cutover console: (http:\/\/127\.0\.0\.1:(\d+)\/)cutover\/$/.exec(line);
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

/** Polls `read` until `ok(result)`; fails with the last value after `timeoutMs`. */
async function until(what, read, ok, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await read();
    if (ok(last)) return last;
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(last)} after ${timeoutMs} ms`);
    await sleep(200);
  }
}

describe('npm run www: the demo service and its console in headless Chromium', { skip, timeout: 60_000 }, () => {
  let server;
  let browser;
  const problems = []; // console errors, page errors, failed requests

  before(async () => {
    const { chromium } = await import('playwright-core');
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    server = await startServer();
    browser = await launchChromium(chromium);
  });

  after(async () => {
    await browser?.close();
    await stopServer(server?.child);
  });

  it('mounts the console at /cutover/ and sends every other path to the app (a redirect there)', async () => {
    const page = await fetch(new URL('cutover/', server.url));
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy'), /^default-src 'self'/);
    const other = await fetch(new URL('/elsewhere', server.url), { redirect: 'manual' });
    assert.equal(other.status, 302);
    assert.equal(other.headers.get('location'), '/cutover/');
    const snapshot = await (await fetch(new URL('cutover/api/snapshot', server.url))).json();
    assert.deepEqual(snapshot.migrators.map((m) => m.name), ['accounts', 'search']);
    assert.deepEqual(snapshot.managers.map((m) => m.name), ['beta-testers']);
    assert.equal(snapshot.showValues, true);
  });

  it('shows both migrations and the manager live, with differences and their values, without console errors', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console: ${msg.text()}`); });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('response', (res) => { if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`); });
    await page.goto(new URL('cutover/', server.url).href);
    await until('live', () => page.locator('#live').textContent(), (t) => t === 'live');
    const kpi = (card, label) => page.locator(`${card} .kpi`, { hasText: label }).locator('b').textContent();
    for (const name of ['accounts', 'search']) {
      const reads = await until(`${name} reads/s`, async () => num(await kpi(`[data-migrator="${name}"]`, 'reads/s')), (n) => n > 10);
      assert.ok(reads < 500, `${name}: ${reads} reads/s`);
    }
    assert.ok(num(await kpi('[data-migrator="accounts"]', 'writes/s')) > 0);
    await until('differences with values', () => page.locator('[data-migrator="accounts"] ol.mismatches').textContent(), (t) => /changed .*→/.test(t));
    await until('the manager answers lookups', async () => num(await kpi('[data-manager="beta-testers"]', 'lookups/s')), (n) => n > 0);
    await sleep(2000);
    await page.screenshot({ path: SCREENSHOT });
    assert.deepEqual(problems, []);
  });
});
