// LaunchDarkly's browser SDK as a MigrationClient.
import type { MigrationOpEvent } from './events.js';
import type { MigrationClient } from './migrations.js';

/** An evaluation detail as LaunchDarkly's browser SDK returns it (its `LDEvaluationDetail`). */
export interface LDBrowserEvaluationDetail {
  /** The served value, or the default when the flag is missing. */
  value: unknown;
  /** The served variation's index; `null` (or absent) when the default was served. */
  variationIndex?: number | null | undefined;
  /** Why this value was served: in the flag data when the client asks for reasons (`withReasons: true`, or `$flagsState` in bootstrap data); `{ kind: 'ERROR', errorKind: 'FLAG_NOT_FOUND' }` for a missing flag. */
  reason?: { kind: string } | null | undefined;
}

/** What `launchDarklyBrowserClient` uses of a LaunchDarkly browser SDK client (its `LDClient` is one). */
export interface LDBrowserClientLike {
  /** Evaluates a flag for the client's identified context. */
  variationDetail(key: string, defaultValue?: unknown): LDBrowserEvaluationDetail;
}

/** The options of `launchDarklyBrowserClient`. */
export interface LaunchDarklyBrowserClientOptions {
  /**
   * Receives each sampled `migration_op` event, synchronously (`beaconSink(url)` sends them home;
   * a relay can forward them to LaunchDarkly). Read at each operation. When it is absent, no
   * event is made: events are dropped. A throw is logged at error level through the migrator's
   * logger and never reaches `read()`/`write()`.
   */
  events?: ((event: MigrationOpEvent) => void) | undefined;
  /**
   * 1-in-N event sampling for every flag read through this client: a whole number ≥ 0, 1 (every
   * operation) when absent, 0 never. The browser SDK serves no migration settings, so the page
   * gives it. Kept in each event's `samplingRatio`. Keep 1 for events forwarded to LaunchDarkly
   * (`migrationEventRelay`): its SDK samples each event again by that ratio.
   */
  samplingRatio?: number | undefined;
  /**
   * 1-in-N consistency-check sampling of reads (the flag's `checkRatio` on the server): a whole
   * number ≥ 0, 1 when absent, 0 never. The `consistent` measurement always carries it, 1 too, as
   * LaunchDarkly's `trackMigration` requires.
   */
  checkRatio?: number | undefined;
}

/**
 * Adapts LaunchDarkly's browser SDK (`@launchdarkly/js-client-sdk` 4.x), which has no migration
 * methods, as a MigrationClient.
 *
 * The stage is `ldClient.variationDetail(flagKey, defaultStage)`, that is the flag's value for
 * the context the client has identified, with its variation index and reason kept in the event
 * (the browser SDK gives no flag version). The `context` passed to `read()`/`write()` is the one
 * the event names, and is not compared with the identified one: pass `ldClient.getContext()`.
 * A flag that is missing, or whose value is not a stage, runs `defaultStage`.
 *
 * @throws TypeError when `ldClient` has no `variationDetail`, when `options` is not an object or
 *   has an unknown key, or when `options.events` is not a function; RangeError (TypeError when
 *   not a number) when a ratio is not a whole number ≥ 0.
 * @example
 * ```ts
 * const client = launchDarklyBrowserClient(ldClient, { events: beaconSink('/migration-events') });
 * const migrator = new MigratorBuilder(client).read(oldSearch, newSearch).write(oldSave, newSave).build();
 * const result = await migrator.read('search-migration', ldClient.getContext(), 'off', query);
 * ```
 */
export function launchDarklyBrowserClient(ldClient: LDBrowserClientLike, options?: LaunchDarklyBrowserClientOptions): MigrationClient;
