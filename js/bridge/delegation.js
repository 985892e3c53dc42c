// A flag system's own tracker (LaunchDarkly's `LDMigrationTracker` shape), its methods looked
// up when they are called (src/js/delegation.rs): the measurements the core kept for it replayed
// onto it in one call, and the event it makes sent to its client.
import { Call, Check, ClientMethod, Settle, TrackerCall, TrackerField, TrackerMethod } from '../wasm/cutover.js';
import { present } from '../util.js';
import { operationNames, originNames, trackerMethods } from './stage.js';
import { record } from './record.js';
import { keepThrown, takeThrown } from './thrown.js';

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

/**
 * The measurements the core kept for `tracker` (the record: `TrackerField`) replayed in the
 * order they were made, each method in its own `try`; then, when `last`, its event made and sent.
 * @param {any} tracker
 * @param {any} client a weak reference (held.js)
 * @param {number} calls
 * @param {boolean} last
 * @returns {number} a `Settle`
 */
export function settleTracker(tracker, client, calls, last) {
  const r = record();
  /** @type {unknown[] | undefined} */
  let thrown;
  const attempt = (/** @type {number} */ method, /** @type {unknown} */ a, /** @type {unknown} */ b = undefined) => {
    try {
      tracker[trackerMethods[method]](a, b);
    } catch (error) {
      (thrown ??= []).push(method, error);
    }
  };
  const operation = r[TrackerField.Operation];
  if (present(operation)) attempt(TrackerMethod.Op, operationNames[operation]);
  for (let i = 0, at = TrackerField.FirstCall; i < calls; i++, at += TrackerCall.Slots) {
    const origin = originNames[r[at + TrackerCall.Origin]];
    attempt(TrackerMethod.Invoked, origin);
    const latency = r[at + TrackerCall.Latency];
    if (present(latency)) attempt(TrackerMethod.Latency, origin, latency);
    if (r[at + TrackerCall.Failed] === 1) attempt(TrackerMethod.Error, origin);
  }
  let settle = Settle.Done;
  if (last) {
    let event;
    try {
      event = tracker.createEvent() ?? undefined;
    } catch (error) {
      (thrown ??= []).push(TrackerMethod.CreateEvent, error);
    }
    if (event === undefined) settle |= Settle.NoEvent;
    else if (sendEvent(client.deref(), event) === Call.Threw) (thrown ??= []).push(ClientMethod.TrackMigrationOp, takeThrown());
  }
  if (thrown === undefined) return settle;
  keepThrown(thrown);
  return settle | Settle.Threw;
}
