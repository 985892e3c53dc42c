// launchDarklyBrowserClient(ldClient, options): LaunchDarkly's browser SDK
// (@launchdarkly/js-client-sdk 4.x) as a MigrationClient. That SDK has no migration methods, so
// this adapter only converts:
// - the stage is the SDK's evaluation detail, variationDetail(flagKey, defaultStage), handed to
//   the core as any client's answer: `value`, `variationIndex` (the SDK's null as absent) and
//   `reason` as served. The core decides the rest (SPEC A7: a value that is not a stage runs the
//   default stage with reason WRONG_TYPE; a missing flag is the SDK's own FLAG_NOT_FOUND detail
//   whose value is the default).
// - The SDK evaluates for the one context it has identified; it cannot evaluate another. The
//   `context` of each read/write is not compared with it: it is the context the event names (the
//   core puts the caller's object there), so pages pass ldClient.getContext() or the object they
//   identified with.
// - The detail carries no flag version and no migration settings, so the event has no `version`
//   and the ratios are this adapter's options (samplingRatio, checkRatio; 1 when absent), checked
//   here once, as the other adapters check their plain options. A `consistent` measurement
//   always carries its ratio, 1 too: LaunchDarkly's trackMigration, which the relay forwards
//   these events to, drops one without it.
// - Events go to options.events, read at each event (live, as every caller's object is). With no
//   function there, trackMigrationOp is absent and the core builds no event (dropped, not queued).
//   A throwing events callback is caught and logged by the core (`trackMigrationOp threw: …`, at
//   error level through the builder's logger), never thrown into read()/write().
import { OptionsOf, checkOptionNames } from './wasm/cutover.js';
import { boundForLaunchDarkly } from './migration.js';
import { describe, isObject, read } from './util.js';

const WHO = 'launchDarklyBrowserClient';

/** A ratio option: 1 when absent, else a whole number ≥ 0 (LaunchDarkly's rule for its flags' ratios). */
function ratio(opts, name) {
  const value = read(opts, name);
  if (value === undefined) return 1;
  if (typeof value !== 'number') throw new TypeError(`${WHO}: options.${name} must be a number, ${describe(value)}`);
  if (!(Number.isSafeInteger(value) && value >= 0)) {
    throw new RangeError(`${WHO}: options.${name} must be a whole number ≥ 0 (1 in N; 0: never), ${describe(value)}`);
  }
  return value + 0; // -0 is 0
}

/** The core's answer for a detail: a new object, so that the ratios can be added. */
function answerOf(detail, samplingRatio, checkRatio) {
  if (!isObject(detail)) return undefined; // not an answer: the default stage, WRONG_TYPE (SPEC A7.4)
  const variationIndex = read(detail, 'variationIndex');
  return {
    value: read(detail, 'value'),
    variationIndex: variationIndex === null ? undefined : variationIndex,
    reason: read(detail, 'reason'),
    samplingRatio,
    checkRatio,
  };
}

/** Adapts a LaunchDarkly browser SDK client (`variationDetail`) as a MigrationClient. */
export function launchDarklyBrowserClient(ldClient, options) {
  if (!isObject(ldClient) || typeof read(ldClient, 'variationDetail') !== 'function') {
    throw new TypeError(`${WHO}: ldClient must have a variationDetail method, ${describe(ldClient)}`);
  }
  if (options !== undefined && !isObject(options)) {
    throw new TypeError(`${WHO}: options must be an object, ${describe(options)}`);
  }
  const opts = options ?? {};
  checkOptionNames(OptionsOf.LaunchDarklyBrowserClient, opts);
  const events = () => read(opts, 'events');
  const given = events();
  if (given !== undefined && typeof given !== 'function') {
    throw new TypeError(`${WHO}: options.events must be a function, ${describe(given)}`);
  }
  const samplingRatio = ratio(opts, 'samplingRatio');
  const consistencyRatio = ratio(opts, 'checkRatio');
  const send = (event) => {
    const callback = events();
    if (typeof callback === 'function') callback(event);
  };
  // Its events are bound for LaunchDarkly (through migrationEventRelay and trackMigration), so a
  // check ratio of 1 is written too, as launchDarklyClient's are.
  return boundForLaunchDarkly(Object.freeze({
    migrationVariation(flagKey, _context, defaultStage) {
      // Looked up at each call: a client whose method is replaced later is used as it is then.
      return answerOf(ldClient.variationDetail(flagKey, defaultStage), samplingRatio, consistencyRatio);
    },
    // A getter: the core looks trackMigrationOp up at each operation, and builds an event only
    // when it is a function, that is when options.events is one at that moment.
    get trackMigrationOp() {
      return typeof events() === 'function' ? send : undefined;
    },
  }));
}
