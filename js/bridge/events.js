// cutover's own `migration_op` event (SPEC A6), built in one call from the numbers the core laid
// out in the record (`EventField`, src/js/event.rs) with the caller's own context object.
import { EventField } from '../wasm/cutover.js';
import { flags, present } from '../util.js';
import { operationNames, stageNames } from './stage.js';
import { record } from './record.js';
import { sendEvent } from './delegation.js';

/**
 * @param {unknown} context
 * @param {unknown} key
 * @param {unknown} reason
 * @returns {unknown}
 */
export function buildEvent(context, key, reason) {
  const r = record();
  // Field order is the wire order (SPEC A6); the core decided which fields are present.
  /** @type {Record<string, unknown>} */
  const evaluation = { key, value: stageNames[r[EventField.Value]], default: stageNames[r[EventField.Default]] };
  if (reason !== undefined) evaluation.reason = reason;
  const variation = r[EventField.Variation];
  if (present(variation)) evaluation.variation = variation;
  const version = r[EventField.Version];
  if (present(version)) evaluation.version = version;
  /** @type {Record<string, unknown>} */
  const event = {
    kind: 'migration_op',
    creationDate: r[EventField.CreationDate],
    operation: operationNames[r[EventField.Operation]],
    context,
    evaluation,
  };
  const samplingRatio = r[EventField.SamplingRatio];
  if (present(samplingRatio)) event.samplingRatio = samplingRatio;
  const measurements = [];
  const invoked = r[EventField.Invoked];
  if (invoked) measurements.push({ key: 'invoked', values: flags(invoked) });
  const consistent = r[EventField.Consistent];
  if (present(consistent)) {
    /** @type {Record<string, unknown>} */
    const m = { key: 'consistent', value: consistent === 1 };
    const checkRatio = r[EventField.CheckRatio];
    if (present(checkRatio)) m.samplingRatio = checkRatio;
    measurements.push(m);
  }
  const latencyOld = r[EventField.LatencyOld];
  const latencyNew = r[EventField.LatencyNew];
  if (present(latencyOld) || present(latencyNew)) {
    /** @type {Record<string, number>} */
    const values = {};
    if (present(latencyOld)) values.old = latencyOld;
    if (present(latencyNew)) values.new = latencyNew;
    measurements.push({ key: 'latency_ms', values });
  }
  const errors = r[EventField.Errors];
  if (errors) measurements.push({ key: 'error', values: flags(errors) });
  event.measurements = measurements;
  return event;
}

/**
 * @param {any} client
 * @param {unknown} context
 * @param {unknown} key
 * @param {unknown} reason
 * @returns {number} a `Call`
 */
export function ownEvent(client, context, key, reason) {
  return sendEvent(client.deref(), buildEvent(context, key, reason)); // a weak reference (held.js)
}
