// Migrations: the flag client, origins, results, the builder and the migrator.
import type { Context, ExecutionOrder, Logger, MeterLike, Operation, Origin, Stage } from './common.js';
import type { MigrationOpEvent, OpTracker } from './events.js';

/** The flag system's own tracker (LaunchDarkly's `LDMigrationTracker` shape). */
export interface ExternalTracker {
  /** Records the operation's kind. */
  op(operation: Operation): void;
  /** Records that `origin` ran. */
  invoked(origin: Origin): void;
  /** Records how long `origin` took, in ms. */
  latency(origin: Origin, ms: number): void;
  /** Records that `origin` failed. */
  error(origin: Origin): void;
  /** Runs `check` if the tracker samples it, and records its answer. */
  consistency(check: () => boolean): void;
  /** The operation's event, sent to `trackMigrationOp`; undefined when there is none. */
  createEvent(): object | undefined;
}

/** What the flag system says about the migration flag for one context. */
export interface StageEvaluation {
  /** The served value; cutover validates it as a Stage. */
  value: unknown;
  variationIndex?: number;
  reason?: { kind: string; [detail: string]: unknown };
  flagVersion?: number;
  /** 1-in-N consistency sampling (the flag's `migration.checkRatio`). */
  checkRatio?: number;
  /** 1-in-N event sampling (the flag's `samplingRatio`). */
  samplingRatio?: number;
  /** The flag system's tracker: it then records the measurements and makes the event. */
  tracker?: ExternalTracker;
}

/**
 * Any flag system; a string answer means `{ value }`. Its methods are looked up at every
 * operation and called in the caller's async context, with the caller's own context object.
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
  readonly error: unknown;
}

/**
 * An origin: gets the payload and a signal (aborted on `originTimeout` or the caller's abort);
 * returns or resolves to its value; throws, rejects or returns `failure(e)` to fail.
 */
export type OriginFn<TPayload, TValue> = (payload: TPayload, signal: AbortSignal) => Promise<TValue | Failure> | TValue | Failure;

/** `TDeclared` when given as a type argument, else (left out: `unknown`) `TInferred`. */
export type DeclaredOrInferred<TDeclared, TInferred> = unknown extends TDeclared ? TInferred : TDeclared;

/** What an origin returning `TResult` produces: awaited, without `Failure` (not any `{ error }`). */
export type OriginValue<TResult> = Awaited<TResult> extends infer T ? (T extends Failure ? (Failure extends T ? never : T) : T) : never;

/** An origin as `read()`/`write()` take it: an `OriginFn` of declared types, else any function. */
export type OriginArgument<TDeclaredPayload, TPayload, TDeclaredValue, TResult> = unknown extends TDeclaredValue
  ? (payload: DeclaredOrInferred<TDeclaredPayload, TPayload>, signal: AbortSignal) => TResult
  : OriginFn<DeclaredOrInferred<TDeclaredPayload, TPayload>, TDeclaredValue>;

/** An operation's value type: the declared one, else what its origins produce. */
export type OperationValue<TDeclaredValue, TResult> = unknown extends TDeclaredValue ? OriginValue<TResult> : TDeclaredValue;

/** An origin's success: `value` is what it returned. */
export interface OperationSuccess<T> {
  origin: Origin;
  success: true;
  value: T;
  error?: undefined;
}

/** An origin's failure: `error` is what it threw, rejected with or passed to `failure()`. */
export interface OperationFailure {
  origin: Origin;
  success: false;
  /** What the origin failed with (a `DOMException` named 'TimeoutError' on `originTimeout`). */
  error: unknown;
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
      authoritative: OperationFailure;
      /** Absent: the second write does not run after a failed first one. */
      nonAuthoritative?: undefined;
    }
  | {
      authoritative: OperationSuccess<T>;
      /** Absent when the stage has no second write. */
      nonAuthoritative?: OperationResult<T>;
    };

/** Per-operation options. */
export interface OperationOptions {
  /** Aborting rejects the operation with the signal's reason, until the operation resolves. */
  signal?: AbortSignal;
  /**
   * Background mode: given the promise of this operation's background part, once, before the
   * operation resolves (Cloudflare: `(p) => ctx.waitUntil(p)`). Overrides `background()`'s.
   */
  waitUntil?: (promise: Promise<void>) => void;
}

/** One difference of a mismatch. */
export interface Difference {
  /** A JSON Pointer: `''` is the root; `~` and `/` in keys as `~0` and `~1`. */
  path: string;
  kind: 'changed' | 'added' | 'removed' | 'type';
  /** The old value there (the caller's reference); absent for `added`. */
  old?: unknown;
  /** The new value there (the caller's reference); absent for `removed`. */
  new?: unknown;
}

/** A consistency check whose comparison returned `false`, explained. */
export interface Mismatch {
  flagKey: string;
  stage: Stage;
  /** The caller's context object. */
  context: Context;
  /** When, in epoch milliseconds. */
  at: number;
  /** The compared values, by reference. */
  old: unknown;
  new: unknown;
  /** In document order, at most `maxDifferences`. */
  differences: Difference[];
  /** More differences than were listed. */
  truncated: boolean;
}

/** `MigratorBuilder#mismatches()`'s options. */
export interface MismatchOptions {
  /** How many mismatches to keep, the last ones: default 20, at most 1000; 0 keeps none (paths are still counted). */
  keep?: number;
  /** The most differences listed per mismatch: default 16. */
  maxDifferences?: number;
  /** Called with each mismatch, in the caller's async context; a throw is logged. */
  onMismatch?: (mismatch: Mismatch) => void;
}

/** `MigratorBuilder#background()`'s options. */
export interface BackgroundOptions {
  /** At most this many background parts at once; later operations run their authoritative origin only (shed). Default 100. */
  maxInFlight?: number;
  /** Given each background part's promise, which resolves (never rejects) when the part has ended. */
  waitUntil?: (promise: Promise<void>) => void;
}

/** A guard's state: `closed` (the stage's plan), `tripped` (the old origin authoritative), `probing` (1 read in `probeRatio` tries the new one). */
export type GuardState = 'closed' | 'tripped' | 'probing';

/** What a guard's window held when it changed. */
export interface GuardWindow {
  newCalls: number;
  newErrors: number;
  /** p99 of each origin over the operations where both ran, in ms; `null` without `maxLatencyRatio` or such operations. */
  oldP99: number | null;
  newP99: number | null;
  checked: number;
  inconsistent: number;
}

/** One change of a flag key's guard, as `onChange` and the log report it. */
export interface GuardChange {
  flagKey: string;
  from: GuardState;
  to: GuardState;
  /** The bound and its figure: `'error rate 0.31 > 0.1 over 164 calls'`, `'10 consecutive errors'`. */
  reason: string;
  /** Epoch ms. */
  at: number;
  window: GuardWindow;
}

/** A flag key's guard as `Migrator#guard()` and `stats().guard.flags` show it. */
export interface GuardStatus {
  state: GuardState;
  /** Epoch ms: when it entered this state. */
  since: number;
  /** Why it did; `null` before its first change. */
  reason: string | null;
}

/** `MigratorBuilder#guard()`'s options: a circuit breaker on the new origin, per flag key. */
export interface GuardOptions {
  /** The new origin's failures ÷ its calls in the window: default 0.1, in (0, 1]. */
  maxErrorRate?: number;
  /** This many new-origin failures in a row trip it at any count: default 10. */
  maxConsecutiveErrors?: number;
  /** New p99 ÷ old p99 over the window's operations where both ran; > 1. Not judged by default. */
  maxLatencyRatio?: number;
  /** Inconsistent ÷ checked reads in the window; in (0, 1]. Not judged by default. */
  maxInconsistency?: number;
  /** The sliding window, ms: default 60000. */
  windowMs?: number;
  /** No rate decision on fewer new-origin calls in the window: default 100. */
  minCalls?: number;
  /** How long a trip lasts before probing, ms: default 30000. */
  cooldownMs?: number;
  /** While probing, 1 read in this many also calls the new origin: default 10. */
  probeRatio?: number;
  /** Told of every change, in the caller's async context; a throw is logged. */
  onChange?: (change: GuardChange) => void;
}

/** `stats().guard`. */
export interface GuardStats {
  /** Changes to `tripped`. */
  trips: number;
  /** Changes from `probing` to `closed`. */
  recoveries: number;
  /** Operations whose origins the guard changed from the stage's plan. */
  fallbacks: { read: number; write: number };
  /** Each flag key kept (at most 100, the least recently used dropped first). */
  flags: Record<string, GuardStatus>;
}

/** After `defaultStage`: the payload (required unless it may be `undefined`), the options. */
export type PayloadArguments<TPayload> = undefined extends TPayload
  ? [payload?: TPayload, options?: OperationOptions]
  : [payload: TPayload, options?: OperationOptions];

/** Latency statistics of one origin, in ms. */
export interface LatencyStats {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Statistics of one origin. */
export interface OriginStats {
  invoked: number;
  /** Failures, timeouts included. */
  errors: number;
  timeouts: number;
  /** `null` when never timed. */
  latencyMs: LatencyStats | null;
}

/** Statistics of one operation kind. */
export interface OperationStats {
  /** Operations completed (aborted ones excluded). */
  count: number;
  byStage: Partial<Record<Stage, number>>;
  old: OriginStats;
  new: OriginStats;
  /**
   * Reads only; writes stay 0. `paths`: with `mismatches()`, how many mismatches had a difference
   * at each normalised path (array indices as `*`), at most 32 paths, then `_OTHER`; `{}` otherwise.
   */
  consistency: { checked: number; consistent: number; paths: Record<string, number> };
  /** Background mode: operations that ran their authoritative origin only (`maxInFlight` reached). */
  shed: number;
}

/** A migrator's running statistics. */
export interface MigrationStats {
  read: OperationStats;
  write: OperationStats;
  /** `null` without `guard()`. */
  guard: GuardStats | null;
}

/** Runs reads and writes at the stage the flag serves; made by `MigratorBuilder#build()`. */
export interface Migrator<TReadPayload = unknown, TRead = unknown, TWritePayload = unknown, TWrite = unknown> {
  /** Reads at the flag's stage; an origin's failure is a result (rejects on misuse and abort). */
  read(flagKey: string, context: Context, defaultStage: Stage, ...payloadAndOptions: PayloadArguments<TReadPayload>): Promise<OperationResult<TRead>>;
  /** Writes at the flag's stage: the authoritative origin, then the other if it succeeded. */
  write(flagKey: string, context: Context, defaultStage: Stage, ...payloadAndOptions: PayloadArguments<TWritePayload>): Promise<WriteResult<TWrite>>;
  /** Running statistics, independent of event sampling: a fresh plain object. */
  stats(): MigrationStats;
  /** Sets every running statistic back to zero. */
  resetStats(): void;
  /** Resolves when every background part started before the call has ended (at once when none). */
  settled(): Promise<void>;
  /** The kept mismatches (`mismatches()`), oldest first: a fresh array. */
  mismatches(): Mismatch[];
  /** The guard of `flagKey` (closed for a key never seen, or without `guard()`). */
  guard(flagKey: string): GuardStatus;
}

/**
 * Configures a migrator. `read()` and `write()` infer the payload and value types from the
 * origins (annotate a payload once: `async (id: string) => …`); explicit type arguments are kept,
 * and the origins checked against them.
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
  /** Records the `cutover.migration.*` metrics with an OpenTelemetry Meter. */
  meter(meter: MeterLike): this;
  /**
   * Background mode: a read or write resolves as soon as its authoritative origin has settled;
   * the other origin, the comparison, the statistics and the one event follow in the background.
   */
  background(options?: BackgroundOptions): this;
  /**
   * Explains every mismatch with the structural walk of `sameStructure` (with its `ignore` when
   * the comparison is one), keeps the last ones and counts the paths they differ at.
   */
  mismatches(options?: MismatchOptions): this;
  /**
   * A circuit breaker on the new origin, per flag key: when it fails (or is slow, or
   * inconsistent) beyond a bound, the old origin is authoritative until a cooldown has passed
   * and probing found the new one healthy again.
   */
  guard(options?: GuardOptions): this;
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
  name: 'MigratorConfigError';
}

/**
 * Evaluates a migration flag as a migrator does: the stage, and the tracker to record into (the
 * answer's own, else an `OpTracker`).
 * @example
 * ```ts
 * const { stage, tracker } = await migrationVariation(client, 'flag', { key: 'u1' }, 'off');
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
 * @example
 * ```ts
 * const newOrigin = async (id: string) => (await newDb.get(id)) ?? failure(new Error(`no row ${id}`));
 * ```
 */
export function failure(error: unknown): Failure;

/**
 * A client whose every flag serves `stage`; events go nowhere.
 *
 * @throws TypeError when `stage` is not a Stage.
 * @example
 * ```ts
 * const migrator = new MigratorBuilder(fixedStage('shadow')).read(rOld, rNew).write(wOld, wNew).build();
 * ```
 */
export function fixedStage(stage: Stage): MigrationClient;
