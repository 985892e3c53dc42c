// Helpers shared by the facade's modules: property reads that never throw, promise plumbing,
// the measurement encodings and argument descriptions for error messages.

export const INNER = Symbol('cutover.inner');
/** Migrator's and BigSegmentStoreManager's internal entry for the console (js/console/sampler.js): the latency histograms' wire form (and a migrator's background parts in flight). */
export const CONSOLE_SAMPLE = Symbol('cutover.consoleSample');
/** Migrator's internal entry for createMigration: operations resolving in LaunchDarkly's result shape. */
export const LD_SHAPED = Symbol('cutover.ldShaped');
/** MigratorBuilder's internal switch to old-first reads (LaunchDarkly's Fixed ordering; no public order string). */
export const OLD_FIRST = Symbol('cutover.oldFirst');
/** `target[key]`, or undefined when reading it throws. */
export function read(target, key) {
  try {
    return target[key];
  } catch {
    return undefined;
  }
}
/** Whether JSON keeps a property with this value (undefined, functions, symbols, bigints are left out). */
export function kept(value) {
  const type = typeof value;
  return !(value === undefined || type === 'function' || type === 'symbol' || type === 'bigint');
}
export function isObject(value) {
  return value !== null && typeof value === 'object';
}
export function isArray(value) {
  try {
    return Array.isArray(value);
  } catch {
    return true; // a revoked proxy: not a context
  }
}
export const number = (value) => (typeof value === 'number' ? value : NaN);
/** The promise to await for a promise or thenable, else undefined (also when reading `then` throws). */
export function promiseOf(value) {
  try {
    if (value instanceof Promise) return value;
    if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function') {
      return Promise.resolve(value);
    }
  } catch {
    // not awaitable
  }
  return undefined;
}
/** `promise.then(ok, fail)`, reporting a `then` that throws as a rejection. */
export function when(promise, ok, fail) {
  try {
    promise.then(ok, fail);
  } catch (error) {
    fail(error);
  }
}
/**
 * The last string a caller passed, so that the facade can tell the wasm "the same again"
 * instead of sending it (a migration's flag key, `Hint.SameKey`; a warm lookup's context key).
 */
export class LastString {
  #last;
  /** Whether `value` is the string passed last time; a string becomes the last one. */
  repeated(value) {
    if (typeof value !== 'string') return false;
    const same = value === this.#last;
    this.#last = value;
    return same;
  }
}
export const present = (n) => n === n; // not NaN

export function describe(value) {
  if (value === null) return 'got null';
  const type = typeof value;
  if (type === 'string') return `got string ${JSON.stringify(value)}`;
  if (type === 'number' || type === 'boolean' || type === 'bigint') return `got ${type} ${String(value)}`;
  return `got ${type}`;
}
