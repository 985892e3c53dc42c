// Flag clients: LaunchDarkly's server SDK and OpenFeature as MigrationClients.
import type { Context, Operation, Stage } from './common.js';
import type { MigrationClient, StageEvaluation } from './migrations.js';

/** What migrations use of a LaunchDarkly server SDK client (its `LDClient` is one). */
export interface LDClientLike {
  /** Evaluates the migration flag: its stage and LaunchDarkly's tracker. */
  migrationVariation(key: string, context: Context, defaultValue: Stage): Promise<StageEvaluation>;
  /** Sends a `migration_op` event made by LaunchDarkly's tracker. */
  trackMigration(event: object): void;
}

/**
 * Adapts a LaunchDarkly server SDK client: its own tracker and events carry cutover's measurements.
 *
 * @throws TypeError when `ldClient` lacks `migrationVariation` or `trackMigration`.
 * @example
 * ```ts
 * const migrator = new MigratorBuilder(launchDarklyClient(ldClient)).read(rOld, rNew).write(wOld, wNew).build();
 * ```
 */
export function launchDarklyClient(ldClient: LDClientLike): MigrationClient;

/** The parts of an OpenFeature flag evaluation's details that `openFeatureClient` reads. */
export interface OpenFeatureDetailsLike {
  value: unknown;
  variant?: string | undefined;
  reason?: string | undefined;
  errorCode?: string | undefined;
  flagMetadata?: Readonly<Record<string, string | number | boolean>> | undefined;
}

/** What `openFeatureClient` uses of an OpenFeature client (server SDK, or web SDK). */
export interface OpenFeatureClientLike {
  /** Evaluates the migration flag (with cutover's context on the server; the web SDK has its own). */
  getStringDetails(flagKey: string, defaultValue: string, context?: object): PromiseLike<OpenFeatureDetailsLike> | OpenFeatureDetailsLike;
  /** Receives each sampled operation as `track('migration_op', …)` (context first on the server). */
  track?(trackingEventName: string, contextOrDetails?: object, details?: object): void;
}

/** The flat details of `client.track('migration_op', context, details)`. */
export interface OpenFeatureMigrationDetails {
  flagKey: string;
  stage: Stage;
  operation: Operation;
  variationIndex?: number;
  flagVersion?: number;
  invokedOld: boolean;
  invokedNew: boolean;
  latencyOldMs?: number;
  latencyNewMs?: number;
  errorOld?: boolean;
  errorNew?: boolean;
  consistent?: boolean;
  checkRatio?: number;
  /** 1 when the flag has none. */
  samplingRatio: number;
}

/**
 * An OpenFeature client (server or web SDK) as a MigrationClient: the stage from
 * `getStringDetails`, sampled operations to `track('migration_op', …)` (docs/OPENFEATURE.md).
 *
 * @throws TypeError when `client` has no getStringDetails, or `options.provider` is not an object.
 * @example
 * ```ts
 * const migrator = new MigratorBuilder(openFeatureClient(OpenFeature.getClient())).read(rOld, rNew).write(wOld, wNew).build();
 * ```
 */
export function openFeatureClient(client: OpenFeatureClientLike, options?: { provider?: object }): MigrationClient;
