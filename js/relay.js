// migrationEventRelay: the server half of beaconSink (API.md §2c), a fetch-style handler that
// forwards posted migration_op events to LaunchDarkly's trackMigration. Which events are
// forwarded, and why the others are not, is the core's decision (src/relay, through
// WasmRelayRules); this file does only what is about HTTP: the method, the content type, the
// body's size while it is read, JSON.parse, the call, and the Response (host objects the core
// cannot make).
import { OptionsOf, WasmRelayRules, checkOptionNames } from './wasm/cutover.js';
import { describe, read } from './util.js';

const NAME = 'migrationEventRelay';
const DEFAULT_MAX_BODY_BYTES = 65536;
const DEFAULT_MAX_EVENTS = 100;

/** A whole-number option of at least 1, or its default. */
function countOption(options, name, fallback) {
  const value = options === undefined ? undefined : read(options, name);
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${NAME}: ${name} must be a number, ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${NAME}: ${name} must be an integer of at least 1, ${describe(value)}`);
  }
  return value;
}

function flagKeysOption(options) {
  const value = options === undefined ? undefined : read(options, 'flagKeys');
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new TypeError(`${NAME}: flagKeys must be an array of strings, ${describe(value)}`);
  // Copied now: the allow-list is the one given at construction.
  const keys = Array.from(value);
  const bad = keys.find((k) => typeof k !== 'string' || k === '');
  if (bad !== undefined) throw new TypeError(`${NAME}: flagKeys must hold non-empty strings, ${describe(bad)}`);
  return keys;
}

const empty = (status, headers) => new Response(null, { status, headers });

/** The 400 answer: how many events were forwarded, and which were not, why. */
function rejection(accepted, rejected) {
  return new Response(JSON.stringify({ accepted, rejected }), {
    status: 400,
    headers: { 'content-type': 'application/json' },
  });
}

/** Whether a content type is JSON: `application/json`, parameters allowed. */
function isJson(contentType) {
  if (typeof contentType !== 'string') return false;
  const media = contentType.split(';', 1)[0].trim().toLowerCase();
  return media === 'application/json';
}

/**
 * The body's bytes, read while they stay within `max`: `undefined` when there are more (reading
 * stops there and the stream is cancelled). A body that cannot be read gives `null`.
 */
async function readBounded(request, max) {
  const body = read(request, 'body');
  if (body === null || body === undefined) return new Uint8Array(0);
  let reader;
  try {
    reader = body.getReader();
  } catch {
    return null;
  }
  const chunks = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!(value instanceof Uint8Array)) return null;
      total += value.byteLength;
      if (total > max) {
        reader.cancel().catch(() => {});
        return undefined;
      }
      chunks.push(value);
    }
  } catch {
    return null;
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** The Content-Length a request declares, or undefined when it declares none it can mean. */
function declaredLength(headers) {
  const text = headers.get('content-length');
  if (text === null || !/^\s*\d+\s*$/.test(text)) return undefined;
  return Number(text);
}

/** The reason a throwing `trackMigration` gives an event (the error's message, bounded). */
function threw(error) {
  let message;
  try {
    message = error instanceof Error ? error.message : String(error);
  } catch {
    message = 'an unprintable value';
  }
  return `ldClient.trackMigration threw: ${message.slice(0, 200)}`;
}

/**
 * @param {any} ldClient
 * @param {any} [options]
 */
export function migrationEventRelay(ldClient, options) {
  if ((typeof ldClient !== 'object' && typeof ldClient !== 'function') || ldClient === null) {
    throw new TypeError(`${NAME}: ldClient must be an object with a trackMigration method, ${describe(ldClient)}`);
  }
  if (typeof read(ldClient, 'trackMigration') !== 'function') {
    throw new TypeError(`${NAME}: ldClient must have a trackMigration method, ${describe(read(ldClient, 'trackMigration'))}`);
  }
  if (options !== undefined) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`${NAME}: options must be an object, ${describe(options)}`);
    }
    checkOptionNames(OptionsOf.MigrationEventRelay, options);
  }
  const flagKeys = flagKeysOption(options);
  const maxBodyBytes = countOption(options, 'maxBodyBytes', DEFAULT_MAX_BODY_BYTES);
  const maxEvents = countOption(options, 'maxEvents', DEFAULT_MAX_EVENTS);
  const rules = new WasmRelayRules(flagKeys);

  /** @param {Request} request */
  async function handle(request) {
    if (read(request, 'method') !== 'POST') return empty(405, { allow: 'POST' });
    const headers = read(request, 'headers');
    if (!headers || typeof headers.get !== 'function') return rejection(0, []);
    if (!isJson(headers.get('content-type'))) return empty(415);
    const declared = declaredLength(headers);
    if (declared !== undefined && declared > maxBodyBytes) return empty(413);
    // Counted as read, whatever Content-Length said.
    const bytes = await readBounded(request, maxBodyBytes);
    if (bytes === undefined) return empty(413);
    if (bytes === null) return rejection(0, []);
    let events;
    try {
      events = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      return rejection(0, []); // not UTF-8, or not JSON
    }
    if (!Array.isArray(events)) return rejection(0, []);
    if (events.length > maxEvents) return empty(413);
    const rejected = [];
    const valid = [];
    for (let index = 0; index < events.length; index++) {
      const reason = rules.judge(events[index]);
      if (reason === undefined) valid.push(index);
      else rejected.push({ index, reason });
    }
    let accepted = 0;
    for (const index of valid) {
      // Looked up at each call: the client's method as it is now.
      const track = read(ldClient, 'trackMigration');
      if (typeof track !== 'function') {
        rejected.push({ index, reason: 'ldClient.trackMigration is not a function' });
        continue;
      }
      try {
        track.call(ldClient, events[index]);
        accepted++;
      } catch (error) {
        rejected.push({ index, reason: threw(error) });
      }
    }
    if (rejected.length === 0) return empty(204);
    rejected.sort((a, b) => a.index - b.index);
    return rejection(accepted, rejected);
  }

  return async function relay(request) {
    try {
      return await handle(request);
    } catch {
      // Nothing above throws on a request's own content; this is the relay failing, not the page.
      return empty(500);
    }
  };
}
