// migrationConsole (API.md §2d): a service's migrators and Big Segments managers, live in a
// browser, as a fetch-style handler (and `.node()` for Node's http, Express, Connect). This file is
// the HTTP: the routes under basePath, authorization at every request, the headers, the methods,
// the bounds on streams, and the timers (unref'd: they never keep a process alive). What is shown
// comes from console/sampler.js and console/snapshot.js; a fleet's figures from the core
// (console/fleet-doc.js). It has no actions: nothing it answers writes.
import { page, script, style } from 'cutover:console-assets';
import { FLEET } from './fleet.js';
import { fleetDocument, fleetView } from './console/fleet-doc.js';
import { nodeHandler } from './console/node.js';
import { consoleOptions } from './console/options.js';
import { Sampler } from './console/sampler.js';
import { snapshotOf } from './console/snapshot.js';
import { Streams, unrefInterval } from './console/streams.js';

/** On every response of the console's (API.md §2d). */
const HEADERS = Object.freeze({
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
});
const TYPES = Object.freeze({
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  sse: 'text/event-stream; charset=utf-8',
  svg: 'image/svg+xml',
});
/** The page's icon (so that browsers do not ask the service's own routes for /favicon.ico). */
const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M2 12L6 4h4l-4 8zM8 12l4-8h2l-4 8z" fill="#12a594"/></svg>';

/**
 * A response with the console's headers (and `extra`); no body for HEAD.
 * @param {number} status
 * @param {{ body?: any, type?: string, head?: boolean, extra?: Record<string, string> }} [options]
 */
function answer(status, { body = null, type, head = false, extra = {} } = {}) {
  const headers = new Headers(HEADERS);
  if (type !== undefined) headers.set('content-type', type);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return new Response(head ? null : body, { status, headers });
}

const messageOf = (error) => {
  try {
    return String(error instanceof Error ? error.message : error).slice(0, 200);
  } catch {
    return 'an unprintable error';
  }
};

/** A promise that resolves after `ms` (its timer unref'd). */
function delay(ms) {
  return new Promise((resolve) => {
    /** @type {any} */
    const timer = setTimeout(resolve, ms);
    if (typeof timer === 'object' && timer !== null && typeof timer.unref === 'function') timer.unref();
  });
}

/** @param {any} options */
export function migrationConsole(options) {
  const config = consoleOptions(options);
  const base = config.basePath;
  const inside = (path) => base === '' || path === base || path.startsWith(`${base}/`);
  const sampler = new Sampler(config);
  const fleet = config.fleet;
  const store = fleet?.[FLEET];
  const fleetState = { view: null, readAt: NaN, reading: null, error: null, publishError: null };
  const html = page.replaceAll('{{base}}', base);
  let closed = false;
  let sampling;
  let publishing;

  function publish() {
    if (closed) return;
    let doc;
    try {
      doc = fleetDocument(config.migrators, config.managers);
    } catch (error) {
      fleetState.publishError = messageOf(error);
      return;
    }
    store.publish(doc).then(
      () => { fleetState.publishError = null; },
      (error) => { fleetState.publishError = messageOf(error); },
    );
  }

  /** Starts sampling (and publishing); where timers are refused (a Worker's global scope), at the first request. */
  function start() {
    if (sampling !== undefined || closed) return;
    try {
      sampling = unrefInterval(() => sampler.sampleIfDue(), 1000);
      if (fleet !== undefined) publishing = unrefInterval(publish, fleet.intervalMs);
    } catch {
      sampling = undefined;
      return;
    }
    sampler.sampleIfDue();
    if (fleet !== undefined) publish();
  }

  /** The fleet as last read (read again when a second old; waiting at most a second for Redis). */
  async function fleetNow() {
    if (fleet === undefined) return null;
    if (!(Date.now() - fleetState.readAt < 1000) && fleetState.reading === null) {
      fleetState.readAt = Date.now();
      fleetState.reading = store.read().then(
        (pairs) => {
          try {
            const view = fleetView(pairs, Date.now(), fleet.ttlMs, fleet.instance);
            fleetState.view = view;
            fleetState.error = null;
            store.forget(view.expired).catch(() => {});
          } catch (error) {
            fleetState.error = messageOf(error);
          }
        },
        (error) => { fleetState.error = messageOf(error); },
      ).finally(() => { fleetState.reading = null; });
    }
    if (fleetState.reading !== null) await Promise.race([fleetState.reading, delay(1000)]);
    const { view, error, publishError } = fleetState;
    const { expired: _, ...shown } = view ?? { instances: [], migrators: [], managers: [], unreadable: 0 };
    return { key: fleet.key, instance: fleet.instance, intervalMs: fleet.intervalMs, ttlMs: fleet.ttlMs, ...shown, error, publishError };
  }

  async function snapshotJson(seconds) {
    sampler.sampleIfDue();
    const fleetShown = await fleetNow();
    return JSON.stringify(snapshotOf(sampler, { showValues: config.showValues, historySeconds: config.historySeconds, seconds, fleet: fleetShown }));
  }

  const streams = new Streams(config.maxStreams, () => snapshotJson(1));

  async function allowed(request) {
    try {
      return (await config.authorize(request)) === true;
    } catch {
      return false;
    }
  }

  async function route(request) {
    const path = new URL(request.url).pathname;
    if (!inside(path)) return answer(404);
    if (!(await allowed(request))) return answer(401);
    const method = request.method;
    if (method !== 'GET' && method !== 'HEAD') return answer(405, { extra: { allow: 'GET, HEAD' } });
    if (closed) return answer(503);
    start();
    sampler.sampleIfDue(); // where timers stand still between requests (a Worker), each request samples
    const head = method === 'HEAD';
    switch (path.slice(base.length) || '/') {
      case '/':
        return answer(200, { body: html, type: TYPES.html, head });
      case '/console.js':
        return answer(200, { body: script, type: TYPES.js, head });
      case '/console.css':
        return answer(200, { body: style, type: TYPES.css, head });
      case '/favicon.svg':
        return answer(200, { body: ICON, type: TYPES.svg, head });
      case '/api/snapshot':
        return answer(200, { body: head ? null : await snapshotJson(config.historySeconds), type: TYPES.json, head });
      case '/api/stream': {
        if (head) return answer(200, { type: TYPES.sse, head });
        const stream = streams.open();
        if (stream === undefined) return answer(503, { extra: { 'retry-after': '5' } });
        return answer(200, { body: stream, type: TYPES.sse, extra: { 'x-accel-buffering': 'no' } });
      }
      default:
        return answer(404);
    }
  }

  /** @param {Request} request */
  async function handle(request) {
    try {
      return await route(request);
    } catch {
      return answer(500);
    }
  }

  handle.node = nodeHandler(handle, inside, (status) => answer(status, { extra: status === 405 ? { allow: 'GET, HEAD' } : {} }));
  handle.close = () => {
    if (closed) return;
    closed = true;
    if (sampling !== undefined) clearInterval(sampling);
    if (publishing !== undefined) clearInterval(publishing);
    streams.closeAll();
    if (store !== undefined) store.forget([fleet.instance]).catch(() => {});
  };
  start();
  return handle;
}
