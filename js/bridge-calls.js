// The bridge's calls into the host's objects: a flag client's answer read field by field, and
// origins called and their outcomes reported (src/js/bridge.rs and the binding files that declare them);
// initCalls() sets the state they share with bridge.js.
import * as wasm from './wasm/cutover.js';
import { isObject, number, promiseOf, read, when } from './util.js';

const FAILURE = Symbol.for('cutover.failure');
// The numbers the facade shares with the wasm, read from it once in initCalls() (src/js/protocol.rs):
// answer codes (0–5 a stage, then these; TAKES_EVENTS is added), operation hints, the tracker
// methods by number.
export let NOT_A_STAGE, ANSWER_OBJECT, THREW, TAKES_EVENTS, PENDING, TRACKER_METHODS;
export let HINT_NOT_A_STAGE, HINT_SAME_KEY, HINT_WRITE, HINT_SIGNAL;
let m0, m1, m2, m3, m4, m5;
export let now; // the bridge's clock, which the facade reads too (BigSegmentStoreManager)
export let stageIndex;
export let settle;
/**
 * What `protocol()` (src/js/protocol.rs) hands over.
 * @typedef {{ ANSWER_NOT_A_STAGE: number, ANSWER_OBJECT: number, ANSWER_THREW: number,
 *   ANSWER_TAKES_EVENTS: number, ANSWER_PENDING: number, TRACKER_METHODS: string[],
 *   HINT_NOT_A_STAGE: number, HINT_SAME_KEY: number, HINT_WRITE: number, HINT_SIGNAL: number }} Protocol
 */
/** The clock, the core's stage names, settlePromise and the protocol: called by bridge() before it installs. */
export function initCalls() {
  now =
    typeof performance === 'object' && performance !== null && typeof performance.now === 'function'
      ? performance.now.bind(performance) // bound: measured 15 % cheaper per call than a wrapper
      : Date.now;
  stageIndex = new Map(wasm.stageNames().map((name, i) => [name, i]));
  settle = wasm.settlePromise;
  ({ ANSWER_NOT_A_STAGE: NOT_A_STAGE, ANSWER_OBJECT, ANSWER_THREW: THREW, ANSWER_TAKES_EVENTS: TAKES_EVENTS,
    ANSWER_PENDING: PENDING, TRACKER_METHODS, HINT_NOT_A_STAGE, HINT_SAME_KEY, HINT_WRITE, HINT_SIGNAL } =
    /** @type {Protocol} */ (wasm.protocol()));
  [m0, m1, m2, m3, m4, m5] = TRACKER_METHODS;
}
// The fields of an answer object, handed to answerFields(id, …); each property read in its own try.
/** Index of the first of the six tracker methods that is not a function; -1: none. */
function firstMissing(tracker) {
  if (typeof tracker !== 'object' && typeof tracker !== 'function') return 0;
  for (let i = 0; i < TRACKER_METHODS.length; i++) {
    if (typeof read(tracker, TRACKER_METHODS[i]) !== 'function') return i;
  }
  return -1;
}
export function readAnswer(answer, id, settleCode = NaN) {
  // All fields in one try (the usual answer is a plain object); when one read throws, each
  // is read again on its own and a throwing one is undefined.
  let value, reason, tracker, variation, version, checkRatio, samplingRatio;
  try {
    ({ value, reason, tracker, variationIndex: variation, flagVersion: version, checkRatio, samplingRatio } = answer);
  } catch {
    value = read(answer, 'value');
    reason = read(answer, 'reason');
    tracker = read(answer, 'tracker');
    variation = read(answer, 'variationIndex');
    version = read(answer, 'flagVersion');
    checkRatio = read(answer, 'checkRatio');
    samplingRatio = read(answer, 'samplingRatio');
  }
  let missing = -1;
  if (tracker != null) {
    try {
      // Unrolled over the wasm's list: each read site always sees the same name.
      missing =
        typeof tracker[m0] !== 'function' ? 0
        : typeof tracker[m1] !== 'function' ? 1
        : typeof tracker[m2] !== 'function' ? 2
        : typeof tracker[m3] !== 'function' ? 3
        : typeof tracker[m4] !== 'function' ? 4
        : typeof tracker[m5] !== 'function' ? 5
        : -1;
    } catch {
      missing = firstMissing(tracker);
    }
  }
  const hasReason = isObject(reason);
  wasm.answerFields(
    id,
    typeof value === 'string' ? (stageIndex.get(value) ?? -1) : -1,
    number(variation),
    hasReason ? reason : undefined,
    number(version),
    number(checkRatio),
    number(samplingRatio),
    tracker ?? undefined,
    (hasReason ? 1 : 0) | (tracker != null ? 2 : 0),
    missing,
    settleCode,
  );
  return ANSWER_OBJECT;
}
export function classify(answer, id) {
  if (typeof answer === 'string') return stageIndex.get(answer) ?? NOT_A_STAGE;
  return isObject(answer) ? readAnswer(answer, id) : NOT_A_STAGE;
}
/** Whether an origin's value is a `failure(error)`. */
function isFailure(value) {
  if (!isObject(value)) return false;
  try {
    return Boolean(value[FAILURE]);
  } catch {
    return false; // not a failure(error) value
  }
}
// Two origins started together, reported together (src/js/origin.rs, callBoth): one state
// object per pair, no arrays per outcome.
class Pair {
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
      wasm.settleBoth(this.id, (this.ok0 ? 1 : 0) | (this.ok1 ? 2 : 0), this.value0, this.ms0, this.value1, this.ms1);
    }
  }
  run(fn, second, payload, signal) {
    let value;
    try {
      value = fn(payload, signal);
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
export function callBoth(f, g, payload, signal, id) {
  const pair = new Pair(id, now());
  pair.run(f, false, payload, signal);
  pair.run(g, true, payload, signal);
}
export function originSettled(id, value, start) {
  const ms = now() - start;
  if (isFailure(value)) return settle(id, false, read(value, 'error'), ms);
  settle(id, true, value, ms);
}
