// The Node side of the background-shadowing fixtures (workerd and edge-runtime tests): one local
// HTTP server that plays both the slow new origin and the event collector.
//   GET  /slow?id=&value=   the new origin: the answer {"value": value} is held back until the test
//                           calls release(id) (or, as a fail-safe only, after FAILSAFE_MS: a worker
//                           that waited for the shadow then shows up in the ordering log)
//   POST /events?id=        the worker's trackMigrationOp posts each migration_op event here
//   POST /log?id=           the worker's logger posts each warn/error line here
// `log` records, in order, what the server saw: 'slow-requested:<id>', 'slow-released:<id>'
// (or 'slow-failsafe:<id>'), 'event:<id>'; tests append their own entries ('response:<id>').
import { createServer } from 'node:http';
import * as SHAPE from './shadow.mjs';

const FAILSAFE_MS = 10_000;

export async function startShadowServer() {
  const log = [];
  const events = new Map(); // id → [event]
  const logs = []; // { id, level, message }
  const held = new Map(); // id → { respond, timer } once /slow?id arrived
  const waiters = new Map(); // `${kind}:${id}` → [resolve]
  const sockets = new Set();

  const notify = (key, value) => {
    for (const resolve of waiters.get(key) ?? []) resolve(value);
    waiters.delete(key);
  };
  const waitFor = (key, ready, what) =>
    ready() ??
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what}: nothing after ${FAILSAFE_MS} ms (log: ${log.join(', ')})`)), FAILSAFE_MS);
      const list = waiters.get(key) ?? [];
      list.push((v) => {
        clearTimeout(timer);
        resolve(v);
      });
      waiters.set(key, list);
    });

  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://local');
    const id = url.searchParams.get('id') ?? '';
    let raw = '';
    for await (const chunk of req) raw += chunk;
    if (req.method === 'GET' && url.pathname === '/slow') {
      log.push(`slow-requested:${id}`);
      const body = JSON.stringify({ value: url.searchParams.get('value') });
      const respond = (how) => {
        const entry = held.get(id);
        if (!entry || entry.done) return;
        entry.done = true;
        clearTimeout(entry.timer);
        log.push(`${how}:${id}`);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      };
      held.set(id, { respond, timer: setTimeout(() => respond('slow-failsafe'), FAILSAFE_MS), done: false });
      notify(`slow:${id}`, true);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/events') {
      log.push(`event:${id}`);
      const list = events.get(id) ?? [];
      list.push(JSON.parse(raw));
      events.set(id, list);
      notify(`event:${id}`, list);
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/log') {
      logs.push({ id, ...JSON.parse(raw) });
      res.writeHead(204).end();
      return;
    }
    res.writeHead(404).end();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();

  return {
    url: `http://127.0.0.1:${port}`,
    log,
    events,
    logs,
    /** Resolves once the worker's new origin has asked for /slow?id. */
    slowRequested: (id) => waitFor(`slow:${id}`, () => (held.has(id) ? Promise.resolve(true) : undefined), `GET /slow?id=${id}`),
    /** Lets the held /slow?id answer go out. */
    release: (id) => held.get(id)?.respond('slow-released'),
    /** Resolves with the events posted for id, once there is at least one. */
    eventsFor: (id) => waitFor(`event:${id}`, () => (events.get(id)?.length ? Promise.resolve(events.get(id)) : undefined), `POST /events?id=${id}`),
    close: () =>
      new Promise((resolve) => {
        for (const { respond } of held.values()) respond('slow-closed');
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The URLs of the worker's /shadow read at `base` against `server`: url(id, value, { bg: false }) reads without background(). */
export const shadowUrls = (base, server) => (id, value, { bg = true } = {}) =>
  `${base}/shadow?collector=${encodeURIComponent(server.url)}&id=${id}&new=${value}${bg ? '' : '&bg=0'}`;

/**
 * The control read (without background()): `runtime.dispatchFetch(url)` sent, 'response:<id>'
 * logged when it answers, the held shadow released once it is requested. Resolves with the Response.
 */
export async function foregroundRead(server, runtime, url, id) {
  const pending = runtime.dispatchFetch(url).then((res) => {
    server.log.push(`response:${id}`);
    return res;
  });
  await server.slowRequested(id);
  server.release(id);
  return pending;
}

/** Positions of the given log entries, for ordering assertions (-1 when absent). */
export const positions = (log, ...entries) => entries.map((e) => log.indexOf(e));

/**
 * Checks one migration_op event of ./shadow.mjs's read: both origins invoked and timed, no error,
 * the comparison's verdict, the flag's evaluation. `where` prefixes failure messages.
 */
export function assertShadowEvent(assert, event, { consistent, where }) {
  const { SHADOW_FLAG, CONTEXT } = SHAPE;
  const text = `${where}: ${JSON.stringify(event)}`;
  assert.equal(event.kind, 'migration_op', text);
  assert.equal(event.operation, 'read', text);
  assert.equal(typeof event.creationDate, 'number', text);
  assert.deepEqual(event.context, CONTEXT, text);
  assert.deepEqual(event.evaluation, { key: SHADOW_FLAG, value: 'shadow', default: 'off', reason: { kind: 'FALLTHROUGH' }, variation: 2, version: 4 }, text);
  assert.equal('samplingRatio' in event, false, text);
  const by = Object.fromEntries(event.measurements.map((m) => [m.key, m]));
  assert.deepEqual(Object.keys(by).sort(), ['consistent', 'invoked', 'latency_ms'], `${text}\n(no error measurement, a consistency value)`);
  assert.deepEqual(by.invoked.values, { old: true, new: true }, text);
  assert.deepEqual(by.consistent, { key: 'consistent', value: consistent }, text);
  const { old: oldMs, new: newMs } = by.latency_ms.values;
  assert.ok(Number.isFinite(oldMs) && oldMs >= 0 && Number.isFinite(newMs) && newMs >= 0, text);
  // Each origin timed to its own settle: the new one settled after the old one had (ordering, not a duration).
  assert.ok(newMs >= oldMs, `${text}\n(the new origin, held back until after the response, timed no shorter than the old)`);
}

/** The event without what differs between two runs (the time, the latencies' values). */
export function eventShape(event) {
  const measurements = event.measurements
    .map((m) => (m.key === 'latency_ms' ? { key: m.key, values: Object.keys(m.values).sort() } : m))
    .sort((a, b) => a.key.localeCompare(b.key));
  const { creationDate, ...rest } = event;
  return { ...rest, measurements };
}
