// beaconSink: a page's events sent home (API.md §2c). Events wait in a batch and go out as one
// JSON array: with a keepalive fetch when maxBatch wait, flushIntervalMs after the first one
// waited, or on flush()/close(); with navigator.sendBeacon when the page is hidden or left.
// All of it is JavaScript: timers, fetch, navigator and the page's lifecycle events are host
// objects, and there is nothing here for the core to decide.
import { OptionsOf, checkOptionNames } from './wasm/cutover.js';
import { describe, read } from './util.js';

const NAME = 'beaconSink';
/**
 * A keepalive request's body must stay under 64 KiB (and so must all of a page's keepalive
 * bodies in flight together, which is why one body is in flight at a time): bodies are at most
 * this many UTF-8 bytes.
 */
export const MAX_BODY_BYTES = 65535;
/** setTimeout's longest delay; a longer one fires at once. */
const MAX_DELAY_MS = 2147483647;
/**
 * Bodies waiting behind the one in flight, at most: an endpoint that never answers must not make
 * the page hold every event it makes (100 bodies: up to 6.5 MB). The oldest go first, counted as
 * dropped.
 */
export const MAX_UNSENT_BODIES = 100;

const encoder = new TextEncoder();

/** @param {any} options @param {string} name */
function option(options, name, fallback, max) {
  const value = options === undefined ? undefined : read(options, name);
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${NAME}: ${name} must be a number, ${describe(value)}`);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new RangeError(`${NAME}: ${name} must be an integer from 1 to ${max}, ${describe(value)}`);
  }
  return value;
}

/** The event texts as JSON arrays of at most MAX_BODY_BYTES each: `{ text, events }`. */
function bodies(texts, sizes) {
  const out = [];
  let part = [];
  let bytes = 2; // '[' and ']'
  const close = () => out.push({ text: `[${part.join(',')}]`, events: part.length });
  for (let i = 0; i < texts.length; i++) {
    if (part.length && bytes + 1 + sizes[i] > MAX_BODY_BYTES) {
      close();
      part = [];
      bytes = 2;
    }
    bytes += sizes[i] + (part.length ? 1 : 0);
    part.push(texts[i]);
  }
  if (part.length) close();
  return out;
}

/**
 * @param {any} url
 * @param {any} [options]
 */
export function beaconSink(url, options) {
  if (typeof url !== 'string' && !(typeof URL === 'function' && url instanceof URL)) {
    throw new TypeError(`${NAME}: url must be a string or a URL, ${describe(url)}`);
  }
  const target = String(url);
  if (target === '') throw new TypeError(`${NAME}: url must not be empty, got string ""`);
  if (options !== undefined) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`${NAME}: options must be an object, ${describe(options)}`);
    }
    checkOptionNames(OptionsOf.BeaconSink, options);
  }
  const maxBatch = option(options, 'maxBatch', 50, 1_000_000);
  const flushIntervalMs = option(options, 'flushIntervalMs', 5000, MAX_DELAY_MS);

  /** Waiting events: their JSON texts and UTF-8 sizes. */
  let texts = [];
  let sizes = [];
  /** Bodies made but not yet started (one keepalive fetch is in flight at a time). */
  const unsent = [];
  let inFlight = false;
  /** flush() callers waiting for the sink to be idle. */
  let idle = [];
  let timer;
  let closed = false;
  const counts = { sent: 0, failed: 0, dropped: 0 };
  let lastError;

  const doc = typeof document === 'object' && document !== null ? document : undefined;
  const win = typeof addEventListener === 'function' ? globalThis : undefined;

  function settle(events, ok, error) {
    if (ok) counts.sent += events;
    else {
      counts.failed += events;
      lastError = error;
    }
  }

  function disarm() {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  }

  function arm() {
    if (timer !== undefined || closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      send();
    }, flushIntervalMs);
    // A waiting batch must not keep a Node process (or a worker) alive.
    if (typeof timer === 'object' && timer !== null && typeof timer.unref === 'function') timer.unref();
  }

  /** The waiting events as bodies, taken out of the batch. */
  function take() {
    disarm();
    if (texts.length === 0) return [];
    const out = bodies(texts, sizes);
    texts = [];
    sizes = [];
    return out;
  }

  /** Posts not yet answered (the pump's one, and a hidden page's fallbacks). */
  let outstanding = 0;

  /** Resolves the flush() callers once nothing waits and nothing is in flight. */
  function whenIdle() {
    if (outstanding > 0 || unsent.length > 0) return;
    const waiting = idle;
    idle = [];
    for (const resolve of waiting) resolve();
  }

  /** One keepalive POST; resolves with no value whatever happens. */
  function post(body) {
    outstanding++;
    return attempt(body).then(() => {
      outstanding--;
      whenIdle();
    });
  }

  /** The fetch itself: settles the body's events as sent or failed; never rejects. */
  function attempt(body) {
    const fetcher = globalThis.fetch;
    if (typeof fetcher !== 'function') {
      settle(body.events, false, new TypeError(`${NAME}: fetch is not available`));
      return Promise.resolve();
    }
    let request;
    try {
      request = fetcher.call(globalThis, target, {
        method: 'POST',
        keepalive: true,
        headers: { 'content-type': 'application/json' },
        body: body.text,
      });
    } catch (error) {
      settle(body.events, false, error);
      return Promise.resolve();
    }
    return Promise.resolve(request).then(
      (response) => {
        const status = read(response, 'status');
        const ok = typeof status === 'number' && status >= 200 && status < 300;
        settle(body.events, ok, ok ? undefined : new Error(`${NAME}: ${target} answered ${status}`));
        // The answer's body is not needed; let the connection go.
        try {
          read(response, 'body')?.cancel?.()?.catch?.(() => {});
        } catch {
          // not a stream: nothing to let go
        }
      },
      (error) => settle(body.events, false, error),
    );
  }

  /** Starts the next body when none is in flight. */
  function pump() {
    if (inFlight) return;
    const body = unsent.shift();
    if (body === undefined) return whenIdle();
    inFlight = true;
    post(body).then(() => {
      inFlight = false;
      pump();
    });
  }

  /** The waiting events, posted with keepalive fetches (one body in flight at a time). */
  function send() {
    unsent.push(...take());
    while (unsent.length > MAX_UNSENT_BODIES) {
      counts.dropped += unsent.shift().events;
      lastError = new RangeError(`${NAME}: ${MAX_UNSENT_BODIES} bodies already wait for ${target}; the oldest was dropped`);
    }
    pump();
  }

  /** The page is going away: every body not yet started goes with sendBeacon now. */
  function beacon() {
    const going = unsent.splice(0).concat(take());
    for (const body of going) {
      let queued = false;
      try {
        const nav = typeof navigator === 'object' && navigator !== null ? navigator : undefined;
        const sendBeacon = nav && read(nav, 'sendBeacon');
        if (typeof sendBeacon === 'function') {
          queued = sendBeacon.call(nav, target, new Blob([body.text], { type: 'application/json' })) === true;
        }
      } catch {
        queued = false;
      }
      if (queued) settle(body.events, true);
      else post(body); // the fallback: a keepalive fetch outlives the page too
    }
  }

  function onVisibility() {
    if (doc && read(doc, 'visibilityState') === 'hidden') beacon();
  }
  const onPageHide = () => beacon();

  if (doc && typeof doc.addEventListener === 'function') doc.addEventListener('visibilitychange', onVisibility);
  if (win) win.addEventListener('pagehide', onPageHide);

  function sink(event) {
    if (closed) {
      counts.dropped++;
      return;
    }
    let text;
    try {
      text = JSON.stringify(event);
    } catch (error) {
      text = undefined;
      lastError = error;
    }
    if (typeof text !== 'string') {
      counts.dropped++;
      return;
    }
    const size = encoder.encode(text).length;
    if (size + 2 > MAX_BODY_BYTES) {
      counts.dropped++;
      lastError = new RangeError(`${NAME}: an event of ${size} bytes does not fit in a keepalive body`);
      return;
    }
    texts.push(text);
    sizes.push(size);
    if (texts.length >= maxBatch) send();
    else arm();
  }

  sink.flush = function flush() {
    send();
    if (outstanding === 0 && unsent.length === 0) return Promise.resolve();
    return new Promise((resolve) => idle.push(resolve));
  };

  sink.close = function close() {
    if (closed) return;
    send();
    closed = true;
    disarm();
    if (doc && typeof doc.removeEventListener === 'function') doc.removeEventListener('visibilitychange', onVisibility);
    if (win) win.removeEventListener('pagehide', onPageHide);
  };

  sink.stats = function stats() {
    return { waiting: texts.length, sent: counts.sent, failed: counts.failed, dropped: counts.dropped, lastError };
  };

  return sink;
}
