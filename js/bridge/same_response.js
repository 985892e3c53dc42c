// Responses: the snapshots `sameResponse` compares (src/js/same_response.rs). When a read origin
// settles, the wasm hands its value here before the caller gets it; a fetch Response is cloned
// and the clone read, so that the caller's Response keeps its body unread. What is a Response,
// and reading its body, is decided here rather than in the core: a Response is a host object
// whose body only JavaScript can read, once, as a stream. The rules on what is compared are the
// core's (src/diff/response.rs): the status, the listed headers (lower-case names, null when
// absent), the body at most `maxBodyBytes` bytes, parsed as JSON when the content type is JSON
// (text when it does not parse), else text (UTF-8, as `Response#text()` decodes).
import { deliver } from '../wasm/cutover.js';
import { isObject, promiseOf, read, when } from '../util.js';

/**
 * Whether `value` is a fetch Response (any realm's, or a library's of the same shape): it has
 * `clone()`, a numeric `status` and `headers.get()`. A value that cannot be read is not one.
 */
export function isResponse(value) {
  if (!isObject(value)) return false;
  try {
    const headers = value.headers;
    return typeof value.clone === 'function' && typeof value.status === 'number' && isObject(headers) &&
      typeof headers.get === 'function';
  } catch {
    return false;
  }
}

/** One body being read: `stopReading` cancels its reader. */
class Reading {
  constructor() {
    this.stopped = false;
    /** @type {any} */
    this.reader = undefined;
  }
  stop() {
    this.stopped = true;
    const reader = this.reader;
    if (reader === undefined) return;
    try {
      when(promiseOf(reader.cancel()) ?? Promise.resolve(), () => {}, () => {});
    } catch {
      // a reader that cannot be cancelled is left to end by itself
    }
  }
}

const stoppedError = () => new Error('sameResponse: the body was no longer needed');
const tooLong = (max) => new RangeError(`sameResponse: the body is longer than maxBodyBytes (${max} bytes)`);

/** The body's bytes, at most `max` (past that, reading stops and the body is refused). */
async function bodyBytes(copy, max, reading) {
  const stream = read(copy, 'body');
  if (stream === null || stream === undefined) return new Uint8Array(0);
  if (typeof stream.getReader !== 'function') {
    // Not a web stream (a library's Response): the whole body, then the bound.
    const whole = new Uint8Array(await copy.arrayBuffer());
    if (whole.byteLength > max) throw tooLong(max);
    return whole;
  }
  const reader = stream.getReader();
  reading.reader = reader;
  const chunks = [];
  let size = 0;
  for (;;) {
    if (reading.stopped) throw stoppedError();
    const { done, value } = await reader.read();
    if (reading.stopped) throw stoppedError();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      reading.stop();
      throw tooLong(max);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** Whether a content type is a JSON one (`application/json`, `text/json`, `…+json`). */
function isJson(contentType) {
  if (typeof contentType !== 'string') return false;
  const essence = contentType.split(';', 1)[0].trim().toLowerCase();
  return essence === 'application/json' || essence === 'text/json' || essence.endsWith('+json');
}

/** The snapshot `{ status, headers, body }` of `response`, whose clone `copy` is read. */
async function snapshotOf(response, copy, names, max, reading) {
  const status = response.status;
  const given = response.headers;
  const headers = {};
  for (const name of names) {
    // Defined, not assigned: a header named `__proto__` is a key like any other.
    Object.defineProperty(headers, name, { value: given.get(name), enumerable: true, writable: true, configurable: true });
  }
  const contentType = given.get('content-type');
  const text = new TextDecoder().decode(await bodyBytes(copy, max, reading));
  let body = text;
  if (isJson(contentType)) {
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON after all: compared as text
    }
  }
  return { status, headers, body };
}

/**
 * @param {unknown} value
 * @param {unknown} headers
 * @param {number} maxBodyBytes
 * @param {number} id
 * @returns {unknown}
 */
export function readResponse(value, headers, maxBodyBytes, id) {
  if (!isResponse(value)) return undefined;
  const response = /** @type {any} */ (value);
  const reading = new Reading();
  let snapshot;
  try {
    snapshot = snapshotOf(response, response.clone(), headers, maxBodyBytes, reading);
  } catch (error) {
    deliver(id, false, error); // its body was already used: clone() threw
    return reading;
  }
  snapshot.then((taken) => deliver(id, true, taken), (error) => deliver(id, false, error));
  return reading;
}

/** @param {any} reading */
export function stopReading(reading) {
  reading.stop();
}
