// beaconSink: a page's migration_op events sent home in batches (API.md §2c).

import type { MigrationOpEvent } from './events.js';

/** `beaconSink()`'s options. */
export interface BeaconSinkOptions {
  /** Events that make a batch: when this many wait, they are posted at once. Default 50. */
  maxBatch?: number;
  /**
   * Milliseconds a batch waits at most: a batch is posted this long after its first event came,
   * if `maxBatch` did not fill it first. Default 5000; at most 2147483647 (setTimeout's bound).
   */
  flushIntervalMs?: number;
}

/** What a {@link BeaconSink} did so far: its errors are data, never thrown or rejected. */
export interface BeaconSinkStats {
  /** Events in the batch that has not been posted yet. */
  waiting: number;
  /** Events in bodies the collector answered with a 2xx, or that `sendBeacon` queued. */
  sent: number;
  /** Events in bodies whose fetch rejected or was answered with another status. */
  failed: number;
  /**
   * Events never posted: given after `close()`, that JSON cannot write, too large for one body, or
   * in the oldest waiting body when 100 already waited behind the one in flight.
   */
  dropped: number;
  /** The last failure: the fetch's rejection, an `Error` naming the status, or why an event was dropped. */
  lastError: unknown;
}

/**
 * A sink of `migration_op` events: a function to pass as a client's `trackMigrationOp` (or a
 * browser client's `events`), with `flush()`, `close()` and `stats()`.
 */
export interface BeaconSink {
  /** Adds an event to the batch, as its JSON is now (the object is not read again). */
  (event: MigrationOpEvent): void;
  /** Posts what waits; resolves once every body posted so far has been answered. Never rejects. */
  flush(): Promise<void>;
  /**
   * Posts what waits (a keepalive fetch, which outlives the page), then stops: its timer and its
   * page listeners are removed, and events given later are dropped (counted in `stats().dropped`).
   */
  close(): void;
  /** The sink's counts and its last failure. */
  stats(): BeaconSinkStats;
}

/**
 * Batches a page's events and posts each batch to `url` as one JSON array, for
 * {@link migrationEventRelay} (or any collector) to take home.
 *
 * - A batch is posted with `fetch(url, { method: 'POST', keepalive: true })` (content type
 *   `application/json`) when `maxBatch` events wait, `flushIntervalMs` after its first event,
 *   or on `flush()`/`close()`. One body is in flight at a time.
 * - When the page is hidden (`visibilitychange` to `hidden`) or left (`pagehide`), what waits,
 *   and every body not yet started, goes at once with `navigator.sendBeacon(url, blob)`; where
 *   `sendBeacon` is missing or refuses, with a keepalive fetch. Nothing waits for a page that is
 *   going away. (Browsers bound what a page may have in flight as it goes: 64 KiB of beacons and
 *   keepalive bodies in Chromium. A body past that bound fails, and is counted as failed.)
 * - Each body is under 64 KiB of UTF-8 (keepalive's bound): a larger batch is split into
 *   several bodies, in order; an event that cannot fit alone is dropped and counted.
 * - Failures (a fetch that rejects, a status other than 2xx) never throw or reject: they are
 *   counted in `stats()`, with the last one kept. Nothing is retried.
 * - In Node, Deno and workers (no `document`) there are no page listeners, and the timer does
 *   not keep the process alive: `flush()` or `close()` before the process ends.
 *
 * @throws TypeError when `url` is not a non-empty string or a `URL`, `options` is not an object
 * or names an unknown option, or an option is not a number.
 * @throws RangeError when `maxBatch` or `flushIntervalMs` is not an integer in its range.
 * @example
 * ```ts
 * const events = beaconSink('/migration-events', { maxBatch: 20 });
 * const migrator = new MigratorBuilder({ ...flagClient, trackMigrationOp: events })
 *   .read(searchOld, searchNew)
 *   .write(saveOld, saveNew)
 *   .build();
 * ```
 */
export function beaconSink(url: string | URL, options?: BeaconSinkOptions): BeaconSink;
