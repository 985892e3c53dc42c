// migrationConsole mounted in a Worker (workerd through Miniflare), asked through the fetch form
// with the Worker's own authorization: the page, its files, the snapshot and the stream answer
// there as in Node. And docs/CONSOLE.md's Worker, as written there, with its OPS_TOKEN binding.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageMissing } from './common/run.mjs';
import { bundleWorker, Miniflare, miniflareMissing, workerOptions } from './common/workerd.mjs';

const WORKER = fileURLToPath(new URL('./workerd/console-worker.mjs', import.meta.url));
const skip = miniflareMissing ?? packageMissing();
const ops = { headers: { authorization: 'Bearer ops' } };

// docs/CONSOLE.md's Worker: the first js block after its heading, written beside this suite's
// workers (so that 'cutover' resolves to the packed package).
const DOCS = fileURLToPath(new URL('../../docs/CONSOLE.md', import.meta.url));
const DOCS_WORKER = fileURLToPath(new URL('./workerd/.docs-console-worker.mjs', import.meta.url));
const docsWorker = () => /## A Worker\n[\s\S]*?```js\n([\s\S]*?)```/.exec(readFileSync(DOCS, 'utf8'))?.[1];

let outdir, mf, docsMf;
before(async () => {
  if (skip) return;
  outdir = mkdtempSync(join(tmpdir(), 'cutover-workerd-console-'));
  writeFileSync(DOCS_WORKER, docsWorker() ?? 'throw new Error("docs/CONSOLE.md has no Worker block");');
  await bundleWorker({ worker: WORKER, docs: DOCS_WORKER }, outdir);
  mf = new Miniflare(workerOptions(outdir, 'worker.js'));
  docsMf = new Miniflare(workerOptions(outdir, 'docs.js', { bindings: { OPS_TOKEN: 'secret-ops' } }));
  await Promise.all([mf.ready, docsMf.ready]);
});
after(async () => {
  await mf?.dispose().catch(() => {});
  await docsMf?.dispose().catch(() => {});
  if (outdir) rmSync(outdir, { recursive: true, force: true });
  rmSync(DOCS_WORKER, { force: true });
});

test('a Worker mounts the console: 401 without its authorization, the page and live figures with it', { skip, timeout: 30_000 }, async () => {
  assert.equal(await (await mf.dispatchFetch('http://w/elsewhere')).text(), 'the worker');
  const refused = await mf.dispatchFetch('http://w/cutover/api/snapshot');
  assert.equal(refused.status, 401);
  assert.equal(await refused.text(), '');
  assert.equal(await (await mf.dispatchFetch('http://w/work')).text(), 'done');
  const page = await mf.dispatchFetch('http://w/cutover/', ops);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-security-policy'), /^default-src 'self'; frame-ancestors 'none'/);
  assert.match(await page.text(), /<script type="module" src="\/cutover\/console\.js">/);
  for (const file of ['console.js', 'console.css']) assert.equal((await mf.dispatchFetch(`http://w/cutover/${file}`, ops)).status, 200);
  const snapshot = await (await mf.dispatchFetch('http://w/cutover/api/snapshot', ops)).json();
  const [orders] = snapshot.migrators;
  assert.equal(orders.read.count, 10);
  assert.deepEqual(orders.read.consistency.paths, [['/price', 5]]);
  assert.equal(orders.mismatches.length, 5);
  assert.equal((await mf.dispatchFetch('http://w/cutover/api/snapshot', { method: 'POST', ...ops })).status, 405);
  // The stream: its first event.
  const stream = await mf.dispatchFetch('http://w/cutover/api/stream', ops);
  assert.match(stream.headers.get('content-type'), /^text\/event-stream/);
  const reader = stream.body.getReader();
  let text = '';
  while (!text.includes('event: snapshot')) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
  assert.match(text, /event: snapshot\ndata: \{"at":/);
});

test("docs/CONSOLE.md's Worker runs as written: its routes, and the console behind its OPS_TOKEN", { skip, timeout: 30_000 }, async () => {
  assert.deepEqual(await (await docsMf.dispatchFetch('http://w/orders/7')).json(), { id: '/orders/7' });
  assert.equal((await docsMf.dispatchFetch('http://w/cutover/')).status, 401);
  const snapshot = await docsMf.dispatchFetch('http://w/cutover/api/snapshot', { headers: { authorization: 'Bearer secret-ops' } });
  assert.equal(snapshot.status, 200);
  const [orders] = (await snapshot.json()).migrators;
  assert.equal(orders.name, 'orders');
  assert.equal(orders.read.count, 1);
});
