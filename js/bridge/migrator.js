// An operation's result handed to the facade's promise (src/js/migrator.rs): one call per
// operation, each origin's part given as a `Side` and its value or error.
import { Call, Side } from '../wasm/cutover.js';
import { originNames } from './stage.js';
import { keepThrown } from './thrown.js';

/**
 * `{ origin, success, value | error }` for a `Side`; in LaunchDarkly's shape (createMigration),
 * `result` for `value`.
 */
function result(side, payload, launchDarklyShape) {
  const origin = originNames[side === Side.OldSucceeded || side === Side.OldFailed ? 0 : 1];
  if (side === Side.OldFailed || side === Side.NewFailed) return { origin, success: false, error: payload };
  return launchDarklyShape ? { origin, success: true, result: payload } : { origin, success: true, value: payload };
}

/**
 * @param {any} pending
 * @param {number} side
 * @param {unknown} payload
 */
export function resolveRead(pending, side, payload) {
  pending.resolve(result(side, payload, pending.launchDarklyShape));
}

/**
 * @param {any} pending
 * @param {number} first
 * @param {unknown} payload
 * @param {number} second
 * @param {unknown} secondPayload
 */
export function resolveWrite(pending, first, payload, second, secondPayload) {
  const shape = pending.launchDarklyShape;
  const authoritative = result(first, payload, shape);
  if (second === Side.None) return pending.resolve({ authoritative });
  pending.resolve({ authoritative, nonAuthoritative: result(second, secondPayload, shape) });
}

/**
 * @param {any} pending
 * @param {unknown} error
 */
export function rejectPending(pending, error) {
  pending.reject(error);
}

/**
 * Hands the operation's background part to `pending.waitUntil`: a promise that resolves (never
 * rejects) at `partEnded(pending)`, also when `waitUntil` threw (a `Call`: `Threw` keeps the
 * thrown value for `takeThrown()`).
 * @param {any} pending
 * @returns {number}
 */
export function handOver(pending) {
  const ended = new Promise((resolve) => {
    pending.ended = resolve;
  });
  try {
    pending.waitUntil(ended);
    return Call.Done;
  } catch (e) {
    keepThrown(e);
    return Call.Threw;
  }
}

/**
 * The operation has ended: resolves the promise `handOver` gave `waitUntil`, if it gave one.
 * @param {any} pending
 */
export function partEnded(pending) {
  const resolve = pending.ended;
  if (resolve !== undefined) resolve(undefined);
}

/**
 * The caller's signal when it is an AbortSignal whose state can be read, else undefined.
 * @param {any} pending
 * @returns {unknown}
 */
export function signalOf(pending) {
  const signal = pending.signal;
  try {
    if (signal instanceof AbortSignal) {
      void signal.aborted;
      return signal;
    }
  } catch {
    // a proxy or subclass whose checks throw: not a usable signal
  }
  return undefined;
}
