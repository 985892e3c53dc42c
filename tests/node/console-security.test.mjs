// migrationConsole, safe by default (API.md §2d): authorize asked at every request (401 with no
// data), a planted secret that never leaves while redacted (and does with showValues: the test
// can fail), path tricks, methods, too many streams, the headers, and the options' errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { migrationConsole, redisFleet } from 'cutover';
import { SECRET, SECRET_KEY, raw, secretMigrator, serveConsole, streamStart } from './helpers/console.mjs';

const ROUTES = ['/cutover', '/cutover/', '/cutover/console.js', '/cutover/console.css', '/cutover/api/snapshot', '/cutover/api/stream'];
const CSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

function assertHeaders(headers, where) {
  assert.equal(headers['content-security-policy'], CSP, where);
  assert.equal(headers['x-content-type-options'], 'nosniff', where);
  assert.equal(headers['referrer-policy'], 'no-referrer', where);
  assert.equal(headers['cache-control'], 'no-store', where);
}

describe('authorize is asked at every request', () => {
  let migrator;
  before(async () => { migrator = await secretMigrator(); });

  for (const [name, authorize] of [
    ['false', () => false],
    ['a throw', () => { throw new Error('no session'); }],
    ['a rejection', () => Promise.reject(new Error('no session'))],
    ['a truthy value that is not true', () => 'yes'],
    ['a promise of false', async () => false],
  ]) {
    test(`${name} → 401 with no data, on every route`, async () => {
      const svc = await serveConsole({ migrators: { orders: migrator }, authorize });
      try {
        for (const path of ROUTES) {
          const r = await raw(svc.port, path);
          assert.equal(r.status, 401, path);
          assert.equal(r.body, '', path);
          assertHeaders(r.headers, path);
        }
      } finally {
        await svc.close();
      }
    });
  }

  test('it gets the request, every time, and decides per request', async () => {
    const seen = [];
    const svc = await serveConsole({
      migrators: { orders: migrator },
      authorize: (request) => {
        seen.push(new URL(request.url).pathname);
        return request.headers.get('authorization') === 'Bearer let-me-in';
      },
    });
    try {
      assert.equal((await raw(svc.port, '/cutover/api/snapshot')).status, 401);
      const ok = await raw(svc.port, '/cutover/api/snapshot', { headers: { authorization: 'Bearer let-me-in' } });
      assert.equal(ok.status, 200);
      assert.equal(JSON.parse(ok.body).migrators[0].name, 'orders');
      assert.equal((await raw(svc.port, '/cutover/console.js')).status, 401);
      assert.deepEqual(seen, ['/cutover/api/snapshot', '/cutover/api/snapshot', '/cutover/console.js']);
    } finally {
      await svc.close();
    }
  });
});

describe('a planted secret', () => {
  let migrator;
  before(async () => { migrator = await secretMigrator(); });

  /** Everything the console answers: the page, its files, the snapshot and a stream's first event. */
  async function everything(svc) {
    const bodies = [];
    for (const path of ROUTES.slice(0, 5)) bodies.push((await raw(svc.port, path)).body);
    bodies.push((await streamStart(`${svc.url}/cutover/api/stream`)).text);
    return bodies.join('\n');
  }

  test('never leaves while redacted (the default): not in a value, a difference, nor a context key', async () => {
    const svc = await serveConsole({ migrators: { orders: migrator } });
    try {
      const all = await everything(svc);
      assert.ok(all.includes('event: snapshot'), 'the stream sent a snapshot');
      const snapshot = JSON.parse((await raw(svc.port, '/cutover/api/snapshot')).body);
      const [m] = snapshot.migrators;
      assert.equal(m.mismatches.length, 5, 'the mismatches are listed');
      assert.deepEqual(m.mismatches[0].differences, [{ path: '/token', kind: 'changed' }]);
      assert.deepEqual(m.mismatches[0].context, { kind: 'user' });
      assert.equal(all.includes(SECRET), false, 'the secret left');
      assert.equal(all.includes(SECRET_KEY), false, 'the context key left');
    } finally {
      await svc.close();
    }
  });

  test('is shown with showValues: true (so the test above can fail)', async () => {
    const svc = await serveConsole({ migrators: { orders: migrator }, showValues: true });
    try {
      const all = await everything(svc);
      assert.ok(all.includes(`${SECRET}-old`) && all.includes(`${SECRET}-new`));
      assert.ok(all.includes(SECRET_KEY));
    } finally {
      await svc.close();
    }
  });
});

describe('paths, methods and streams', () => {
  let svc;
  before(async () => { svc = await serveConsole({ migrators: { orders: await secretMigrator(1) }, maxStreams: 2 }); });
  after(async () => { await svc.close(); });

  test('every response carries the headers; the page loads only its own files', async () => {
    for (const path of [...ROUTES.slice(0, 5), '/cutover/nope']) assertHeaders((await raw(svc.port, path)).headers, path);
    const page = await raw(svc.port, '/cutover/');
    assert.match(page.headers['content-type'], /^text\/html/);
    assert.doesNotMatch(page.body, /<script>|<style|style=|https?:\/\//, 'no inline script or style, nothing from another origin');
    assert.match(page.body, /<script type="module" src="\/cutover\/console\.js"><\/script>/);
    assert.match((await raw(svc.port, '/cutover/console.js')).headers['content-type'], /^text\/javascript/);
    assert.match((await raw(svc.port, '/cutover/console.css')).headers['content-type'], /^text\/css/);
    assert.match((await raw(svc.port, '/cutover/api/snapshot')).headers['content-type'], /^application\/json/);
  });

  test('tricks with paths: dot segments leave basePath (to next()), encoded ones stay unknown (404)', async () => {
    for (const path of ['/cutover/../x', '/cutover/%2e%2e/x', '/cutover/%2E%2E/package.json', '/cutover/./../etc/passwd', '/cutover\\..\\x', '/cutoverx', '/cutover-api/snapshot', '/x/cutover/api/snapshot']) {
      const r = await raw(svc.port, path);
      assert.equal(r.status, 418, `${path} went to next()`);
    }
    for (const path of ['/cutover/..%2fx', '/cutover/api/snapshot/', '/cutover/api/snapshot/..%2f..%2fx', '/cutover/console.js%00', '/cutover/API/snapshot', '/cutover/api', '/cutover//api/snapshot', '/cutover/page.js']) {
      const r = await raw(svc.port, path);
      assert.equal(r.status, 404, path);
      assert.equal(r.body, '', path);
    }
    // The query string does not change the route.
    assert.equal((await raw(svc.port, '/cutover/api/snapshot?x=../../y')).status, 200);
  });

  test('methods other than GET and HEAD → 405 with Allow; HEAD answers without a body', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE']) {
      const r = await raw(svc.port, '/cutover/api/snapshot', { method });
      assert.equal(r.status, 405, method);
      assert.equal(r.headers.allow, 'GET, HEAD', method);
      assert.equal(r.body, '', method);
    }
    const head = await raw(svc.port, '/cutover/api/snapshot', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });

  test('at most maxStreams streams: one more answers 503, and a closed one frees its place', async () => {
    const open = [];
    for (let i = 0; i < 2; i++) {
      const controller = new AbortController();
      const response = await fetch(`${svc.url}/cutover/api/stream`, { signal: controller.signal });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type'), /^text\/event-stream/);
      open.push({ controller, response });
    }
    const third = await raw(svc.port, '/cutover/api/stream');
    assert.equal(third.status, 503);
    assert.equal(third.body, '');
    open[0].controller.abort();
    await open[0].response.body?.cancel().catch(() => {});
    let status;
    for (let i = 0; i < 50 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const { response } = await streamStart(`${svc.url}/cutover/api/stream`);
      status = response.status;
    }
    assert.equal(status, 200, 'a place was freed');
    open[1].controller.abort();
  });

  test('the fetch form: outside basePath 404, inside as over http; after close() 503', async () => {
    const handler = migrationConsole({ authorize: () => true, basePath: '/ops/migrations/' });
    const get = (path, method = 'GET') => handler(new Request(`http://svc.example${path}`, { method }));
    assert.equal((await get('/cutover/api/snapshot')).status, 404);
    assert.equal((await get('/ops/migrations/api/snapshot')).status, 200);
    assert.equal((await get('/ops/migrations')).status, 200);
    assert.equal((await get('/ops/migrations/api/snapshot', 'POST')).status, 405);
    handler.close();
    assert.equal((await get('/ops/migrations/api/snapshot')).status, 503);
  });
});

describe('options', () => {
  const ok = { authorize: () => true };
  const cases = [
    [undefined, TypeError, /migrationConsole: options must be an object/],
    [{}, TypeError, /migrationConsole: authorize must be a function .*got undefined/],
    [{ authorize: true }, TypeError, /authorize must be a function.*got boolean true/],
    [{ ...ok, basePath: 'cutover' }, TypeError, /basePath must be a string starting with '\/', got string "cutover"/],
    [{ ...ok, basePath: '/a/../b' }, TypeError, /basePath must be a plain URL path/],
    [{ ...ok, basePath: '/a b' }, TypeError, /basePath must be a plain URL path/],
    [{ ...ok, showValues: 'yes' }, TypeError, /showValues must be a boolean, got string "yes"/],
    [{ ...ok, historySeconds: '900' }, TypeError, /historySeconds must be a number, got string "900"/],
    [{ ...ok, historySeconds: 0 }, RangeError, /historySeconds must be an integer from 10 to 3600, got number 0/],
    [{ ...ok, maxStreams: 1.5 }, RangeError, /maxStreams must be an integer from 1 to 1000, got number 1.5/],
    [{ ...ok, migrators: { a: {} } }, TypeError, /migrators\.a must be a Migrator, got object/],
    [{ ...ok, managers: [] }, TypeError, /managers must be an object of display name → BigSegmentStoreManager, got object/],
    [{ ...ok, fleet: {} }, TypeError, /fleet must be made by redisFleet\(\), got object/],
    [{ ...ok, maxStream: 3 }, TypeError, /maxStream is not an option of migrationConsole; did you mean maxStreams\?/],
  ];
  for (const [options, type, message] of cases) {
    test(`${JSON.stringify(options)} → ${type.name}`, () => {
      assert.throws(() => migrationConsole(options), (e) => e instanceof type && message.test(e.message));
    });
  }

  test("redisFleet's", () => {
    const host = { command: async () => null };
    assert.throws(() => redisFleet({}), /redisFleet: host must be a Redis host function or an object with a command method/);
    assert.throws(() => redisFleet(host, { intervalMs: 50 }), (e) => e instanceof RangeError && /intervalMs must be an integer of at least 100, got number 50/.test(e.message));
    assert.throws(() => redisFleet(host, { intervalMs: 5000, ttlMs: 5000 }), (e) => e instanceof RangeError && /ttlMs must be longer than intervalMs \(5000\), got number 5000/.test(e.message));
    assert.throws(() => redisFleet(host, { key: '' }), /key must be a non-empty string/);
    assert.throws(() => redisFleet(host, { ttl: 1 }), /ttl is not an option of redisFleet/);
    const fleet = redisFleet(host, { instance: 'a' });
    assert.deepEqual(Object.fromEntries(Object.entries(fleet)), { key: 'cutover:fleet', instance: 'a', intervalMs: 5000, ttlMs: 30000 });
  });
});
