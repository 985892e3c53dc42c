// Shared helpers for the Big Segments suites (tests/node/segments-*.test.mjs): a recording fake
// store, manager factories and metadata answers.
import { BigSegmentStoreManager, hashContextKey } from 'cutover';

export { makeLogger, sleep } from './common.mjs';

/** Metadata of a store that has just synchronized. */
export const freshMetadata = () => ({ lastUpToDate: Date.now() });

/** Metadata that is fresh until `isDown()` is true, then throws `message`. */
export function metadataDownWhen(isDown, message) {
  return () => {
    if (isDown()) throw new Error(message);
    return freshMetadata();
  };
}

/**
 * A fake store recording every call. `metadata()` and `membership(hash)` give the answers (values
 * or promises; a throw becomes a rejection). `calls`: getMetadata (a count), getMembership (the
 * hashes asked for, in order), times (performance.now() of each membership query), close (a count),
 * events (start/end of every query, in order). `queriesFor(key)` counts the queries for a context key.
 */
export function makeStore({ metadata = freshMetadata, membership = () => ({ 'seg.g1': true }) } = {}) {
  const events = [];
  const calls = { getMetadata: 0, getMembership: [], times: [], close: 0, events };
  const store = {
    async getMetadata() {
      calls.getMetadata++;
      events.push('getMetadata:start');
      try {
        return await metadata();
      } finally {
        events.push('getMetadata:end');
      }
    },
    async getMembership(hash) {
      calls.getMembership.push(hash);
      calls.times.push(performance.now());
      events.push('getMembership:start');
      try {
        return await membership(hash);
      } finally {
        events.push('getMembership:end');
      }
    },
    async close() {
      calls.close++;
    },
  };
  const queriesFor = (key) => calls.getMembership.filter((h) => h === hashContextKey(key)).length;
  return { store, calls, queriesFor };
}

/** A manager over `options`, closed after test `t`. */
export function managerFor(t, options) {
  const manager = new BigSegmentStoreManager(options);
  t.after(() => manager.close());
  return manager;
}
