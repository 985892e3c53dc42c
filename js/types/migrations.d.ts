// Migrations: the flag client, origins, results, the builder and the migrator.
import type { Context, ExecutionOrder, Logger, MeterLike, Operation, Origin, Stage } from './common.js';
import type { MigrationOpEvent, OpTracker } from './events.js';

/** The flag system's own tracker (LaunchDarkly's `LDMigrationTracker` shape). */
export interface ExternalTracker {
  /** Records the operation. */
  op(operation: Operation): void;
  /** Records that an origin ran. */
  invoked(origin: Origin): void;
  /** Records an origin's duration in ms. */
  latency(origin: Origin, ms: number): void;
  /** Records that an origin failed. */
  error(origin: Origin): void;
  /** Decides whether to sample a consistency check, and runs `check` when it does. */
  consistency(check: () => boolean): void;
  /** The operation's event, for `trackMigrationOp` (undefined: none). */
  createEvent(): object | undefined;
}

/** What the flag system says about the migration flag for one context. */
export interface StageEvaluation {
  /** The served value; cutover validates it as a Stage. */
  value: unknown;
  /** The served variation's index. */
  variationIndex?: number;
  /** Why the value was served (`{ kind: 'FALLTHROUGH' }`, …). */
  reason?: { kind: string; [detail: string]: unknown };
  /** The flag's version. */
  flagVersion?: number;
  /** 1-in-N consistency sampling (the flag's `migration.checkRatio`). */
  checkRatio?: number;
  /** 1-in-N event sampling (the flag's `samplingRatio`). */
  samplingRatio?: number;
  /** The flag system's own tracker: it then records every measurement and makes the event. */
  tracker?: ExternalTracker;
}

/**
 * Any flag system. A plain string answer means `{ value: thatString }`. Both methods are looked
 * up on the object at every operation (a stub installed later takes effect), called with the
 * object as `this`, in the async context of the operation's caller; `context` is the caller's
 * own object.
 */
export interface MigrationClient {
  /** The migration flag's stage for `context` (`defaultStage` when the flag has none). */
  migrationVariation(
    flagKey: string,
    context: Context,
    defaultStage: Stage,
  ): Promise<StageEvaluation | string> | StageEvaluation | string;
  /** Receives each sampled `migration_op` event, synchronously. */
  trackMigrationOp?(event: MigrationOpEvent): void;
}

/** The value `failure(error)` returns: an origin result that counts as a failure. */
export interface Failure {
  /** What the origin failed with. */
  readonly error: unknown;
}

/**
 * An origin: gets the operation's payload and a signal that aborts on `originTimeout` or the
 * caller's abort; returns (or resolves to) its value; throws, rejects or returns `failure(e)` to
 * fail. Whatever `Failure` it returns is not part of its value type.
 */
export type OriginFn<TPayload, TValue> = (payload: TPayload, signal: AbortSignal) => Promise<TValue | Failure> | TValue | Failure;

/**
 * `TDeclared` when a builder was given it as an explicit type argument, else `TInferred` (what
 * the origins say): a builder whose type arguments were left out (`unknown`) infers them.
 */
export type DeclaredOrInferred<TDeclared, TInferred> = unknown extends TDeclared ? TInferred : TDeclared;

/**
 * The value an origin that returns `TResult` produces: awaited, without the `Failure` it may
 * return (`async (id) => row ?? failure(e)` produces the row's type).
 */
export type OriginValue<TResult> = WithoutFailure<Awaited<TResult>>;

/** `T` without its `Failure` members (only `Failure` itself, not every object with an `error`). */
export type WithoutFailure<T> = T extends Failure ? (Failure extends T ? never : T) : T;

/**
 * An origin as `read()` and `write()` take it: with a declared value type, an `OriginFn` of the
 * declared types; else any function of the payload, its value inferred from what it returns.
 */
export type OriginArgument<TDeclaredPayload, TPayload, TDeclaredValue, TResult> = unknown extends TDeclaredValue
  ? (payload: DeclaredOrInferred<TDeclaredPayload, TPayload>, signal: AbortSignal) => TResult
  : OriginFn<DeclaredOrInferred<TDeclaredPayload, TPayload>, TDeclaredValue>;

/** The value type of an operation: the declared one, else what its origins produce. */
export type OperationValue<TDeclaredValue, TResult> = unknown extends TDeclaredValue ? OriginValue<TResult> : TDeclaredValue;

/** An origin's success: `value` is what it returned. */
export interface OperationSuccess<T> {
  /** The origin whose result this is. */
  origin: Origin;
  /** True: the origin succeeded. */
  success: true;
  /** What the origin returned or resolved to. */
  value: T;
  /** Absent on a success. */
  error?: undefined;
}

/** An origin's failure: `error` is what it threw, rejected with or passed to `failure()`. */
export interface OperationFailure {
  /** The origin whose result this is. */
  origin: Origin;
  /** False: the origin failed. */
  success: false;
  /** What the origin failed with (a `DOMException` named 'TimeoutError' on `originTimeout`). */
  error: unknown;
  /** Absent on a failure. */
  value?: undefined;
}

/** One origin's result: narrow it with `if (result.success)` to reach `value`. */
export type OperationResult<T> = OperationSuccess<T> | OperationFailure;

/**
 * A write's results. The second (non-authoritative) write runs only when the authoritative one
 * succeeded, so `if (w.nonAuthoritative)` also narrows `w.authoritative` to a success.
 */
export type WriteResult<T> =
  | {
      /** The authoritative write, which failed. */
      authoritative: OperationFailure;
      /** Absent: the second write does not run after a failed first one. */
      nonAuthoritative?: undefined;
    }
  | {
      /** The authoritative write, which succeeded. */
      authoritative: OperationSuccess<T>;
      /** Absent when the stage has no second write. */
      nonAuthoritative?: OperationResult<T>;
    };

/** Per-operation options. */
export interface OperationOptions {
  /** Aborting rejects the operation with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * The arguments after `defaultStage`: the payload, required when its type does not include
 * `undefined`, then the options.
 */
export type PayloadArguments<TPayload> = undefined extends TPayload
  ? [payload?: TPayload, options?: OperationOptions]
  : [payload: TPayload, options?: OperationOptions];

/** Latency statistics of one origin, in ms. */
export interface LatencyStats {
  /** Timed calls. */
  count: number;
  /** Mean. */
  mean: number;
  /** Median. */
  p50: number;
  /** 90th percentile. */
  p90: number;
  /** 99th percentile. */
  p99: number;
  /** Maximum. */
  max: number;
}

/** Statistics of one origin. */
export interface OriginStats {
  /** Calls. */
  invoked: number;
  /** Failures, timeouts included. */
  errors: number;
  /** Timeouts. */
  timeouts: number;
  /** `null` when never timed. */
  latencyMs: LatencyStats | null;
}

/** Statistics of one operation kind. */
export interface OperationStats {
  /** Operations completed (aborted ones excluded). */
  count: number;
  /** Operations by the stage they ran. */
  byStage: Partial<Record<Stage, number>>;
  /** The old origin's statistics. */
  old: OriginStats;
  /** The new origin's statistics. */
  new: OriginStats;
  /** Reads only; writes stay 0. */
  consistency: { checked: number; consistent: number };
}

/** A migrator's running statistics. */
export interface MigrationStats {
  /** Reads. */
  read: OperationStats;
  /** Writes. */
  write: OperationStats;
}

/** Runs reads and writes at the stage the flag serves; made by `MigratorBuilder#build()`. */
export interface Migrator<TReadPayload = unknown, TRead = unknown, TWritePayload = unknown, TWrite = unknown> {
  /**
   * Reads at the flag's stage for `context`; `payload` goes to the origins. Never rejects because
   * an origin failed (that is a result); rejects on misuse (a TypeError) and on abort.
   */
  read(flagKey: string, context: Context, defaultStage: Stage, ...payloadAndOptions: PayloadArguments<TReadPayload>): Promise<OperationResult<TRead>>;
  /** Writes at the flag's stage for `context`: the authoritative origin first, the other after it succeeded. */
  write(flagKey: string, context: Context, defaultStage: Stage, ...payloadAndOptions: PayloadArguments<TWritePayload>): Promise<WriteResult<TWrite>>;
  /** Running statistics, independent of event sampling: a fresh plain object. */
  stats(): MigrationStats;
  /** Sets the statistics back to zero. */
  resetStats(): void;
}

/**
 * Configures a migrator. `read()` and `write()` infer the payload and value types from the
 * origins (annotate a payload parameter once: `async (id: string) => …`); type arguments given
 * explicitly (`new MigratorBuilder<string, Row>(client)`) are kept and the origins checked
 * against them.
 *
 * @typeParam TReadPayload - What `read()` passes to the read origins.
 * @typeParam TRead - What the read origins return.
 * @typeParam TWritePayload - What `write()` passes to the write origins.
 * @typeParam TWrite - What the write origins return.
 */
export class MigratorBuilder<TReadPayload = unknown, TRead = unknown, TWritePayload = unknown, TWrite = unknown> {
  /** A builder over a flag client (`fixedStage('shadow')`, `launchDarklyClient(ldClient)`, …). */
  constructor(client: MigrationClient, options?: { logger?: Logger });
  /** Default 'parallel'. */
  readExecutionOrder(order: ExecutionOrder): this;
  /** Default true. */
  trackLatency(enabled: boolean): this;
  /** Default true. */
  trackErrors(enabled: boolean): this;
  /** An origin slower than `ms` fails with a DOMException named 'TimeoutError' and its signal aborts. */
  originTimeout(ms: number): this;
  /**
   * Records `cutover.migration.operations`, `.origin.duration` (s), `.origin.errors`, `.origin.timeouts`,
   * `.consistency.checks` and `.consistency.mismatches` with an OpenTelemetry Meter.
   */
  meter(meter: MeterLike): this;
  /**
   * The read origins and the consistency check; replaces any earlier read configuration. The
   * read's value type is what either origin returns; the check gets the old value, then the new.
   */
  read<TPayload = unknown, TOldResult = unknown, TNewResult = unknown>(
    oldFn: OriginArgument<TReadPayload, TPayload, TRead, TOldResult>,
    newFn: OriginArgument<TReadPayload, TPayload, TRead, TNewResult>,
    comparison?: (oldValue: OperationValue<TRead, TOldResult>, newValue: OperationValue<TRead, TNewResult>) => boolean,
  ): MigratorBuilder<DeclaredOrInferred<TReadPayload, TPayload>, OperationValue<TRead, TOldResult | TNewResult>, TWritePayload, TWrite>;
  /** The write origins; replaces any earlier write configuration. */
  write<TPayload = unknown, TOldResult = unknown, TNewResult = unknown>(
    oldFn: OriginArgument<TWritePayload, TPayload, TWrite, TOldResult>,
    newFn: OriginArgument<TWritePayload, TPayload, TWrite, TNewResult>,
  ): MigratorBuilder<TReadPayload, TRead, DeclaredOrInferred<TWritePayload, TPayload>, OperationValue<TWrite, TOldResult | TNewResult>>;
  /**
   * A migrator of the configuration so far; may be called many times (independent migrators).
   * @throws MigratorConfigError 'read configuration not provided' / 'write configuration not provided'
   */
  build(): Migrator<TReadPayload, TRead, TWritePayload, TWrite>;
}

/** Thrown by `MigratorBuilder#build()` when the read or write configuration is missing. */
export class MigratorConfigError extends Error {
  /** Always 'MigratorConfigError'. */
  name: 'MigratorConfigError';
}

/**
 * Evaluates a migration flag as a migrator does: the stage to run and the tracker to record into
 * (the answer's own tracker, else a fresh `OpTracker`).
 *
 * @example
 * ```ts
 * import { fixedStage, migrationVariation } from 'cutover';
 *
 * const { stage, tracker } = await migrationVariation(fixedStage('live'), 'flag', { key: 'u1' }, 'off');
 * console.log(stage, typeof tracker.invoked); // 'live' 'function'
 * ```
 */
export function migrationVariation(
  client: MigrationClient,
  flagKey: string,
  context: Context,
  defaultStage: Stage,
): Promise<{ stage: Stage; tracker: OpTracker | ExternalTracker }>;

/**
 * Makes an origin fail without throwing.
 *
 * @example
 * ```ts
 * import { failure } from 'cutover';
 *
 * const find = async (id: string) => (id === 'u1' ? { id } : failure(new Error(`no row ${id}`)));
 * console.log(await find('u2'));
 * ```
 */
export function failure(error: unknown): Failure;

/**
 * A client whose every flag serves `stage`; events go nowhere.
 *
 * @throws TypeError when `stage` is not a Stage.
 * @example
 * ```ts
 * import { MigratorBuilder, fixedStage } from 'cutover';
 *
 * const migrator = new MigratorBuilder(fixedStage('shadow'))
 *   .read(async (id: string) => id.length, async (id: string) => id.length)
 *   .write(async (n: number) => n, async (n: number) => n)
 *   .build();
 * console.log((await migrator.read('flag', { key: 'u1' }, 'off', 'abc')).origin); // 'old'
 * ```
 */
export function fixedStage(stage: Stage): MigrationClient;
