// HTTP shadowing in workerd through Miniflare (issue 23 part 4; API.md §2c): a Worker
// (./workerd/same-response-worker.mjs) shadows an old and a new local HTTP API with
// sameResponse() and ctx.waitUntil, returning the old API's Response as it is. The new API sends
// its headers at once and holds its body until the test has the Worker's response in hand: the
// response can only arrive first if the comparison runs after it. The one migration_op event then
// still reaches the test's collector, with `consistent`, and a mismatch its paths.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageMissing } from './common/run.mjs';
import { bundleWorker, Miniflare, miniflareMissing, workerOptions } from './common/workerd.mjs';

const WORKER = fileURLToPath(new URL('./workerd/same-response-worker.mjs', import.meta.url));
const FAILSAFE_MS = 10_000;
const skip = miniflareMissing ?? packageMissing();

let outdir, mf;
before(async () => {
  if (skip) return;
  outdir = mkdtempSync(join(tmpdir(), 'cutover-workerd-resp-'));
  await bundleWorker({ worker: WORKER }, outdir);
  mf = new Miniflare(workerOptions(outdir, 'worker.js'));
  await mf.ready;
});

after(async () => {
  await mf?.dispose().catch(() => {});
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

/**
 * One local server for the old API (`/old`), the new one (`/new`: headers now, body when the test
 * calls release(id)) and the collector (`/events`, `/mismatches`, `/log`). `log` keeps what it
 * saw in order; tests add their own entries.
 */
async function startServices() {
  const log = [];
  const posted = { events: new Map(), mismatches: new Map(), log: [] };
  const held = new Map();
  const waiters = [];
  const changed = () => {
    for (const w of waiters.splice(0)) w();
  };
  const until = (ready, what) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what}: nothing after ${FAILSAFE_MS} ms (log: ${log.join(', ')})`)), FAILSAFE_MS);
      const check = () => {
        const value = ready();
        if (value === undefined) return waiters.push(check);
        clearTimeout(timer);
        resolve(value);
      };
      check();
    });
  const catalogue = (price, id) => JSON.stringify({ items: [{ id: 1, price: 10 }, { id: 2, price }], requestId: `${id}-${Math.random()}` });
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://local');
    const id = url.searchParams.get('id') ?? '';
    let raw = '';
    for await (const chunk of req) raw += chunk;
    if (url.pathname === '/old') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(catalogue(20, id));
    } else if (url.pathname === '/new') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      log.push(`new-headers:${id}`);
      held.set(id, () => {
        log.push(`new-body:${id}`);
        res.end(catalogue(Number(url.searchParams.get('price')), id));
      });
      changed();
    } else if (req.method === 'POST' && url.pathname in { '/events': 1, '/mismatches': 1 }) {
      const kind = url.pathname.slice(1);
      log.push(`${kind}:${id}`);
      posted[kind].set(id, [...(posted[kind].get(id) ?? []), JSON.parse(raw)]);
      res.writeHead(204).end();
      changed();
    } else if (req.method === 'POST' && url.pathname === '/log') {
      posted.log.push({ id, ...JSON.parse(raw) });
      res.writeHead(204).end();
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    base,
    log,
    posted,
    newHeadersSent: (id) => until(() => (held.has(id) ? true : undefined), `GET /new?id=${id}`),
    release: (id) => held.get(id)?.(),
    eventsFor: (id) => until(() => posted.events.get(id), `POST /events?id=${id}`),
    mismatchesFor: (id) => until(() => posted.mismatches.get(id), `POST /mismatches?id=${id}`),
    close: () =>
      new Promise((resolve) => {
        for (const release of held.values()) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test('workerd: the Worker returns the old API\'s Response before the new body arrives; the event with consistent follows', { skip, timeout: 60_000 }, async (t) => {
  const services = await startServices();
  t.after(() => services.close());
  const cases = [
    ['same-bg', 20, true, true],
    ['differs-bg', 21, false, true],
    ['same-fg', 20, true, false],
    ['differs-fg', 21, false, false],
  ];
  for (const [id, price, consistent, background] of cases) {
    await t.test(`${id}: new price ${price}, ${background ? 'background()' : 'no background(), waitUntil per read'}`, async () => {
      const q = new URLSearchParams({
        old: `${services.base}/old?id=${id}`,
        new: `${services.base}/new?id=${id}&price=${price}`,
        collector: services.base,
        id,
        ...(background ? {} : { bg: '0' }),
      });
      const response = await mf.dispatchFetch(`http://worker.test/items?${q}`);
      services.log.push(`response:${id}`);
      await services.newHeadersSent(id);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'application/json');
      const body = await response.json();
      assert.deepEqual(body.items, [{ id: 1, price: 10 }, { id: 2, price: 20 }], 'the old API\'s body, whole, to the client');
      assert.match(body.requestId, new RegExp(`^${id}-`));
      assert.equal(services.posted.events.has(id), false, 'no event before the new body');

      services.release(id);
      const [event] = await services.eventsFor(id);
      const order = ['response', 'new-body', 'events'].map((what) => services.log.indexOf(`${what}:${id}`));
      assert.ok(order[0] >= 0 && order[0] < order[1] && order[1] < order[2], `the response, then the new body, then the event: ${services.log.join(', ')}`);
      const by = Object.fromEntries(event.measurements.map((m) => [m.key, m]));
      assert.deepEqual(by.invoked.values, { old: true, new: true });
      assert.deepEqual(by.consistent, { key: 'consistent', value: consistent }, JSON.stringify(event));
      assert.equal(by.error, undefined);
      if (consistent) assert.equal(services.posted.mismatches.has(id), false);
      else assert.deepEqual(await services.mismatchesFor(id), [['/body/items/1/price']], "onMismatch's differences");
    });
  }
  assert.deepEqual(services.posted.log, [], 'nothing logged at warn/error');
});
