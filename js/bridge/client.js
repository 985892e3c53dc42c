// A flag client's answer, classified as an `Answer` (src/js/codes.rs) in the call that asks
// for it: a stage name by its code, an object by its fields (written into the record, then
// `answerFields`), a promise reported to slot `id` when it settles (src/js/client.rs).
import { Answer, AnswerField, answered, answerFields, deliver } from '../wasm/cutover.js';
import { isObject, number, promiseOf, read, when } from '../util.js';
import { stageCodes, trackerMethods } from './stage.js';
import { record } from './record.js';
import { keepThrown } from './thrown.js';

/**
 * @param {unknown} value
 * @returns {number}
 */
export function stage(value) {
  return stageCodes.get(value) ?? Answer.NotAStage;
}

/** The `TrackerMethod` of the first tracker method that is not a function; NaN: none. */
function firstMissing(tracker) {
  if (typeof tracker !== 'object' && typeof tracker !== 'function') return 0;
  for (let i = 0; i < trackerMethods.length; i++) {
    if (typeof read(tracker, trackerMethods[i]) !== 'function') return i;
  }
  return NaN;
}

/** The tracker methods (`TrackerMethod` order) the unrolled check below reads. */
let methods, m0, m1, m2, m3, m4, m5;

/**
 * Classifies an evaluation object the caller built, as `askClient` does an answer.
 * @param {unknown} answer
 * @param {number} id
 * @returns {number}
 */
export function readAnswer(answer, id) {
  return sendFields(answer, id, NaN);
}

/**
 * An answer object's fields into the record, then `answerFields(id, reason, tracker)`;
 * `settles` is the `Answer` code to settle slot `id` with (NaN: the answer came synchronously).
 */
function sendFields(answer, id, settles) {
  // All fields in one try (the usual answer is a plain object); when one read throws, each
  // is read again on its own and a throwing one is absent.
  let value, reason, tracker, variation, version, checkRatio, samplingRatio;
  try {
    ({ value, reason, tracker, variationIndex: variation, flagVersion: version, checkRatio, samplingRatio } =
      /** @type {any} */ (answer));
  } catch {
    value = read(answer, 'value');
    reason = read(answer, 'reason');
    tracker = read(answer, 'tracker');
    variation = read(answer, 'variationIndex');
    version = read(answer, 'flagVersion');
    checkRatio = read(answer, 'checkRatio');
    samplingRatio = read(answer, 'samplingRatio');
  }
  let missing = NaN;
  if (tracker != null) {
    if (methods !== trackerMethods) [m0, m1, m2, m3, m4, m5] = methods = trackerMethods;
    try {
      // Unrolled over the wasm's list: each read site always sees the same name.
      missing =
        typeof tracker[m0] !== 'function' ? 0
        : typeof tracker[m1] !== 'function' ? 1
        : typeof tracker[m2] !== 'function' ? 2
        : typeof tracker[m3] !== 'function' ? 3
        : typeof tracker[m4] !== 'function' ? 4
        : typeof tracker[m5] !== 'function' ? 5
        : NaN;
    } catch {
      missing = firstMissing(tracker);
    }
  }
  const hasReason = isObject(reason);
  const r = record();
  r[AnswerField.Stage] = typeof value === 'string' ? stage(value) : Answer.NotAStage;
  r[AnswerField.Variation] = number(variation);
  r[AnswerField.Version] = number(version);
  r[AnswerField.CheckRatio] = number(checkRatio);
  r[AnswerField.SamplingRatio] = number(samplingRatio);
  r[AnswerField.HasReason] = hasReason ? 1 : 0;
  r[AnswerField.HasTracker] = tracker != null ? 1 : 0;
  r[AnswerField.MissingMethod] = missing;
  r[AnswerField.Settles] = settles;
  answerFields(id, hasReason ? reason : undefined, tracker ?? undefined);
  return Answer.Object;
}

function classify(answer, id) {
  if (typeof answer === 'string') return stage(answer);
  return isObject(answer) ? sendFields(answer, id, NaN) : Answer.NotAStage;
}

/**
 * @param {any} client
 * @param {unknown} flagKey
 * @param {unknown} context
 * @param {unknown} defaultStage
 * @param {number} id
 * @returns {number}
 */
export function askClient(client, flagKey, context, defaultStage, id) {
  const target = client.deref(); // a weak reference (held.js)
  let answer;
  let threw = false;
  try {
    answer = target.migrationVariation(flagKey, context, defaultStage);
  } catch (error) {
    keepThrown(error);
    threw = true;
  }
  const takes = typeof read(target, 'trackMigrationOp') === 'function' ? Answer.TakesEvents : 0;
  if (threw) return Answer.Threw | takes;
  if (typeof answer === 'string') return stage(answer) | takes;
  const promise = promiseOf(answer);
  if (promise === undefined) return classify(answer, id) | takes;
  when(
    promise,
    (result) => {
      // An object answer's fields and the settlement cross in one call.
      if (typeof result !== 'string' && isObject(result)) sendFields(result, id, Answer.Object | takes);
      else answered(id, classify(result, id) | takes);
    },
    (error) => deliver(id, false, error),
  );
  return Answer.Pending;
}

/**
 * Whether the client has a `trackMigrationOp` method now (a weak reference, as for `askClient`).
 * @param {any} client
 * @returns {boolean}
 */
export function takesEvents(client) {
  return typeof read(client.deref(), 'trackMigrationOp') === 'function';
}
