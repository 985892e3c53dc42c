// Flag clients: LaunchDarkly's server SDK and OpenFeature as MigrationClients.
import type { Context, Operation, Stage } from './common.js';
import type { MigrationClient, StageEvaluation } from './migrations.js';

/**
 * The parts of a LaunchDarkly server SDK client that migrations use; `@launchdarkly/node-server-sdk`'s
 * `LDClient` is one.
 */
export interface LDClientLike {
  /** The migration flag's stage and LaunchDarkly's tracker (`LDMigrationVariation`). */
  migrationVariation(key: string, context: Context, defaultValue: Stage): Promise<StageEvaluation>;
  /** Sends the event LaunchDarkly's tracker made (`LDMigrationOpEvent`). */
  trackMigration(event: object): void;
}

/**
 * Adapts a LaunchDarkly server SDK client: its own tracker and events carry cutover's measurements.
 *
 * @throws TypeError when `ldClient` lacks `migrationVariation` or `trackMigration`.
 * @example
 * ```ts
 * import { MigratorBuilder, launchDarklyClient, type LDClientLike } from 'cutover';
 *
 * declare const ldClient: LDClientLike; // init(sdkKey) of @launchdarkly/node-server-sdk
 * export const migrator = new MigratorBuilder(launchDarklyClient(ldClient))
 *   .read(async (id: string) => ({ id }), async (id: string) => ({ id }))
 *   .write(async (id: string) => id, async (id: string) => id)
 *   .build();
 * ```
 */
export function launchDarklyClient(ldClient: LDClientLike): MigrationClient;

/** The parts of an OpenFeature flag evaluation's details that `openFeatureClient` reads. */
export interface OpenFeatureDetailsLike {
  /** The served value: the stage. */
  value: unknown;
  /** The variant: the variation index, when it is an integer. */
  variant?: string | undefined;
  /** The reason. */
  reason?: string | undefined;
  /** The error code of a failed evaluation. */
  errorCode?: string | undefined;
  /** `version`, `checkRatio` and `samplingRatio` are read from it. */
  flagMetadata?: Readonly<Record<string, string | number | boolean>> | undefined;
}

/** What `openFeatureClient` uses of an OpenFeature client (server SDK, or web SDK). */
export interface OpenFeatureClientLike {
  /** Evaluates the migration flag (with cutover's context on the server; the web SDK has its own). */
  getStringDetails(flagKey: string, defaultValue: string, context?: object): PromiseLike<OpenFeatureDetailsLike> | OpenFeatureDetailsLike;
  /** Reports a sampled operation (server: with its context, web: details only). */
  track?(trackingEventName: string, contextOrDetails?: object, details?: object): void;
}

/** The flat details of `client.track('migration_op', context, details)`. */
export interface OpenFeatureMigrationDetails {
  /** The flag key. */
  flagKey: string;
  /** The stage that ran. */
  stage: Stage;
  /** The operation. */
  operation: Operation;
  /** The variation index. */
  variationIndex?: number;
  /** The flag version. */
  flagVersion?: number;
  /** Whether the old origin ran. */
  invokedOld: boolean;
  /** Whether the new origin ran. */
  invokedNew: boolean;
  /** The old origin's duration in ms. */
  latencyOldMs?: number;
  /** The new origin's duration in ms. */
  latencyNewMs?: number;
  /** Whether the old origin failed. */
  errorOld?: boolean;
  /** Whether the new origin failed. */
  errorNew?: boolean;
  /** The consistency check's outcome. */
  consistent?: boolean;
  /** The consistency check's 1-in-N sampling. */
  checkRatio?: number;
  /** 1 when the flag has none. */
  samplingRatio: number;
}

/**
 * An OpenFeature client as a MigrationClient: the stage from `getStringDetails` (errors: SPEC A7);
 * `variant` → variation index, `reason`/`errorCode` → reason, `flagMetadata` version/checkRatio/
 * samplingRatio; `key` → `targetingKey` (OpenFeature contexts pass as they are). Sampled operations
 * call `client.track('migration_op', context, OpenFeatureMigrationDetails)`; web SDK: its static
 * context, `track('migration_op', details)`. LaunchDarkly's provider: its LD client, via
 * launchDarklyClient. `options.provider`: the client's provider (else its private `_provider`).
 *
 * @throws TypeError when `client` has no getStringDetails, or `options.provider` is not an object.
 * @example
 * ```ts
 * import { MigratorBuilder, openFeatureClient, type OpenFeatureClientLike } from 'cutover';
 *
 * declare const client: OpenFeatureClientLike; // OpenFeature.getClient()
 * export const migrator = new MigratorBuilder(openFeatureClient(client))
 *   .read(async (id: string) => id, async (id: string) => id)
 *   .write(async (id: string) => id, async (id: string) => id)
 *   .build();
 * export const read = migrator.read('flag', { targetingKey: 'u1' }, 'off', 'id-1');
 * ```
 */
export function openFeatureClient(client: OpenFeatureClientLike, options?: { provider?: object }): MigrationClient;
