// OpenTelemetry: a Meter's instruments, created from the core's table (src/metrics/instrument.rs:
// names, kinds, units, descriptions, bucket advice). cutover takes no dependency on
// OpenTelemetry: any object with createCounter/createHistogram (and createObservableGauge for
// Big Segments) will do. The wasm records into them (src/js/meter.rs).
import * as wasm from './wasm/cutover.js';
import { describe } from './util.js';

let tables;
export const MIGRATION = 0;
export const BIG_SEGMENTS = 1;

function tablesOf() {
  tables ??= JSON.parse(wasm.instrumentTables());
  return tables;
}

/** Where `group`'s observable gauge (the Big Segments status) stands in its instruments. */
export function gaugeSlot(group) {
  return tablesOf()[group].findIndex(({ kind }) => kind === 'ObservableGauge');
}

/**
 * The instruments of `group` made by `meter`, in table order; `what` names the argument. The
 * migrations' gauge (the guard's state) is left out, undefined, by a meter that makes no
 * observable gauges; Big Segments need theirs.
 */
export function instrumentsOf(meter, group, what) {
  if (meter === null || typeof meter !== 'object') {
    throw new TypeError(`${what} must be an OpenTelemetry Meter, ${describe(meter)}`);
  }
  return tablesOf()[group].map(({ name, kind, ...options }) => {
    const create = meter[`create${kind}`];
    if (group === MIGRATION && kind === 'ObservableGauge' && typeof create !== 'function') return undefined;
    if (typeof create !== 'function') {
      throw new TypeError(`${what}.create${kind} must be a function, ${describe(create)}`);
    }
    const instrument = create.call(meter, name, options);
    if (instrument === null || typeof instrument !== 'object') {
      throw new TypeError(`${what}.create${kind}('${name}') must return an instrument, ${describe(instrument)}`);
    }
    return instrument;
  });
}
