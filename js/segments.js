// Big Segments: the store manager, its status provider, and the frozen store objects over the
// Rust stores (the Redis store here; js/dynamodb.js makes the DynamoDB one).
import * as wasm from './wasm/cutover.js';
import { OptionsOf } from './wasm/cutover.js';
import { now } from './bridge/promise.js';
import { BIG_SEGMENTS, gaugeSlot, instrumentsOf } from './metrics.js';
import { CONSOLE_SAMPLE, INNER, isObject, LastString, read } from './util.js';

class BigSegmentStoreStatusProvider {
  #manager;
  #ids = new Map();
  constructor(token, manager) {
    if (token !== INNER) throw new TypeError('a status provider is made by BigSegmentStoreManager');
    this.#manager = manager;
  }
  /** The last status, or a poll now if there is none. */
  getStatus() {
    return this.#manager.getStatus();
  }
  get lastStatus() {
    return this.#manager.lastStatus();
  }
  addListener(listener) {
    const id = this.#manager.addListener(listener);
    const ids = this.#ids.get(listener);
    if (ids) ids.push(id);
    else this.#ids.set(listener, [id]);
  }
  removeListener(listener) {
    const ids = this.#ids.get(listener);
    if (!ids) return;
    const id = ids.shift();
    if (ids.length === 0) this.#ids.delete(listener);
    this.#manager.removeListener(id);
  }
}

// The Rust store (a wasm NativeStore) behind each redisBigSegmentStore and dynamoDbBigSegmentStore
// object: a manager or launchDarklyBigSegmentStore over such an object queries it directly.
const nativeStores = new WeakMap();

/** The Rust store behind `store` when it is a redisBigSegmentStore or dynamoDbBigSegmentStore object. */
export function nativeStoreOf(store) {
  return store !== null && typeof store === 'object' ? nativeStores.get(store) : undefined;
}

/** The frozen store object over a Rust store; its answers are the Rust store's own. */
export function nativeStoreObject(inner) {
  const store = Object.freeze({
    getMetadata: () => inner.getMetadata(),
    getMembership: (contextHash) => new Promise((resolve, reject) => inner.getMembership(contextHash, resolve, reject)),
    close() {},
  });
  nativeStores.set(store, inner);
  return store;
}

export class BigSegmentStoreManager {
  #inner;
  #lastKey = new LastString();
  // The last warm answer and the promise of it: a context looked up again in a row (several
  // flags of one evaluation) gets the same promise, with no allocation; the cache keeps answers,
  // not promises (issue 32: memory per cached context).
  #lastAnswer;
  #lastPromise;
  #unobserve;
  constructor(managerOptions) {
    const given = isObject(managerOptions);
    if (given) wasm.checkOptionNames(OptionsOf.BigSegmentStoreManager, managerOptions); // names before any value
    const store = given ? read(managerOptions, 'store') : undefined;
    const native = nativeStoreOf(store);
    const meter = given ? read(managerOptions, 'meter') : undefined;
    const instruments = meter === undefined ? undefined : instrumentsOf(meter, BIG_SEGMENTS, 'options.meter');
    // The status gauge, found in the core's table by its kind (its callback is removed at close()).
    const status = instruments?.[gaugeSlot(BIG_SEGMENTS)];
    if (instruments !== undefined && typeof status.addCallback !== 'function') {
      throw new TypeError('options.meter.createObservableGauge() must return an observable gauge (with addCallback)');
    }
    this.#inner = new wasm.WasmBigSegmentStoreManager(managerOptions === undefined ? {} : managerOptions, instruments, native?.share());
    if (instruments !== undefined) this.#observeStatus(status);
    /** @readonly */
    this.statusProvider = new BigSegmentStoreStatusProvider(INNER, this.#inner);
    Object.defineProperty(this, 'statusProvider', { writable: false, configurable: false }); // enumerable, read-only
  }
  /** Background status polling every statusPollIntervalMs; idempotent; never keeps Node alive. */
  start() {
    this.#inner.start();
  }
  getUserMembership(contextKey) {
    // A warm cache answers without a round trip through the wasm's promise machinery; the key
    // crosses only when it is not the string the previous lookup passed.
    let ready;
    if (typeof contextKey === 'string') {
      const repeated = this.#lastKey.repeated(contextKey);
      ready = this.#inner.lookupNow(repeated ? undefined : contextKey, now());
    }
    if (ready !== undefined) {
      if (ready !== this.#lastAnswer) {
        this.#lastAnswer = ready;
        this.#lastPromise = Promise.resolve(ready);
      }
      return this.#lastPromise;
    }
    return new Promise((resolve, reject) => this.#inner.getUserMembership(contextKey, resolve, reject));
  }
  /** Lookups, cache hits/misses and store calls so far (beyond the anchors, for dashboards). */
  stats() {
    return this.#inner.counters();
  }
  /** For migrationConsole: the store queries' latency histogram (wire form). */
  [CONSOLE_SAMPLE]() {
    return this.#inner.storeLatencyWire();
  }
  /** Stops polling, then awaits the store's close(); idempotent; later lookups reject. */
  close() {
    this.#unobserve?.();
    this.#unobserve = undefined;
    return this.#inner.close();
  }
  // The gauge reports the last status (none before the first poll); its callback holds the
  // manager only until close().
  #observeStatus(gauge) {
    const inner = this.#inner;
    const callback = (result) => {
      const value = inner.statusGauge();
      if (value !== undefined) result.observe(value);
    };
    gauge.addCallback(callback);
    this.#unobserve = () => {
      if (typeof gauge.removeCallback === 'function') gauge.removeCallback(callback);
    };
  }
}

export function hashContextKey(contextKey) {
  return wasm.hashContextKey(contextKey);
}

export function bigSegmentRef(segmentKey, generation) {
  return wasm.bigSegmentRef(segmentKey, generation);
}

/** A Big Segment store over Redis in the Relay Proxy's schema, through any Redis client. */
export function redisBigSegmentStore(host, storeOptions) {
  return nativeStoreObject(wasm.NativeStore.redis(host, storeOptions));
}
