// A measurement into an OpenTelemetry instrument, its method looked up now (src/js/meter.rs).
import { Call } from '../wasm/cutover.js';
import { keepThrown } from './thrown.js';

/**
 * @param {any} instrument
 * @param {boolean} histogram
 * @param {number} value
 * @param {unknown} attributes
 * @returns {number} a `Call`
 */
export function recordMetric(instrument, histogram, value, attributes) {
  try {
    if (histogram) instrument.record(value, attributes);
    else instrument.add(value, attributes);
    return Call.Done;
  } catch (error) {
    keepThrown(error);
    return Call.Threw;
  }
}
