// An operation's result handed to the facade's promise (src/js/migrator.rs): one call per
// operation, each origin's part given as a `Side` and its value or error.
import { Side } from '../wasm/cutover.js';
import { originNames } from './names.js';

/** `{ origin, success, value | error }` for a `Side`. */
function result(side, payload) {
  const origin = originNames[side === Side.OldSucceeded || side === Side.OldFailed ? 0 : 1];
  return side === Side.OldSucceeded || side === Side.NewSucceeded
    ? { origin, success: true, value: payload }
    : { origin, success: false, error: payload };
}

/**
 * @param {any} pending
 * @param {number} side
 * @param {unknown} payload
 */
export function resolveRead(pending, side, payload) {
  pending.resolve(result(side, payload));
}

/**
 * @param {any} pending
 * @param {number} first
 * @param {unknown} payload
 * @param {number} second
 * @param {unknown} secondPayload
 */
export function resolveWrite(pending, first, payload, second, secondPayload) {
  const authoritative = result(first, payload);
  if (second === Side.None) return pending.resolve({ authoritative });
  pending.resolve({ authoritative, nonAuthoritative: result(second, secondPayload) });
}

/**
 * @param {any} pending
 * @param {unknown} error
 */
export function rejectPending(pending, error) {
  pending.reject(error);
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
