// cutover's Big Segment stores inside LaunchDarkly's server SDK: `launchDarklyBigSegmentStore(store)`
// is the factory `@launchdarkly/node-server-sdk` takes as `bigSegments: { store }`, wrapping any
// cutover store (redisBigSegmentStore over any client, a JavaScript store, …) in LaunchDarkly's
// interface: getMetadata() → { lastUpToDate? } | undefined, getUserMembership(hash) → object |
// undefined, close(). Store failures reach the SDK as rejections (it marks the store unavailable).
import { OptionsOf, checkMembershipWidth, checkOptionNames } from './wasm/cutover.js';
import { nativeStoreOf } from './segments.js';
import { describe, promiseOf, read } from './util.js';

const NAME = 'launchDarklyBigSegmentStore';

function method(target, name) {
  const f = read(target, name);
  return typeof f === 'function' ? f : undefined;
}

/** `store[name](...args)`, looked up now; a missing method is a TypeError (the promise rejects). */
async function callStore(store, names, args) {
  for (const name of names) {
    const f = method(store, name);
    if (f) return await f.apply(store, args);
  }
  throw new TypeError(`${NAME}: the store no longer has a ${names.join(' or ')} method`);
}

/**
 * The store's failure as the rejection LaunchDarkly gets: the SDK logs it as `${error}` inside its
 * catch, and a value that cannot be printed so (a symbol, a null-prototype object, a throwing
 * toString) would make the SDK's own promise reject unhandled and the evaluation never finish.
 */
function printable(error) {
  try {
    void `${error}`;
    return error;
  } catch {
    return new TypeError(`${NAME}: the store failed with a value that cannot be printed, ${describe(error)}`);
  }
}

/** `promise`, its rejection made printable. */
async function settled(promise) {
  try {
    return await promise;
  } catch (error) {
    throw printable(error);
  }
}

/** A store's metadata answer as LaunchDarkly's: undefined, or `{ lastUpToDate }` when it is a finite number. */
function metadataOf(answer) {
  if (answer === null || answer === undefined) return undefined;
  const last = read(answer, 'lastUpToDate');
  return typeof last === 'number' && Number.isFinite(last) ? Object.freeze({ lastUpToDate: last }) : Object.freeze({});
}

/**
 * A JavaScript store's membership answer, copied as cutover reads it (SPEC.md B5): null or
 * undefined → undefined (no data); otherwise a frozen null-prototype object of its own enumerable
 * keys with boolean values (`__proto__` is data; other values, and keys whose read throws, are left
 * out; an answer that is not an object, or refuses to list its keys, is the empty membership).
 * One of more than 10,000 keys throws (a RangeError: a store error for the SDK).
 */
function membershipOf(answer) {
  if (answer === null || answer === undefined) return undefined;
  const membership = Object.create(null);
  if (typeof answer === 'object' || typeof answer === 'function') {
    let keys = [];
    try {
      keys = Object.keys(answer);
    } catch {
      // a proxy that refuses to list its keys: no entries
    }
    checkMembershipWidth(keys.length); // the core's bound: a wider answer is a store error, unread
    for (const key of keys) {
      const included = read(answer, key);
      if (typeof included === 'boolean') {
        Object.defineProperty(membership, key, { value: included, enumerable: true, writable: false, configurable: false });
      }
    }
  }
  return Object.freeze(membership);
}

const DEFAULT_QUERY_TIMEOUT_MS = 10_000;
const MAX_TIMER_MS = 2 ** 31 - 1; // setTimeout fires at once beyond this: a longer bound is no bound

function queryTimeoutOf(options) {
  if (options === undefined || options === null) return DEFAULT_QUERY_TIMEOUT_MS;
  if (typeof options !== 'object') throw new TypeError(`${NAME}: options must be an object, ${describe(options)}`);
  checkOptionNames(OptionsOf.LaunchDarklyBigSegmentStore, options);
  const ms = read(options, 'queryTimeoutMs');
  if (ms === undefined || ms === null) return DEFAULT_QUERY_TIMEOUT_MS;
  if (typeof ms !== 'number') throw new TypeError(`${NAME}: queryTimeoutMs must be a number, ${describe(ms)}`);
  if (!(ms > 0 && Number.isFinite(ms))) {
    throw new RangeError(`${NAME}: queryTimeoutMs must be a positive finite number, ${describe(ms)}`);
  }
  return ms;
}

/** `promise`, or a TimeoutError rejection after `ms`; the timer never keeps Node alive. */
function bounded(promise, ms) {
  if (ms > MAX_TIMER_MS) return promise;
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new DOMException(`Big Segment store call timed out after ${ms} ms`, 'TimeoutError')), ms);
    if (typeof timer === 'object' && typeof timer?.unref === 'function') timer.unref();
  });
  promise.then(undefined, () => {}); // a late failure after the timeout is not unhandled
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** LaunchDarkly's logger from the SDK's client context, if it has a usable one. */
function loggerOf(clientContext) {
  const logger = read(read(clientContext, 'basicConfiguration'), 'logger');
  return method(logger, 'warn') ? logger : undefined;
}

function closeStore(store, logger) {
  const report = (error) => {
    try {
      logger?.warn(`Big Segment store close returned error: ${error}`);
    } catch {
      // a throwing logger changes nothing
    }
  };
  try {
    const f = method(store, 'close');
    if (!f) return;
    const closing = promiseOf(f.call(store));
    if (closing) closing.then(undefined, report);
  } catch (error) {
    report(error);
  }
}

/** The LaunchDarkly store for one SDK client over `store` (its methods looked up at each call). */
function adapter(store, clientContext, timeoutMs) {
  // A redisBigSegmentStore or dynamoDbBigSegmentStore object is frozen: its Rust store is queried
  // directly (one round trip), and its answers are fresh objects of ours, handed on without a copy.
  const native = nativeStoreOf(store);
  const logger = loggerOf(clientContext);
  let closed = false;
  return Object.freeze({
    async getMetadata() {
      const query = native ? native.getMetadata() : callStore(store, ['getMetadata'], []);
      return metadataOf(await settled(bounded(query, timeoutMs)));
    },
    async getUserMembership(userHash) {
      if (native) {
        const query = new Promise((resolve, reject) => native.getMembership(userHash, resolve, reject));
        const found = await settled(bounded(query, timeoutMs));
        return found === null || found === undefined ? undefined : Object.freeze(found);
      }
      const query = callStore(store, ['getMembership', 'getUserMembership'], [userHash]);
      return membershipOf(await settled(bounded(query, timeoutMs)));
    },
    /** Closes the wrapped store (its close(), when it has one) once; a failure is logged, never thrown. */
    close() {
      if (closed) return;
      closed = true;
      closeStore(store, logger);
    },
  });
}

/**
 * The value of `@launchdarkly/node-server-sdk`'s `bigSegments.store` option: a factory
 * `(clientContext) => store` over a cutover Big Segment store. LaunchDarkly's SDK bounds no store
 * call, so the adapter does: a call slower than `options.queryTimeoutMs` (default 10000) rejects.
 */
export function launchDarklyBigSegmentStore(store, options) {
  const ok =
    store !== null &&
    typeof store === 'object' &&
    method(store, 'getMetadata') !== undefined &&
    (method(store, 'getMembership') !== undefined || method(store, 'getUserMembership') !== undefined);
  if (!ok) {
    throw new TypeError(
      `${NAME}: store must be an object with getMetadata and getMembership (or getUserMembership) methods, ${describe(store)}`,
    );
  }
  const timeoutMs = queryTimeoutOf(options);
  return (clientContext) => adapter(store, clientContext, timeoutMs);
}
