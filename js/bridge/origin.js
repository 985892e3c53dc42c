// Origins and comparisons: the caller's functions called and their outcomes reported to the
// wasm with the milliseconds each took (`deliverTimed`, `deliverBoth`; src/js/origin.rs). The
// wasm hands each function over as the weak reference `weakly` made (held.js): `deref()` is the
// function, which the facade's `held` list keeps while the wasm may call it.
import { Call, Check, Pair, deliverBoth, deliverTimed } from '../wasm/cutover.js';
import { isObject, promiseOf, read, when } from '../util.js';
import { keepThrown } from './thrown.js';
import { now } from './promise.js';

const FAILURE = Symbol.for('cutover.failure');

/** Whether an origin's value is a `failure(error)`. */
function isFailure(value) {
  if (!isObject(value)) return false;
  try {
    return Boolean(value[FAILURE]);
  } catch {
    return false; // not a failure(error) value
  }
}

function originSettled(id, value, start) {
  const ms = now() - start;
  if (isFailure(value)) return deliverTimed(id, false, read(value, 'error'), ms);
  deliverTimed(id, true, value, ms);
}

/**
 * @param {any} f
 * @param {unknown} payload
 * @param {unknown} signal
 * @param {number} id
 */
export function callOrigin(f, payload, signal, id) {
  callOriginSince(f, payload, signal, id, now());
}

/** `callOrigin` with its clock started at `start`. */
function callOriginSince(f, payload, signal, id, start) {
  let value;
  try {
    value = f.deref()(payload, signal);
  } catch (error) {
    return deliverTimed(id, false, error, now() - start);
  }
  const promise = promiseOf(value);
  if (promise === undefined) return originSettled(id, value, start);
  when(promise, (result) => originSettled(id, result, start), (error) => deliverTimed(id, false, error, now() - start));
}

// Two origins started together, reported together: one state object per pair, no arrays per
// outcome.
class Both {
  constructor(id, start) {
    this.id = id;
    this.start = start;
    this.pending = 2;
    this.ok0 = true;
    this.value0 = undefined;
    this.ms0 = NaN;
    this.ok1 = true;
    this.value1 = undefined;
    this.ms1 = NaN;
  }
  done(second, ok, value) {
    const ms = now() - this.start;
    if (ok && isFailure(value)) {
      ok = false;
      value = read(value, 'error');
    }
    if (second) {
      this.ok1 = ok;
      this.value1 = value;
      this.ms1 = ms;
    } else {
      this.ok0 = ok;
      this.value0 = value;
      this.ms0 = ms;
    }
    if (--this.pending === 0) {
      const succeeded = (this.ok0 ? Pair.FirstSucceeded : 0) | (this.ok1 ? Pair.SecondSucceeded : 0);
      deliverBoth(this.id, succeeded, this.value0, this.ms0, this.value1, this.ms1);
    }
  }
  run(fn, second, payload, signal) {
    let value;
    try {
      value = fn.deref()(payload, signal);
    } catch (error) {
      return this.done(second, false, error);
    }
    const promise = promiseOf(value);
    if (promise === undefined) return this.done(second, true, value);
    when(
      promise,
      (result) => this.done(second, true, result),
      (error) => this.done(second, false, error),
    );
  }
}

/**
 * @param {any} f
 * @param {any} g
 * @param {unknown} payload
 * @param {unknown} signal
 * @param {number} id
 */
export function callBoth(f, g, payload, signal, id) {
  const both = new Both(id, now());
  both.run(f, false, payload, signal);
  both.run(g, true, payload, signal);
}

/**
 * Two origins started together, each reported as it settles (background mode), timed from one
 * start as `callBoth` times them (a `now()` is about 40 ns in Node: one per background read).
 * @param {any} f
 * @param {any} g
 * @param {unknown} payload
 * @param {unknown} signal
 * @param {number} first
 * @param {number} second
 */
export function callEach(f, g, payload, signal, first, second) {
  const start = now();
  callOriginSince(f, payload, signal, first, start);
  callOriginSince(g, payload, signal, second, start);
}

/**
 * @param {any} comparison
 * @param {unknown} oldValue
 * @param {unknown} newValue
 * @returns {number}
 */
export function compare(comparison, oldValue, newValue) {
  try {
    return comparison.deref()(oldValue, newValue) ? Check.Consistent : Check.Inconsistent;
  } catch (error) {
    keepThrown(error);
    return Check.Threw;
  }
}

/**
 * Calls `onMismatch(mismatch)` (a weak reference, as above).
 * @param {any} listener
 * @param {unknown} mismatch
 * @returns {number} a `Call`: `Threw` keeps the thrown value for `takeThrown()`
 */
export function notify(listener, mismatch) {
  try {
    listener.deref()(mismatch);
    return Call.Done;
  } catch (error) {
    keepThrown(error);
    return Call.Threw;
  }
}
