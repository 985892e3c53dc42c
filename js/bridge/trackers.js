// A flag system's own tracker (LaunchDarkly's `LDMigrationTracker` shape), its methods looked
// up when they are called (src/js/delegation.rs), and the event it makes sent to its client.
import { Call, Check, TrackerMethod } from '../wasm/cutover.js';
import { present } from '../util.js';
import { trackerMethods } from './names.js';
import { keepThrown } from './thrown.js';

/**
 * `client.trackMigrationOp(event)`, the method looked up now.
 * @param {any} client
 * @param {unknown} event
 * @returns {number} a `Call`
 */
export function sendEvent(client, event) {
  let track;
  try {
    track = client.trackMigrationOp;
  } catch (error) {
    keepThrown(error);
    return Call.Threw;
  }
  if (typeof track !== 'function') return Call.NotAFunction;
  try {
    track.call(client, event);
    return Call.Done;
  } catch (error) {
    keepThrown(error);
    return Call.Threw;
  }
}

/**
 * @param {any} tracker
 * @param {number} method a `TrackerMethod`
 * @param {unknown} a
 * @param {unknown} b
 * @returns {number} a `Call`
 */
export function trackerCall(tracker, method, a, b) {
  try {
    tracker[trackerMethods[method]](a, b);
    return Call.Done;
  } catch (error) {
    keepThrown(error);
    return Call.Threw;
  }
}

/**
 * @param {any} tracker
 * @param {unknown} origin
 * @param {number} ms
 * @param {boolean} failed
 * @returns {number} the flags `1 << TrackerMethod` of the calls that threw
 */
export function trackerOrigin(tracker, origin, ms, failed) {
  let threw = 0;
  let errors;
  try {
    tracker.invoked(origin);
  } catch (error) {
    threw |= 1 << TrackerMethod.Invoked;
    errors = [error];
  }
  if (present(ms)) {
    try {
      tracker.latency(origin, ms);
    } catch (error) {
      threw |= 1 << TrackerMethod.Latency;
      (errors ??= []).push(error);
    }
  }
  if (failed) {
    try {
      tracker.error(origin);
    } catch (error) {
      threw |= 1 << TrackerMethod.Error;
      (errors ??= []).push(error);
    }
  }
  if (threw) keepThrown(errors);
  return threw;
}

/**
 * @param {any} tracker
 * @param {any} comparison
 * @param {unknown} oldValue
 * @param {unknown} newValue
 * @returns {number} a `Check`
 */
export function trackerConsistency(tracker, comparison, oldValue, newValue) {
  let answer = Check.NotRun;
  try {
    tracker.consistency(() => {
      answer = Check.NotRun;
      const consistent = Boolean(comparison.deref()(oldValue, newValue)); // a weak reference (held.js)
      answer = consistent ? Check.Consistent : Check.Inconsistent;
      return consistent;
    });
  } catch (error) {
    keepThrown(error);
    return Check.Threw;
  }
  return answer;
}

/** The event `createEvent` made, until `sendHeldEvent` sends it (src/js/bridge.rs says why). */
let held;

/**
 * @param {any} tracker
 * @returns {number} a `Call`: `Done` holds the event, `Absent` when it made none
 */
export function createEvent(tracker) {
  try {
    held = tracker.createEvent() ?? undefined;
    return held === undefined ? Call.Absent : Call.Done;
  } catch (error) {
    keepThrown(error);
    return Call.Threw;
  }
}

/**
 * @param {any} client
 * @returns {number} a `Call`
 */
export function sendHeldEvent(client) {
  const event = held;
  held = undefined;
  return sendEvent(client.deref(), event); // a weak reference (held.js)
}
