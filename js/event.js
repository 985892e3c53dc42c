// The `migration_op` event as cutover's own tracker sends it (SPEC A6): built in one call from
// the fields the core decided (src/js/event.rs, own_event), with the caller's context object.
import { flags, present } from './util.js';

export function buildEvent(creationDate, operation, context, key, value, dflt, reason, variation, version, samplingRatio,
  invoked, consistent, checkRatio, latencyOld, latencyNew, errors) {
  // Field order is the wire order (SPEC A6); the core decided which fields are present.
  const evaluation = { key, value, default: dflt };
  if (reason !== undefined) evaluation.reason = reason;
  if (present(variation)) evaluation.variation = variation;
  if (present(version)) evaluation.version = version;
  const event = { kind: 'migration_op', creationDate, operation, context, evaluation };
  if (present(samplingRatio)) event.samplingRatio = samplingRatio;
  const measurements = [];
  if (invoked) measurements.push({ key: 'invoked', values: flags(invoked) });
  if (consistent >= 0) {
    const m = { key: 'consistent', value: consistent === 1 };
    if (present(checkRatio)) m.samplingRatio = checkRatio;
    measurements.push(m);
  }
  if (present(latencyOld) || present(latencyNew)) {
    const values = {};
    if (present(latencyOld)) values.old = latencyOld;
    if (present(latencyNew)) values.new = latencyNew;
    measurements.push({ key: 'latency_ms', values });
  }
  if (errors) measurements.push({ key: 'error', values: flags(errors) });
  event.measurements = measurements;
  return event;
}
