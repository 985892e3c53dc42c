// cutover's own `migration_op` event (SPEC A6): built by `eventOf` (event_format.js, generated
// from the wire format's tables) from the numbers the core laid out in the record
// (src/js/event.rs), with the caller's own context object.
import { eventOf } from './event_format.js';
import { record } from './record.js';
import { sendEvent } from './delegation.js';

/**
 * @param {unknown} context
 * @param {unknown} key
 * @param {unknown} reason
 * @returns {unknown}
 */
export function buildEvent(context, key, reason) {
  return eventOf(record(), context, key, reason);
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
