// LaunchDarkly's server SDK: cutover's stores inside it, and its createMigration under its own
// names. The types are LaunchDarkly's shapes, restated so that cutover's types need none of the
// SDK's, and kept assignable to them both ways where a user mixes the two.
import type { Context, Logger, MeterLike, Origin, Stage } from './common.js';
import type { BigSegmentStore } from './big-segments.js';
import type { LDClientLike } from './clients.js';
import type { MigrationStats, OperationOptions } from './migrations.js';

/**
 * The Big Segment store LaunchDarkly's server SDK calls (the shape of its
 * `interfaces.BigSegmentStore`, described here so that cutover's types need none of the SDK's).
 */
export interface LaunchDarklyBigSegmentStore {
  /** `undefined` when the store has no metadata; `lastUpToDate` absent when it was never synchronized. */
  getMetadata(): Promise<{ lastUpToDate?: number } | undefined>;
  /** Segment ref (`key.gN`) → included (true) or excluded (false), frozen; `undefined`: no data. */
  getUserMembership(userHash: string): Promise<Readonly<Record<string, boolean>> | undefined>;
  /** Closes the wrapped store (its `close()`, when it has one) once; a failure is logged, never thrown. */
  close(): void;
}

/**
 * The value of `@launchdarkly/node-server-sdk`'s `bigSegments.store` option: a factory that the
 * SDK calls with its client context (whose logger reports a failing `close()`), over any cutover
 * store — `redisBigSegmentStore` on any client, `dynamoDbBigSegmentStore`, or a store written in
 * JavaScript. The store's methods are looked up at each call; a throw or rejection reaches the SDK
 * as a rejection (its status becomes `STORE_ERROR`). A `redisBigSegmentStore` or
 * `dynamoDbBigSegmentStore` is queried directly (its answers handed on without a copy): one Redis
 * round trip per membership query, where LaunchDarkly's own Redis store needs two. LaunchDarkly's SDK
 * bounds no store call, so the adapter does: a call slower than `queryTimeoutMs` (default 10000)
 * rejects with a `DOMException` named 'TimeoutError' (an evaluation's status is then `STORE_ERROR`).
 *
 * @throws TypeError when `store` lacks `getMetadata` or `getMembership` (or `getUserMembership`),
 *   TypeError / RangeError naming `queryTimeoutMs` when it is not a positive finite number.
 *
 * @example
 * ```ts
 * import { init } from '@launchdarkly/node-server-sdk';
 * import { createClient } from 'redis';
 * import { launchDarklyBigSegmentStore, redisBigSegmentStore, nodeRedisHost } from 'cutover';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const ldClient = init(process.env.LAUNCHDARKLY_SDK_KEY ?? '', {
 *   bigSegments: {
 *     store: launchDarklyBigSegmentStore(redisBigSegmentStore(nodeRedisHost(redis)), { queryTimeoutMs: 250 }),
 *   },
 * });
 * await ldClient.waitForInitialization({ timeout: 10 });
 * const detail = await ldClient.variationDetail('beta-ui', { kind: 'user', key: 'user-123' }, false);
 * // detail.reason.bigSegmentsStatus: 'HEALTHY' | 'STALE' | 'STORE_ERROR' | 'NOT_CONFIGURED'
 * ```
 */
export function launchDarklyBigSegmentStore(
  store: BigSegmentStore,
  options?: { queryTimeoutMs?: number },
): (clientContext: unknown) => LaunchDarklyBigSegmentStore;

/** LaunchDarkly's migration stages. */
export enum LDMigrationStage {
  /** Old only. */
  Off = 'off',
  /** Reads old; writes old, then new. */
  DualWrite = 'dualwrite',
  /** Reads both, returns old; writes old, then new. */
  Shadow = 'shadow',
  /** Reads both, returns new; writes new, then old. */
  Live = 'live',
  /** Reads new; writes new, then old. */
  RampDown = 'rampdown',
  /** New only. */
  Complete = 'complete',
}

/** Serial execution's order: `Fixed` runs old to completion, then new, at every stage; `Random` flips a coin per read. */
export enum LDExecutionOrdering {
  /** Old, then new. */
  Fixed = 0,
  /** A coin flip per read. */
  Random = 1,
}

/** The tag of an execution option; callers should not need it. */
export enum LDExecution {
  /** `LDSerialExecution`. */
  Serial = 0,
  /** `LDConcurrentExecution`. */
  Concurrent = 1,
}

/** One read origin to completion, then the other, in `ordering`. */
export class LDSerialExecution {
  /** Which origin runs first. */
  readonly ordering: LDExecutionOrdering;
  /** `LDExecution.Serial`. */
  readonly type: LDExecution;
  /** A serial execution in `ordering`. */
  constructor(ordering: LDExecutionOrdering);
}

/** Both read origins started together (the default execution). */
export class LDConcurrentExecution {
  /** `LDExecution.Concurrent`. */
  readonly type: LDExecution;
}

/** A method's success: `LDMigrationSuccess(result)`. */
export interface LDMethodSuccess<TResult> {
  /** True. */
  success: true;
  /** What the method produced. */
  result: TResult;
}

/** A method's failure: `LDMigrationError(error)`. */
export interface LDMethodFailure {
  /** False. */
  success: false;
  /** What the method failed with. */
  error: unknown;
}

/** What a migration method returns: build it with `LDMigrationSuccess` / `LDMigrationError`. */
export type LDMethodResult<TResult> = LDMethodSuccess<TResult> | LDMethodFailure;

/**
 * A successful method result.
 *
 * @example
 * ```ts
 * import { LDMigrationSuccess } from 'cutover';
 *
 * const readOld = async (id: string) => LDMigrationSuccess({ id, source: 'old' });
 * console.log((await readOld('u1')).result.source); // 'old'
 * ```
 */
export function LDMigrationSuccess<TResult>(result: TResult): LDMethodSuccess<TResult>;

/**
 * A failed method result.
 *
 * @example
 * ```ts
 * import { LDMigrationError, LDMigrationSuccess } from 'cutover';
 *
 * const readNew = async (id: string) => (id ? LDMigrationSuccess(id) : LDMigrationError(new Error('no id')));
 * console.log((await readNew('')).success); // false
 * ```
 */
export function LDMigrationError<TError extends Error>(error: TError): { success: false; error: TError };

/** An origin, under LaunchDarkly's name. */
export type LDMigrationOrigin = Origin;

/** One origin's result: `result` when `success`, else `error`. */
export type LDMigrationResult<TResult> =
  | {
      /** True. */
      success: true;
      /** The origin that produced it. */
      origin: LDMigrationOrigin;
      /** What the method produced. */
      result: TResult;
    }
  | {
      /** False. */
      success: false;
      /** The origin that failed. */
      origin: LDMigrationOrigin;
      /** What it failed with. */
      error: unknown;
    };

/** A read's result. */
export type LDMigrationReadResult<TResult> = LDMigrationResult<TResult>;

/** A write's results: `nonAuthoritative` is absent when the second write did not run (stage without one, or the first failed). */
export interface LDMigrationWriteResult<TResult> {
  /** The authoritative write. */
  authoritative: LDMigrationResult<TResult>;
  /** The second write. */
  nonAuthoritative?: LDMigrationResult<TResult>;
}

/**
 * LaunchDarkly's migration options, and cutover's extras (`originTimeoutMs`, `logger`, `meter`).
 * The four methods are looked up on the options object at every call (with it as `this`); they
 * also receive the origin's `AbortSignal`, which aborts on `originTimeoutMs` or the operation's
 * `signal`. A throw or rejection fails the origin with what was thrown. LaunchDarkly's own
 * `LDMigrationOptions` objects are accepted as they are; cutover's methods may also take their
 * payload as required (`async (id: string) => …`).
 */
export interface LDMigrationOptions<TMigrationRead, TMigrationWrite, TMigrationReadInput, TMigrationWriteInput> {
  /** Default `new LDConcurrentExecution()`. */
  execution?: LDSerialExecution | LDConcurrentExecution;
  /** Default true; false: no `latency_ms` measurement. */
  latencyTracking?: boolean;
  /** Default true; false: no `error` measurement. */
  errorTracking?: boolean;
  /** The new read. */
  readNew: (payload: TMigrationReadInput, signal: AbortSignal) => Promise<LDMethodResult<TMigrationRead>>;
  /** The new write. */
  writeNew: (payload: TMigrationWriteInput, signal: AbortSignal) => Promise<LDMethodResult<TMigrationWrite>>;
  /** The old read. */
  readOld: (payload: TMigrationReadInput, signal: AbortSignal) => Promise<LDMethodResult<TMigrationRead>>;
  /** The old write. */
  writeOld: (payload: TMigrationWriteInput, signal: AbortSignal) => Promise<LDMethodResult<TMigrationWrite>>;
  /** Consistency check of two successful reads (sampled by the flag's checkRatio); read once, at createMigration. */
  check?: (a: TMigrationRead, b: TMigrationRead) => boolean;
  /** cutover: an origin slower than this fails with a DOMException named 'TimeoutError' and its signal aborts. */
  originTimeoutMs?: number;
  /** cutover: where cutover's own warnings go. */
  logger?: Logger;
  /** cutover: OpenTelemetry metrics, as `MigratorBuilder#meter`. */
  meter?: MeterLike;
}

/**
 * LaunchDarkly's `LDMigration`, plus cutover's `{ signal }` per operation and `stats()`;
 * assignable to LaunchDarkly's own `LDMigration` of the same types. As in LaunchDarkly's, the
 * payload may be left out (the methods then receive `undefined`): code written against
 * LaunchDarkly's types compiles unchanged. `Migrator#read` and `#write` are stricter.
 */
export interface LDMigration<TMigrationRead, TMigrationWrite, TMigrationReadInput = unknown, TMigrationWriteInput = unknown> {
  /** Reads at the flag's stage for `context`. */
  read(
    key: string,
    context: Context,
    defaultValue: LDMigrationStage | Stage,
    payload?: TMigrationReadInput,
    options?: OperationOptions,
  ): Promise<LDMigrationReadResult<TMigrationRead>>;
  /** Writes at the flag's stage for `context`. */
  write(
    key: string,
    context: Context,
    defaultValue: LDMigrationStage | Stage,
    payload?: TMigrationWriteInput,
    options?: OperationOptions,
  ): Promise<LDMigrationWriteResult<TMigrationWrite>>;
  /** Running statistics, independent of event sampling. */
  stats(): MigrationStats;
}

/**
 * LaunchDarkly's `createMigration`, run by cutover: switch with one import line. The payload and
 * result types are inferred from the options (LaunchDarkly's defaults them to `any`).
 * Events go through `launchDarklyClient(ldClient)`, so LaunchDarkly's own tracker sends them.
 *
 * @throws TypeError naming the bad option (a method that is not a function, an unknown execution).
 * @example
 * ```ts
 * import { init } from '@launchdarkly/node-server-sdk';
 * import { createMigration, LDMigrationSuccess, LDSerialExecution, LDExecutionOrdering } from 'cutover';
 *
 * const ldClient = init(process.env.LD_SDK_KEY ?? '');
 * await ldClient.waitForInitialization({ timeout: 10 });
 * const migration = createMigration(ldClient, {
 *   readOld: async (key: string) => LDMigrationSuccess(`old:${key}`),
 *   readNew: async (key: string) => LDMigrationSuccess(`new:${key}`),
 *   writeOld: async (params: { key: string }) => LDMigrationSuccess(params),
 *   writeNew: async (params: { key: string }) => LDMigrationSuccess(params),
 *   check: (a, b) => a === b,
 *   execution: new LDSerialExecution(LDExecutionOrdering.Fixed),
 *   originTimeoutMs: 500, // cutover's
 * });
 * const result = await migration.read('migration-flag', { kind: 'user', key: 'u1' }, 'off', 'k1');
 * if (result.success) console.log(result.origin, result.result);
 * console.log(migration.stats().read.count);
 * ```
 */
export function createMigration<TMigrationRead, TMigrationWrite, TMigrationReadInput = unknown, TMigrationWriteInput = unknown>(
  client: LDClientLike,
  config: LDMigrationOptions<TMigrationRead, TMigrationWrite, TMigrationReadInput, TMigrationWriteInput>,
): LDMigration<TMigrationRead, TMigrationWrite, TMigrationReadInput, TMigrationWriteInput>;
