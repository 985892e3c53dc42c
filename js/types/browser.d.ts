// LaunchDarkly's browser SDK as a MigrationClient.
import type { MigrationOpEvent } from './events.js';
import type { MigrationClient } from './migrations.js';

/** An evaluation detail as LaunchDarkly's browser SDK returns it (its `LDEvaluationDetail`). */
export interface LDBrowserEvaluationDetail {
  value: unknown;
  variationIndex?: number | null | undefined;
  /** Present when the client asks for reasons (`withReasons: true`, or bootstrap data with reasons). */
  reason?: { kind: string } | null | undefined;
}

/** What `launchDarklyBrowserClient` uses of a LaunchDarkly browser SDK client (its `LDClient` is one). */
export interface LDBrowserClientLike {
  /** Evaluates a flag for the client's identified context. */
  variationDetail(key: string, defaultValue?: unknown): LDBrowserEvaluationDetail;
}

/** The options of `launchDarklyBrowserClient` (docs/EDGE.md). */
export interface LaunchDarklyBrowserClientOptions {
  /** Receives each sampled event; read at each operation. Absent: no event is made. A throw is logged. */
  events?: ((event: MigrationOpEvent) => void) | undefined;
  /** 1-in-N event sampling, a whole number ≥ 0 (default 1; 0 never). Keep 1 for events relayed to LaunchDarkly, which samples again. */
  samplingRatio?: number | undefined;
  /** 1-in-N consistency checks of reads, a whole number ≥ 0 (default 1; 0 never). */
  checkRatio?: number | undefined;
}

/**
 * Adapts LaunchDarkly's browser SDK (`@launchdarkly/js-client-sdk` 4.x) as a MigrationClient: the
 * stage is `ldClient.variationDetail(flagKey, defaultStage)` for the identified context, its value,
 * variation index and reason kept in the event. The event names the `context` passed to
 * `read()`/`write()`: pass `ldClient.getContext()`.
 *
 * @throws TypeError when `ldClient` has no `variationDetail` or an option is of the wrong type or
 *   unknown; RangeError when a ratio is not a whole number ≥ 0.
 * @example
 * ```ts
 * const migrator = new MigratorBuilder(launchDarklyBrowserClient(ldClient, { events: beaconSink('/migration-events') })).read(rOld, rNew).write(wOld, wNew).build();
 * ```
 */
export function launchDarklyBrowserClient(ldClient: LDBrowserClientLike, options?: LaunchDarklyBrowserClientOptions): MigrationClient;
