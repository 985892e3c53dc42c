// Keep-alive: background polling never keeps an idle Node process running — SPEC.md B4
// ("the timer is unref'd where the host supports it"), js/index.d.ts start(): "never keeps Node alive".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The child's cwd is tests/, so `import 'cutover'` resolves to tests/node_modules/cutover.
const TESTS_DIR = fileURLToPath(new URL('../', import.meta.url));

/** Runs an inline ESM script; resolves {code, signal, stdout, stderr, exited, ms}. Kills it after `killAfterMs`. */
function runChild(script, killAfterMs) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ['--unhandled-rejections=strict', '--input-type=module', '-e', script],
      { cwd: TESTS_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, killAfterMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, exited: !killed, ms: performance.now() - started });
    });
  });
}

test('a started manager that is never closed lets Node exit by itself (code 0)', { timeout: 20_000 }, async () => {
  const script = `
    import { BigSegmentStoreManager } from 'cutover';
    let polls = 0;
    const store = {
      async getMetadata() { polls++; return { lastUpToDate: Date.now() }; },
      async getMembership() { return { 'seg.g1': true }; },
      async close() {},
    };
    const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 20 });
    m.start();
    const r = await m.getUserMembership('user-key');
    console.log('LOOKUP=' + r.status + ' ' + JSON.stringify({ ...r.membership }));
    // Keep the process busy briefly with a ref'd timer so the poller demonstrably runs,
    // then leave nothing but the poller (and no close()).
    setTimeout(() => { console.log('POLLS=' + polls); }, 300);
  `;
  const r = await runChild(script, 8000);
  assert.ok(r.exited, `the child was still running after 8 s and was killed (stdout: ${r.stdout}, stderr: ${r.stderr})`);
  assert.equal(r.code, 0, `exit code ${r.code} (stderr: ${r.stderr})`);
  assert.match(r.stdout, /LOOKUP=HEALTHY \{"seg\.g1":true\}/);
  const polls = Number(/POLLS=(\d+)/.exec(r.stdout)?.[1]);
  assert.ok(polls >= 3, `the background poller was running in the child (${polls} polls in ~300 ms)`);
  assert.ok(r.ms < 6000, `exited after ${Math.round(r.ms)} ms`);
});

test('a started manager with listeners and a failing store also lets Node exit', { timeout: 20_000 }, async () => {
  const script = `
    import { BigSegmentStoreManager } from 'cutover';
    let n = 0;
    const store = {
      async getMetadata() { if (++n > 2) throw new Error('down'); return { lastUpToDate: Date.now() }; },
      async getMembership() { return null; },
    };
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    const m = new BigSegmentStoreManager({ store, statusPollIntervalMs: 20, queryTimeoutMs: 100, logger });
    m.statusProvider.addListener((s) => console.log('CHANGE=' + JSON.stringify({ ...s })));
    m.start();
    await m.getUserMembership('k');
    setTimeout(() => {}, 200);
  `;
  const r = await runChild(script, 8000);
  assert.ok(r.exited, `the child was still running after 8 s and was killed (stderr: ${r.stderr})`);
  assert.equal(r.code, 0, `exit code ${r.code} (stderr: ${r.stderr})`);
  assert.match(r.stdout, /CHANGE=\{"available":false,"stale":false\}/, 'the poller ran and notified');
});

test('control: a plain setInterval child is still running after 1.5 s (so the test above can fail)', { timeout: 20_000 }, async () => {
  const script = `
    import { hashContextKey } from 'cutover';
    console.log('STARTED ' + hashContextKey(''));
    setInterval(() => {}, 20);
  `;
  const r = await runChild(script, 1500);
  assert.equal(r.exited, false, `a ref'd interval must keep Node alive (exited with ${r.code}, stderr: ${r.stderr})`);
  assert.equal(r.signal, 'SIGKILL');
  assert.match(r.stdout, /STARTED 47DEQpj8HBSa\+\/TImW\+5JCeuQeRkm5NMpJWZG3hSuFU=/, 'the child did import cutover');
});

test('a lookup pending on a hanging store settles with STORE_ERROR after queryTimeoutMs, even with nothing else running', { timeout: 20_000 }, async () => {
  // Unlike the poller (B4: may let Node exit), a lookup the caller awaits must settle (API.md §3
  // "queryTimeoutMs bounds every store call"): the process must not exit with the await unsettled.
  const script = `
    import { BigSegmentStoreManager } from 'cutover';
    const store = {
      async getMetadata() { return { lastUpToDate: Date.now() }; },
      getMembership() { return new Promise(() => {}); },
    };
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    const m = new BigSegmentStoreManager({ store, queryTimeoutMs: 200, logger });
    const r = await m.getUserMembership('k');
    console.log('RESULT=' + JSON.stringify({ ...r }));
    await m.close();
  `;
  const r = await runChild(script, 8000);
  assert.ok(r.exited, `killed after 8 s (stderr: ${r.stderr})`);
  assert.equal(r.code, 0, `exit code ${r.code}: 13 means the lookup was still pending when Node exited (stderr: ${r.stderr.trim()})`);
  assert.match(r.stdout, /RESULT=\{"membership":null,"status":"STORE_ERROR"\}/);
});

test('getStatus() pending on a hanging getMetadata settles after queryTimeoutMs, even with nothing else running', { timeout: 20_000 }, async () => {
  const script = `
    import { BigSegmentStoreManager } from 'cutover';
    const store = {
      getMetadata() { return new Promise(() => {}); },
      async getMembership() { return {}; },
    };
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    const m = new BigSegmentStoreManager({ store, queryTimeoutMs: 200, logger });
    const s = await m.statusProvider.getStatus();
    console.log('STATUS=' + JSON.stringify({ ...s }));
    await m.close();
  `;
  const r = await runChild(script, 8000);
  assert.ok(r.exited, `killed after 8 s (stderr: ${r.stderr})`);
  assert.equal(r.code, 0, `exit code ${r.code}: 13 means getStatus() was still pending when Node exited (stderr: ${r.stderr.trim()})`);
  assert.match(r.stdout, /STATUS=\{"available":false,"stale":false\}/);
});
