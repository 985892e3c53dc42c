// migrationEventRelay: the server half of beaconSink, which forwards a page's events to
// LaunchDarkly (API.md §2c).

/** `migrationEventRelay()`'s options. */
export interface MigrationEventRelayOptions {
  /** When given, the only flag keys whose events are forwarded (copied when the relay is made). */
  flagKeys?: readonly string[];
  /** Largest body read, in bytes: a longer one answers 413 (Content-Length checked first, then counted as read). Default 65536. */
  maxBodyBytes?: number;
  /** Most events in one request: more answer 413, and none is forwarded. Default 100. */
  maxEvents?: number;
}

/** The body of a 400 answer: how many events were forwarded, and which were not, why. */
export interface MigrationEventRelayRejection {
  accepted: number;
  rejected: Array<{ index: number; reason: string }>;
}

/** The client the relay forwards to: LaunchDarkly's server SDK client, or anything with its `trackMigration`. */
export interface MigrationEventTarget {
  /** Takes one `migration_op` event, the object the relay parsed from the body; may throw (that event is then rejected). */
  trackMigration(event: object): void;
}

/**
 * A fetch-style handler (`Request` → `Response`) that takes the JSON arrays of `migration_op`
 * events {@link beaconSink} posts and forwards each valid one with
 * `ldClient.trackMigration(event)`, the very object parsed from the body, so that
 * LaunchDarkly's own migration views show a page's migrations.
 *
 * Answers:
 * - 204: every event was forwarded (an empty array too);
 * - 400 with {@link MigrationEventRelayRejection}: some were not (the others were); a body that
 *   is not JSON, not UTF-8 or not an array answers `{ accepted: 0, rejected: [] }`;
 * - 405 (with `Allow: POST`) to another method; 415 to a content type other than
 *   `application/json`; 413 to a body over `maxBodyBytes` (reading stops there) or more than
 *   `maxEvents` events;
 * - 500 only if the relay itself fails. It never throws and its promise never rejects.
 *
 * Which events are forwarded is decided by cutover's core: exactly the wire format's fields and
 * types (`kind` `'migration_op'`, an `operation`, an integer `creationDate`, a context LaunchDarkly
 * accepts with a `key` per kind, an `evaluation` whose `value` and `default` are stages,
 * the measurement keys with values of their types, latencies finite and ≥ 0); no string or key
 * over 1,024 UTF-16 code units, no key `__proto__`, nothing nested deeper than 10 levels; the
 * flag key in `flagKeys` when given; and nothing LaunchDarkly's `trackMigration` would drop or
 * change, so that what arrives is what the page sent: `evaluation.reason` is required, a
 * `consistent` measurement needs its `samplingRatio`, and a top-level `samplingRatio` must be 1
 * or absent (the SDK samples a forwarded event again by it). Each refusal's `reason` names the
 * place (`measurements[1].samplingRatio: is missing …`). A `trackMigration` that throws, or is
 * no longer a function, rejects its event with a reason; the method is looked up at each call.
 *
 * The relay adds no CORS headers: mount it on the page's origin, or add them in your router.
 *
 * @throws TypeError when `ldClient` has no `trackMigration` method, `options` is not an object or
 * names an unknown option, `flagKeys` is not an array of non-empty strings, or a size is not a number.
 * @throws RangeError when `maxBodyBytes` or `maxEvents` is not an integer of at least 1.
 * @example
 * ```ts
 * const relay = migrationEventRelay(ldClient, { flagKeys: ['search-backend'] });
 * const response = await relay(request); // in any fetch-style router
 * ```
 */
export function migrationEventRelay(
  ldClient: MigrationEventTarget,
  options?: MigrationEventRelayOptions,
): (request: Request) => Promise<Response>;
