// What both halves of cutover share: stages, contexts, the logger and the OpenTelemetry shapes.
// All durations are milliseconds; timestamps epoch ms.

/**
 * A migration stage, in the order a migration moves through them: `off` (old only) →
 * `dualwrite` → `shadow` → `live` → `rampdown` → `complete` (new only).
 */
export type Stage = 'off' | 'dualwrite' | 'shadow' | 'live' | 'rampdown' | 'complete';

/** One of a migration's two implementations: the one being replaced, or its replacement. */
export type Origin = 'old' | 'new';

/** The kind of a migration operation. */
export type Operation = 'read' | 'write';

/**
 * How a read runs its two origins where it runs both: one after the other with the old one
 * first (`serial`), in a random order (`random`), or both at once (`parallel`, the default).
 */
export type ExecutionOrder = 'serial' | 'random' | 'parallel';

/** A single-kind context (the shape of LaunchDarkly's `LDSingleKindContext`). */
export interface SingleKindContext {
  /** The context kind; `user` when absent. */
  kind?: string;
  /** A non-empty string that identifies the context within its kind. */
  key: string;
  /** Any other attributes; cutover reads none of them. */
  [attribute: string]: unknown;
}

/** A multi-kind context: `{ kind: 'multi', user: { key: 'u1' }, org: { key: 'o1' } }`. */
export interface MultiKindContext {
  /** Always `multi`; the other properties are the nested contexts, by kind. */
  kind: 'multi';
  /** The nested single-kind contexts, by kind. */
  [kind: string]: unknown;
}

/** A legacy user: an interface without an index signature (LaunchDarkly's `LDUser`). */
export interface LegacyUser {
  /** The user's key. */
  key: string;
  /** The user's name. */
  name?: string;
  /** Whether the user is anonymous. */
  anonymous?: boolean;
}

/**
 * An OpenFeature evaluation context with a kind: `targetingKey` is its key (where `key` is
 * absent). Multi-kind contexts nest them: `{ kind: 'multi', user: { targetingKey } }`.
 */
export interface OpenFeatureContext {
  /** The context kind; `user` when absent. */
  kind?: string;
  /** OpenFeature's name for the context key. */
  targetingKey: string;
  /** Any other attributes; cutover reads none of them. */
  [attribute: string]: unknown;
}

/**
 * OpenFeature's own `EvaluationContext` (`@openfeature/server-sdk`, `@openfeature/web-sdk`),
 * whose `targetingKey` is optional: a value of that type is a context as it is. Without a
 * `targetingKey` it is an invalid context (the operation runs the default stage, as for any
 * invalid context). `kind` and `key` belong to the other shapes.
 */
export interface OpenFeatureEvaluationContext {
  /** OpenFeature's name for the context key. */
  targetingKey?: string;
  /** Absent: a context with a kind or a key is one of the other shapes. */
  kind?: undefined;
  /** Absent: a context with a kind or a key is one of the other shapes. */
  key?: undefined;
  /** Any other attributes; cutover reads none of them. */
  [attribute: string]: unknown;
}

/**
 * What migrators take as a context: a LaunchDarkly context (single or multi-kind), a legacy
 * user, or an OpenFeature evaluation context. LaunchDarkly's `LDContext` and OpenFeature's
 * `EvaluationContext` are assignable to it as they are, without a dependency on either SDK.
 */
export type Context = SingleKindContext | MultiKindContext | LegacyUser | OpenFeatureContext | OpenFeatureEvaluationContext;

/** Where cutover's own warnings and errors go (`console`, or LaunchDarkly's `basicLogger()`). */
export interface Logger {
  /** Detail for debugging. */
  debug(...args: unknown[]): void;
  /** Information. */
  info(...args: unknown[]): void;
  /** Something went wrong that cutover worked around. */
  warn(...args: unknown[]): void;
  /** Something went wrong. */
  error(...args: unknown[]): void;
}

/** A measurement's attributes: only these, never a context key or hash. */
export interface MetricAttributes {
  /** The migration flag's key. */
  'feature_flag.key'?: string;
  /** The stage the operation ran. */
  'cutover.migration.stage'?: Stage;
  /** The operation. */
  'cutover.migration.operation'?: Operation;
  /** The origin the measurement is about. */
  'cutover.migration.origin'?: Origin;
  /** 'timeout', the error's `name`, or '_OTHER'. */
  'error.type'?: string;
}

/** A counter as cutover uses it (OpenTelemetry's `Counter`). */
export interface CounterLike {
  /** Adds `value` under `attributes`. */
  add(value: number, attributes?: MetricAttributes): void;
}

/** A histogram as cutover uses it (OpenTelemetry's `Histogram`). */
export interface HistogramLike {
  /** Records `value` under `attributes`. */
  record(value: number, attributes?: MetricAttributes): void;
}

/** What cutover uses of an OpenTelemetry `Meter` (`@opentelemetry/api`); cutover does not depend on it. */
export interface MeterLike {
  /** Makes a counter. */
  createCounter(name: string, options?: object): CounterLike;
  /** Makes a histogram. */
  createHistogram(name: string, options?: object): HistogramLike;
}

/** What an observable gauge's callback receives. */
export interface ObservableResultLike {
  /** Reports the gauge's value. */
  observe(value: number, attributes?: MetricAttributes): void;
}

/** A callback of an observable gauge. */
export type StatusObserver = (result: ObservableResultLike) => void;

/** A Meter for Big Segments: also the status gauge (0 available, 1 stale, 2 unavailable). */
export interface BigSegmentsMeterLike extends MeterLike {
  /** Makes the status gauge. */
  createObservableGauge(name: string, options?: object): {
    /** Adds a callback that reports the status. */
    addCallback(callback: StatusObserver): void;
    /** Removes a callback (at `close()`). */
    removeCallback(callback: StatusObserver): void;
  };
}
