// Types of the public API of cutover. All durations are milliseconds; timestamps epoch ms.

export type Stage = 'off' | 'dualwrite' | 'shadow' | 'live' | 'rampdown' | 'complete';
export type Origin = 'old' | 'new';
export type Operation = 'read' | 'write';
export type ExecutionOrder = 'serial' | 'random' | 'parallel';

/** A single-kind context (LaunchDarkly's `LDSingleKindContext` / `LDContextCommon` shape). */
export interface SingleKindContext {
  kind?: string;
  key: string;
  [attribute: string]: unknown;
}

/** A multi-kind context: `{ kind: 'multi', user: { key: 'u1' }, org: { key: 'o1' } }`. */
export interface MultiKindContext {
  kind: 'multi';
  [kind: string]: unknown;
}

/** A legacy user, as an interface without an index signature (LaunchDarkly's `LDUser`). */
export interface LegacyUser {
  key: string;
  name?: string;
  anonymous?: boolean;
}

/**
 * An OpenFeature evaluation context: `targetingKey` is its key where `key` is absent, and the kind
 * is `user` when absent. (Multi-kind ones nest them: `{ kind: 'multi', user: { targetingKey } }`.)
 */
export interface OpenFeatureContext {
  kind?: string;
  targetingKey: string;
  [attribute: string]: unknown;
}

/**
 * A LaunchDarkly context (single or multi-kind), a legacy user or an OpenFeature evaluation
 * context, typed structurally: LaunchDarkly's `LDContext` is assignable to it without a
 * dependency on LaunchDarkly's types.
 */
export type Context = SingleKindContext | MultiKindContext | LegacyUser | OpenFeatureContext;

export interface Logger {
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

/** The flag system's own tracker (LaunchDarkly's `LDMigrationTracker` shape). */
export interface ExternalTracker {
  op(operation: Operation): void;
  invoked(origin: Origin): void;
  latency(origin: Origin, ms: number): void;
  error(origin: Origin): void;
  consistency(check: () => boolean): void;
  createEvent(): object | undefined;
}

/** What the flag system says about the migration flag for one context. */
export interface StageEvaluation {
  /** The served value; cutover validates it as a Stage. */
  value: unknown;
  variationIndex?: number;
  reason?: { kind: string; [k: string]: unknown };
  flagVersion?: number;
  /** 1-in-N consistency sampling (the flag's `migration.checkRatio`). */
  checkRatio?: number;
  /** 1-in-N event sampling (the flag's `samplingRatio`). */
  samplingRatio?: number;
  tracker?: ExternalTracker;
}

/**
 * Any flag system. A plain string answer means `{ value: thatString }`. Both methods are looked
 * up on the object at every operation (a stub installed later takes effect), called with the
 * object as `this`, in the async context of the operation's caller; `context` is the caller's
 * own object.
 */
export interface MigrationClient {
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

/** An origin: returns (or resolves to) its value; throws, rejects or returns `failure(e)` to fail. */
export type OriginFn<P, T> = (payload: P | undefined, signal: AbortSignal) => Promise<T | Failure> | T | Failure;

export interface OperationResult<T> {
  origin: Origin;
  success: boolean;
  value?: T;
  error?: unknown;
}

export interface WriteResult<T> {
  authoritative: OperationResult<T>;
  /** Absent when the second write did not run (stage without one, or the first failed). */
  nonAuthoritative?: OperationResult<T>;
}

export interface OperationOptions {
  /** Aborting rejects the operation with the signal's reason. */
  signal?: AbortSignal;
}

export interface LatencyStats {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface OriginStats {
  invoked: number;
  errors: number;
  timeouts: number;
  /** `null` when never timed. */
  latencyMs: LatencyStats | null;
}

export interface OperationStats {
  /** Operations completed (aborted ones excluded). */
  count: number;
  byStage: Partial<Record<Stage, number>>;
  old: OriginStats;
  new: OriginStats;
  /** Reads only; writes stay 0. */
  consistency: { checked: number; consistent: number };
}

export interface MigrationStats {
  read: OperationStats;
  write: OperationStats;
}

export interface Migrator<TReadPayload = unknown, TRead = unknown, TWritePayload = unknown, TWrite = unknown> {
  read(
    flagKey: string,
    context: Context,
    defaultStage: Stage,
    payload?: TReadPayload,
    options?: OperationOptions,
  ): Promise<OperationResult<TRead>>;
  write(
    flagKey: string,
    context: Context,
    defaultStage: Stage,
    payload?: TWritePayload,
    options?: OperationOptions,
  ): Promise<WriteResult<TWrite>>;
  /** Running statistics, independent of event sampling: a fresh plain object. */
  stats(): MigrationStats;
  resetStats(): void;
}

export class MigratorBuilder<TReadPayload = unknown, TRead = unknown, TWritePayload = unknown, TWrite = unknown> {
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
   * `.consistency.checks` and `.consistency.mismatches` with an OpenTelemetry Meter (README "OpenTelemetry").
   * @example new MigratorBuilder(client).meter(metrics.getMeter('checkout'))
   */
  meter(meter: MeterLike): this;
  /** Replaces any earlier read configuration. */
  read(
    oldFn: OriginFn<TReadPayload, TRead>,
    newFn: OriginFn<TReadPayload, TRead>,
    comparison?: (oldValue: TRead, newValue: TRead) => boolean,
  ): this;
  write(oldFn: OriginFn<TWritePayload, TWrite>, newFn: OriginFn<TWritePayload, TWrite>): this;
  /** @throws MigratorConfigError 'read configuration not provided' / 'write configuration not provided' */
  build(): Migrator<TReadPayload, TRead, TWritePayload, TWrite>;
}

export class MigratorConfigError extends Error {
  name: 'MigratorConfigError';
}

export type Measurement =
  | { key: 'invoked'; values: { old?: true; new?: true } }
  | { key: 'consistent'; value: boolean; samplingRatio?: number }
  | { key: 'latency_ms'; values: { old?: number; new?: number } }
  | { key: 'error'; values: { old?: true; new?: true } };

/** LaunchDarkly's `migration_op` event, in wire format. */
export interface MigrationOpEvent {
  kind: 'migration_op';
  creationDate: number;
  operation: Operation;
  context: Context;
  evaluation: {
    key: string;
    value: Stage;
    default: Stage;
    reason?: object;
    variation?: number;
    version?: number;
  };
  /** Omitted when 1. */
  samplingRatio?: number;
  measurements: Measurement[];
}

export class OpTracker {
  constructor(flagKey: string, context: Context, evaluation: StageEvaluation, defaultStage: Stage);
  operation(op: Operation): this;
  invoked(origin: Origin): this;
  error(origin: Origin): this;
  latency(origin: Origin, ms: number): this;
  consistent(check: () => boolean): this;
  /** @throws Error with the exact messages of SPEC A5 when the event would be invalid. */
  build(): MigrationOpEvent;
}

export function migrationVariation(
  client: MigrationClient,
  flagKey: string,
  context: Context,
  defaultStage: Stage,
): Promise<{ stage: Stage; tracker: OpTracker | ExternalTracker }>;

/** Makes an origin fail without throwing. */
export function failure(error: unknown): Failure;

/** A client whose every flag serves `stage`; events go nowhere. */
export function fixedStage(stage: Stage): MigrationClient;

/** The parts of a LaunchDarkly server SDK client that migrations use. */
export interface LDClientLike {
  migrationVariation(key: string, context: any, defaultValue: any): Promise<{ value: any; tracker: any }>;
  trackMigration(event: any): void;
}

/** Adapts a LaunchDarkly server SDK client: its own tracker and events carry cutover's measurements. */
export function launchDarklyClient(ldClient: LDClientLike): MigrationClient;

/** What `openFeatureClient` uses of an OpenFeature client (server SDK, or web SDK). */
export interface OpenFeatureClientLike {
  getStringDetails(flagKey: string, defaultValue: string, context?: any): any;
  track?(name: string, context?: any, details?: any): void;
}

/** The flat details of `client.track('migration_op', context, details)`. */
export interface OpenFeatureMigrationDetails {
  flagKey: string; stage: Stage; operation: 'read' | 'write'; variationIndex?: number; flagVersion?: number;
  invokedOld: boolean; invokedNew: boolean; latencyOldMs?: number; latencyNewMs?: number;
  errorOld?: boolean; errorNew?: boolean; consistent?: boolean; checkRatio?: number;
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
 * @example new MigratorBuilder(openFeatureClient(OpenFeature.getClient())).read(rOld, rNew).write(wOld, wNew).build()
 */
export function openFeatureClient(client: OpenFeatureClientLike, options?: { provider?: object }): MigrationClient;

// ---------------------------------------------------------------------------------------------
// Big Segments

export interface BigSegmentStoreMetadata {
  /** Epoch ms of the store's last synchronization. */
  lastUpToDate?: number | null;
}

/** A store written in JavaScript. LaunchDarkly's JS stores (`getUserMembership`) plug in as they are. */
export type BigSegmentStore = {
  getMetadata(): Promise<BigSegmentStoreMetadata | null | undefined>;
  close?(): Promise<void> | void;
} & (
  | { getMembership(contextHash: string): Promise<Record<string, boolean> | null | undefined> }
  | { getUserMembership(contextHash: string): Promise<Record<string, boolean> | null | undefined> }
);

export interface BigSegmentsOptions {
  /** Absent or null: every lookup is NOT_CONFIGURED. */
  store?: BigSegmentStore | null;
  /** Default 1000; a positive integer. */
  contextCacheSize?: number;
  /** Default 5000; absolute TTL from insertion. */
  contextCacheTimeMs?: number;
  /** Default 5000. */
  statusPollIntervalMs?: number;
  /** Default 120000. */
  staleAfterMs?: number;
  /** Default 10000; a slower store call counts as a store error. */
  queryTimeoutMs?: number;
  logger?: Logger;
  /** Records `cutover.big_segments.*` (lookups, cache hits, store queries and their duration, the status gauge). */
  meter?: BigSegmentsMeterLike;
}

/** What cutover uses of an OpenTelemetry `Meter` (`@opentelemetry/api`); cutover does not depend on it. */
export interface MeterLike {
  createCounter(name: string, options?: object): { add(value: number, attributes?: MetricAttributes): void };
  createHistogram(name: string, options?: object): { record(value: number, attributes?: MetricAttributes): void };
}

/** A Meter for Big Segments: also the status gauge (0 available, 1 stale, 2 unavailable). */
export interface BigSegmentsMeterLike extends MeterLike {
  createObservableGauge(name: string, options?: object): {
    addCallback(callback: StatusObserver): void;
    removeCallback(callback: StatusObserver): void;
  };
}

export type StatusObserver = (result: { observe(value: number, attributes?: MetricAttributes): void }) => void;

/** A measurement's attributes: only these, never a context key or hash. */
export interface MetricAttributes {
  'feature_flag.key'?: string;
  'cutover.migration.stage'?: Stage;
  'cutover.migration.operation'?: 'read' | 'write';
  'cutover.migration.origin'?: 'old' | 'new';
  /** 'timeout', the error's `name`, or '_OTHER'. */
  'error.type'?: string;
}

export type BigSegmentsStatus = 'HEALTHY' | 'STALE' | 'STORE_ERROR' | 'NOT_CONFIGURED';

export interface BigSegmentStoreStatus {
  available: boolean;
  stale: boolean;
}

/** Segment ref (`key.gN`) → included (true) or excluded (false). Null-prototype and frozen. */
export type Membership = Readonly<Record<string, boolean>>;

export interface BigSegmentStoreStatusProvider {
  /** The last status, or polls now if there is none. */
  getStatus(): Promise<BigSegmentStoreStatus>;
  readonly lastStatus: BigSegmentStoreStatus | undefined;
  addListener(listener: (status: BigSegmentStoreStatus) => void): void;
  removeListener(listener: (status: BigSegmentStoreStatus) => void): void;
}

export interface BigSegmentsManagerStats {
  lookups: number;
  cacheHits: number;
  cacheMisses: number;
  /** Misses that joined a store query already in flight for the same context. */
  coalescedLookups: number;
  membershipQueries: number;
  membershipErrors: number;
  statusPolls: number;
  statusErrors: number;
}

export class BigSegmentStoreManager {
  /** @throws RangeError / TypeError naming the invalid option. */
  constructor(options: BigSegmentsOptions);
  /** Background status polling every statusPollIntervalMs; idempotent; never keeps Node alive. */
  start(): void;
  /**
   * The context's memberships and the store's status. The answer is frozen, and a warm lookup
   * may hand out the same answer object again — and the same resolved promise of it. The
   * store call of a miss runs in the caller's async context (a query shared by concurrent
   * misses, in the first caller's).
   */
  getUserMembership(contextKey: string): Promise<Readonly<{ membership: Membership | null; status: BigSegmentsStatus }>>;
  readonly statusProvider: BigSegmentStoreStatusProvider;
  /** Running counts since construction. */
  stats(): BigSegmentsManagerStats;
  /** Stops polling, then awaits the store's close(); idempotent; later lookups reject. */
  close(): Promise<void>;
}

/** base64(SHA-256(UTF-8 key)), padded: the key stores use. */
export function hashContextKey(contextKey: string): string;
/** `${segmentKey}.g${generation}`. */
export function bigSegmentRef(segmentKey: string, generation: number): string;

// ---------------------------------------------------------------------------------------------
// Redis, reached through a host function

/** Sends one Redis command, e.g. `['SMEMBERS', key]` → `string[]`. */
export type RedisCommand = (args: string[]) => Promise<unknown>;

export interface RedisHost {
  command: RedisCommand;
  /** Sends several commands in one round trip; replies in order. */
  pipeline?(commands: string[][]): Promise<unknown[]>;
}

/**
 * A Big Segment store over Redis as LaunchDarkly's Relay Proxy writes it. `prefix` defaults to
 * 'launchdarkly' (also when ''). One round trip per membership query.
 */
export function redisBigSegmentStore(host: RedisHost | RedisCommand, options?: { prefix?: string }): BigSegmentStore;
/**
 * node-redis v4+ (`sendCommand`, `multi`), or a node-redis cluster from `createCluster()`: then a
 * query's two SMEMBERS go out concurrently, each to the node that owns its key.
 */
export function nodeRedisHost(client: unknown): RedisHost;
/**
 * ioredis (`call`, `pipeline`), or an ioredis `Cluster` (`isCluster === true`): then a query's two
 * SMEMBERS go out concurrently, each to the node that owns its key, never as a cross-slot pipeline.
 */
export function ioredisHost(client: unknown): RedisHost;
/** @upstash/redis (HTTP, edge-friendly). */
export function upstashHost(client: unknown): RedisHost;

// ---------------------------------------------------------------------------------------------
// DynamoDB, reached through a host object

/** A DynamoDB attribute value as GetItem answers it (`{ S }`, `{ N }`, `{ SS }`, …). */
export type DynamoDbAttributeValue = { S?: string; N?: string; SS?: string[]; [type: string]: unknown };

/** DynamoDB's GetItem input, as the DynamoDB store sends it. */
export interface DynamoDbGetItemInput {
  TableName: string;
  Key: { namespace: { S: string }; key: { S: string } };
  ConsistentRead?: boolean;
}

/** DynamoDB's GetItem output, as much as the store reads: no `Item` when there is none. */
export interface DynamoDbGetItemOutput {
  Item?: Record<string, DynamoDbAttributeValue>;
}

/** Sends one GetItem, in DynamoDB's own shapes. */
export interface DynamoDbHost {
  getItem(input: DynamoDbGetItemInput): Promise<DynamoDbGetItemOutput>;
}

/**
 * A Big Segment store over a DynamoDB table as LaunchDarkly's Relay Proxy writes it: partition
 * key `namespace`, sort key `key`; the metadata item (`big_segments_metadata`, number attribute
 * `synchronizedOn` in epoch ms) and one item per context in namespace `big_segments_user` keyed
 * by the context hash, with the string sets `included` and `excluded` (include wins). `prefix`
 * is prepended as `prefix:` to the namespaces (none by default, also when ''). One GetItem per
 * membership query and per metadata read (consistent reads). An output or attribute of any other
 * shape (an `Item` that is not a map, `included` that is not a string set, …) fails the query.
 *
 * @throws TypeError when `host` has no getItem method, `options.tableName` is not a string or
 *   `options.prefix` is neither a string nor undefined; RangeError when the table name is not a
 *   DynamoDB table name.
 */
export function dynamoDbBigSegmentStore(host: DynamoDbHost, options: { tableName: string; prefix?: string }): BigSegmentStore;
/**
 * `@aws-sdk/client-dynamodb` v3: `client.send(new GetItemCommand(input))`. Pass the SDK's own
 * `DynamoDBClient` and `GetItemCommand`; cutover does not depend on the SDK.
 */
export function awsDynamoDbHost(client: unknown, GetItemCommand: new (input: DynamoDbGetItemInput) => unknown): DynamoDbHost;

// ---------------------------------------------------------------------------------------------
// cutover's stores inside LaunchDarkly's server SDK

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

// ---------------------------------------------------------------------------------------------
// LaunchDarkly's createMigration, under LaunchDarkly's names

/** LaunchDarkly's migration stages. */
export enum LDMigrationStage {
  Off = 'off',
  DualWrite = 'dualwrite',
  Shadow = 'shadow',
  Live = 'live',
  RampDown = 'rampdown',
  Complete = 'complete',
}

/** Serial execution's order: `Fixed` runs old to completion, then new, at every stage; `Random` flips a coin per read. */
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

/** What a migration method returns: build it with `LDMigrationSuccess` / `LDMigrationError`. */
export type LDMethodResult<TResult> = { success: true; result: TResult } | { success: false; error: any };

/** A successful method result. */
export function LDMigrationSuccess<TResult>(result: TResult): LDMethodResult<TResult>;
/** A failed method result. */
export function LDMigrationError(error: Error): { success: false; error: Error };

export type LDMigrationOrigin = Origin;

/** One origin's result: `result` when `success`, else `error`. */
export type LDMigrationResult<TResult> =
  | { success: true; origin: LDMigrationOrigin; result: TResult }
  | { success: false; origin: LDMigrationOrigin; error: any };
export type LDMigrationReadResult<TResult> = LDMigrationResult<TResult>;
/** `nonAuthoritative` is absent when the second write did not run (stage without one, or the first failed). */
export interface LDMigrationWriteResult<TResult> {
  authoritative: LDMigrationResult<TResult>;
  nonAuthoritative?: LDMigrationResult<TResult>;
}

/**
 * LaunchDarkly's migration options, and cutover's extras (`originTimeoutMs`, `logger`).
 * The four methods are looked up on the options object at every call (with it as `this`); they
 * also receive the origin's `AbortSignal`, which aborts on `originTimeoutMs` or the operation's
 * `signal`. A throw or rejection fails the origin with what was thrown.
 */
export interface LDMigrationOptions<TMigrationRead, TMigrationWrite, TMigrationReadInput, TMigrationWriteInput> {
  /** Default `new LDConcurrentExecution()`. */
  execution?: LDSerialExecution | LDConcurrentExecution;
  /** Default true; false: no `latency_ms` measurement. */
  latencyTracking?: boolean;
  /** Default true; false: no `error` measurement. */
  errorTracking?: boolean;
  readNew: (payload?: TMigrationReadInput, signal?: AbortSignal) => Promise<LDMethodResult<TMigrationRead>>;
  writeNew: (payload?: TMigrationWriteInput, signal?: AbortSignal) => Promise<LDMethodResult<TMigrationWrite>>;
  readOld: (payload?: TMigrationReadInput, signal?: AbortSignal) => Promise<LDMethodResult<TMigrationRead>>;
  writeOld: (payload?: TMigrationWriteInput, signal?: AbortSignal) => Promise<LDMethodResult<TMigrationWrite>>;
  /** Consistency check of two successful reads (sampled by the flag's checkRatio); read once, at createMigration. */
  check?: (a: TMigrationRead, b: TMigrationRead) => boolean;
  /** cutover: an origin slower than this fails with a DOMException named 'TimeoutError' and its signal aborts. */
  originTimeoutMs?: number;
  /** cutover: where cutover's own warnings go. */
  logger?: Logger;
  /** cutover: OpenTelemetry metrics, as `MigratorBuilder#meter`. */
  meter?: MeterLike;
}

/** LaunchDarkly's `LDMigration`, plus cutover's `{ signal }` per operation and `stats()`. */
export interface LDMigration<TMigrationRead, TMigrationWrite, TMigrationReadInput = any, TMigrationWriteInput = any> {
  read(
    key: string,
    context: Context,
    defaultValue: LDMigrationStage | Stage,
    payload?: TMigrationReadInput,
    options?: OperationOptions,
  ): Promise<LDMigrationReadResult<TMigrationRead>>;
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
 * LaunchDarkly's `createMigration`, run by cutover: switch with one import line.
 * Events go through `launchDarklyClient(ldClient)`, so LaunchDarkly's own tracker sends them.
 *
 * @example
 * import { init } from '@launchdarkly/node-server-sdk';
 * import { createMigration, LDMigrationSuccess, LDSerialExecution, LDExecutionOrdering } from 'cutover';
 *
 * const ldClient = init(process.env.LD_SDK_KEY);
 * await ldClient.waitForInitialization({ timeout: 10 });
 * const migration = createMigration(ldClient, {
 *   readOld: async (key) => LDMigrationSuccess(`old:${key}`),
 *   readNew: async (key) => LDMigrationSuccess(`new:${key}`),
 *   writeOld: async (params) => LDMigrationSuccess(params),
 *   writeNew: async (params) => LDMigrationSuccess(params),
 *   check: (a, b) => a === b,
 *   execution: new LDSerialExecution(LDExecutionOrdering.Fixed),
 *   originTimeoutMs: 500, // cutover's
 * });
 * const result = await migration.read('migration-flag', { kind: 'user', key: 'u1' }, 'off', 'k1');
 * if (result.success) console.log(result.origin, result.result);
 * console.log(migration.stats().read.count);
 *
 * @throws TypeError naming the bad option (a method that is not a function, an unknown execution).
 */
export function createMigration<TMigrationRead, TMigrationWrite, TMigrationReadInput = any, TMigrationWriteInput = any>(
  client: LDClientLike,
  config: LDMigrationOptions<TMigrationRead, TMigrationWrite, TMigrationReadInput, TMigrationWriteInput>,
): LDMigration<TMigrationRead, TMigrationWrite, TMigrationReadInput, TMigrationWriteInput>;
