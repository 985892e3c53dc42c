// LaunchDarkly's server SDK: cutover's stores inside it, and its createMigration under its own
// names. The types are LaunchDarkly's shapes, restated so that cutover's types need none of the
// SDK's, and kept assignable to them both ways where a user mixes the two.
import type { Context, Logger, MeterLike, Origin, Stage } from './common.js';
import type { BigSegmentStore } from './big-segments.js';
import type { LDClientLike } from './clients.js';
import type { BackgroundOptions, GuardOptions, GuardStatus, MigrationStats, OperationOptions } from './migrations.js';

/** The Big Segment store LaunchDarkly's server SDK calls (its `interfaces.BigSegmentStore`). */
export interface LaunchDarklyBigSegmentStore {
  /** `undefined` when the store has no metadata; `lastUpToDate` absent when it was never synchronized. */
  getMetadata(): Promise<{ lastUpToDate?: number } | undefined>;
  /** Segment ref (`key.gN`) → included (true) or excluded (false), frozen; `undefined`: no data. */
  getUserMembership(userHash: string): Promise<Readonly<Record<string, boolean>> | undefined>;
  /** Closes the wrapped store once; a failure is logged, never thrown. */
  close(): void;
}

/**
 * `@launchdarkly/node-server-sdk`'s `bigSegments.store` option over any cutover store; a call
 * slower than `queryTimeoutMs` (default 10000) rejects with a 'TimeoutError'.
 *
 * @throws TypeError / RangeError naming a bad `store` or `queryTimeoutMs`.
 * @example
 * ```ts
 * const ldClient = init(sdkKey, { bigSegments: { store: launchDarklyBigSegmentStore(redisBigSegmentStore(nodeRedisHost(redis))) } });
 * ```
 */
export function launchDarklyBigSegmentStore(
  store: BigSegmentStore,
  options?: { queryTimeoutMs?: number },
): (clientContext: unknown) => LaunchDarklyBigSegmentStore;

/** LaunchDarkly's migration stages. */
export enum LDMigrationStage {
  Off = 'off',
  DualWrite = 'dualwrite',
  Shadow = 'shadow',
  Live = 'live',
  RampDown = 'rampdown',
  Complete = 'complete',
}

/** Serial execution's order: `Fixed` runs old, then new; `Random` flips a coin per read. */
export enum LDExecutionOrdering {
  Fixed = 0,
  Random = 1,
}

/** The tag of an execution option; callers should not need it. */
export enum LDExecution {
  Serial = 0,
  Concurrent = 1,
}

/** One read origin to completion, then the other, in `ordering`. */
export class LDSerialExecution {
  readonly ordering: LDExecutionOrdering;
  readonly type: LDExecution;
  constructor(ordering: LDExecutionOrdering);
}

/** Both read origins started together (the default execution). */
export class LDConcurrentExecution {
  readonly type: LDExecution;
}

/** A method's success: `LDMigrationSuccess(result)`. */
export interface LDMethodSuccess<TResult> {
  success: true;
  result: TResult;
}

/** A method's failure: `LDMigrationError(error)`. */
export interface LDMethodFailure {
  success: false;
  error: unknown;
}

/** What a migration method returns: build it with `LDMigrationSuccess` / `LDMigrationError`. */
export type LDMethodResult<TResult> = LDMethodSuccess<TResult> | LDMethodFailure;

/**
 * A successful method result.
 * @example
 * ```ts
 * const readOld = async (id: string) => LDMigrationSuccess({ id });
 * ```
 */
export function LDMigrationSuccess<TResult>(result: TResult): LDMethodSuccess<TResult>;

/**
 * A failed method result.
 * @example
 * ```ts
 * const readNew = async (id: string) => (id ? LDMigrationSuccess(id) : LDMigrationError(new Error('no id')));
 * ```
 */
export function LDMigrationError<TError extends Error>(error: TError): { success: false; error: TError };

/** An origin, under LaunchDarkly's name. */
export type LDMigrationOrigin = Origin;

/** One origin's result: `result` when `success`, else `error`. */
export type LDMigrationResult<TResult> =
  | {
      success: true;
      origin: LDMigrationOrigin;
      result: TResult;
    }
  | {
      success: false;
      origin: LDMigrationOrigin;
      error: unknown;
    };

/** A read's result. */
export type LDMigrationReadResult<TResult> = LDMigrationResult<TResult>;

/** A write's results: `nonAuthoritative` is absent when the second write did not run (stage without one, or the first failed). */
export interface LDMigrationWriteResult<TResult> {
  authoritative: LDMigrationResult<TResult>;
  nonAuthoritative?: LDMigrationResult<TResult>;
}

/** LaunchDarkly's migration options (theirs fit as they are) and cutover's; methods also get a signal. */
export interface LDMigrationOptions<TMigrationRead, TMigrationWrite, TMigrationReadInput, TMigrationWriteInput> {
  /** Default `new LDConcurrentExecution()`. */
  execution?: LDSerialExecution | LDConcurrentExecution;
  /** Default true; false: no `latency_ms` measurement. */
  latencyTracking?: boolean;
  /** Default true; false: no `error` measurement. */
  errorTracking?: boolean;
  /** Reads from the new origin; receives the payload. */
  readNew: (payload: TMigrationReadInput, signal: AbortSignal) => Promise<LDMethodResult<TMigrationRead>>;
  /** Writes to the new origin; receives the payload. */
  writeNew: (payload: TMigrationWriteInput, signal: AbortSignal) => Promise<LDMethodResult<TMigrationWrite>>;
  /** Reads from the old origin; receives the payload. */
  readOld: (payload: TMigrationReadInput, signal: AbortSignal) => Promise<LDMethodResult<TMigrationRead>>;
  /** Writes to the old origin; receives the payload. */
  writeOld: (payload: TMigrationWriteInput, signal: AbortSignal) => Promise<LDMethodResult<TMigrationWrite>>;
  /** Consistency check of two successful reads (sampled by the flag's checkRatio); read once, at createMigration. */
  check?: (a: TMigrationRead, b: TMigrationRead) => boolean;
  /** cutover: an origin slower than this fails with a DOMException named 'TimeoutError' and its signal aborts. */
  originTimeoutMs?: number;
  /** cutover: where cutover's own warnings go. */
  logger?: Logger;
  /** cutover: OpenTelemetry metrics, as `MigratorBuilder#meter`. */
  meter?: MeterLike;
  /** cutover: background mode, as `MigratorBuilder#background` (`true`: its defaults). */
  background?: boolean | BackgroundOptions;
  /** cutover: guardrails, as `MigratorBuilder#guard` (`true`: its defaults). */
  guard?: boolean | GuardOptions;
}

/**
 * LaunchDarkly's `LDMigration` (assignable to it), plus `{ signal }` and `stats()`. As in
 * LaunchDarkly's, a payload may be left out (the methods then get `undefined`).
 */
export interface LDMigration<TMigrationRead, TMigrationWrite, TMigrationReadInput = unknown, TMigrationWriteInput = unknown> {
  /** Reads at the flag's stage; resolves to the authoritative origin's result. */
  read(
    key: string,
    context: Context,
    defaultValue: LDMigrationStage | Stage,
    payload?: TMigrationReadInput,
    options?: OperationOptions,
  ): Promise<LDMigrationReadResult<TMigrationRead>>;
  /** Writes at the flag's stage: the authoritative origin, then the other if it succeeded. */
  write(
    key: string,
    context: Context,
    defaultValue: LDMigrationStage | Stage,
    payload?: TMigrationWriteInput,
    options?: OperationOptions,
  ): Promise<LDMigrationWriteResult<TMigrationWrite>>;
  /** Running statistics, independent of event sampling. */
  stats(): MigrationStats;
  /** Resolves when every background part started before the call has ended. */
  settled(): Promise<void>;
  /** The guard of `key` (`guard` option; closed without it). */
  guard(key: string): GuardStatus;
}

/**
 * LaunchDarkly's `createMigration`, run by cutover (its events made by LaunchDarkly's tracker);
 * payload and result types are inferred from the options.
 *
 * @throws TypeError naming the bad option.
 * @example
 * ```ts
 * const migration = createMigration(ldClient, {
 *   readOld: async (id: string) => LDMigrationSuccess(`old:${id}`),
 *   readNew: async (id: string) => LDMigrationSuccess(`new:${id}`),
 *   writeOld: async (row: Row) => LDMigrationSuccess(row),
 *   writeNew: async (row: Row) => LDMigrationSuccess(row),
 *   originTimeoutMs: 500, // cutover's
 * });
 * const result = await migration.read('migration-flag', { kind: 'user', key: 'u1' }, 'off', 'id-1');
 * ```
 */
export function createMigration<TMigrationRead, TMigrationWrite, TMigrationReadInput = unknown, TMigrationWriteInput = unknown>(
  client: LDClientLike,
  config: LDMigrationOptions<TMigrationRead, TMigrationWrite, TMigrationReadInput, TMigrationWriteInput>,
): LDMigration<TMigrationRead, TMigrationWrite, TMigrationReadInput, TMigrationWriteInput>;
