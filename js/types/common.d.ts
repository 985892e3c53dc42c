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
  kind?: string;
  /** A non-empty string that identifies the context within its kind. */
  key: string;
  [attribute: string]: unknown;
}

/** A multi-kind context: `{ kind: 'multi', user: { key: 'u1' }, org: { key: 'o1' } }`. */
export interface MultiKindContext {
  kind: 'multi';
  [kind: string]: unknown;
}

/** A legacy user: an interface without an index signature (LaunchDarkly's `LDUser`). */
export interface LegacyUser {
  key: string;
  name?: string;
  anonymous?: boolean;
}

/** An OpenFeature context with `targetingKey` as its key (nested in a multi-kind one too). */
export interface OpenFeatureContext {
  kind?: string;
  /** OpenFeature's name for the context key. */
  targetingKey: string;
  [attribute: string]: unknown;
}

/**
 * OpenFeature's `EvaluationContext`, whose `targetingKey` is optional (without one, the context
 * is invalid and the default stage runs).
 */
export interface OpenFeatureEvaluationContext {
  targetingKey?: string;
  kind?: undefined;
  key?: undefined;
  [attribute: string]: unknown;
}

/**
 * A context: LaunchDarkly's (single or multi-kind, or a legacy user) or OpenFeature's. Their
 * `LDContext` and `EvaluationContext` are assignable to it.
 */
export type Context = SingleKindContext | MultiKindContext | LegacyUser | OpenFeatureContext | OpenFeatureEvaluationContext;

/** Where cutover's own warnings and errors go (`console`, or LaunchDarkly's `basicLogger()`). */
export interface Logger {
  /** Logs a debug-level message. */
  debug(...args: unknown[]): void;
  /** Logs an info-level message. */
  info(...args: unknown[]): void;
  /** Logs a warning. */
  warn(...args: unknown[]): void;
  /** Logs an error. */
  error(...args: unknown[]): void;
}

/** A measurement's attributes: only these, never a context key or hash. */
export interface MetricAttributes {
  'feature_flag.key'?: string;
  'cutover.migration.stage'?: Stage;
  'cutover.migration.operation'?: Operation;
  'cutover.migration.origin'?: Origin;
  /** 'timeout', the error's `name`, or '_OTHER'. */
  'error.type'?: string;
}

/** A counter as cutover uses it (OpenTelemetry's `Counter`). */
export interface CounterLike {
  /** Adds `value` to the counter, with the measurement's attributes. */
  add(value: number, attributes?: MetricAttributes): void;
}

/** A histogram as cutover uses it (OpenTelemetry's `Histogram`). */
export interface HistogramLike {
  /** Records one value (a duration in seconds), with the measurement's attributes. */
  record(value: number, attributes?: MetricAttributes): void;
}

/** What cutover uses of an OpenTelemetry `Meter` (`@opentelemetry/api`); cutover does not depend on it. */
export interface MeterLike {
  /** Creates the counter named `name`. */
  createCounter(name: string, options?: object): CounterLike;
  /** Creates the histogram named `name`. */
  createHistogram(name: string, options?: object): HistogramLike;
  /**
   * Creates the observable gauge named `name`: optional for migrations (the guard's state,
   * `cutover.migration.guard.state`, is reported when the meter has it), required for Big Segments.
   */
  createObservableGauge?(name: string, options?: object): {
    /** Registers a callback run at each collection. */
    addCallback(callback: (result: ObservableResultLike) => void): void;
    /** Unregisters it (once its migrator is gone). */
    removeCallback?(callback: (result: ObservableResultLike) => void): void;
  };
}

/** What an observable gauge's callback receives. */
export interface ObservableResultLike {
  /** Reports the gauge's current value, with its attributes. */
  observe(value: number, attributes?: MetricAttributes): void;
}

/** A callback of an observable gauge. */
export type StatusObserver = (result: ObservableResultLike) => void;

/** A Meter for Big Segments: also the status gauge (0 available, 1 stale, 2 unavailable). */
export interface BigSegmentsMeterLike extends MeterLike {
  /** Creates the observable gauge named `name` (the store status). */
  createObservableGauge(name: string, options?: object): {
    /** Registers a callback run at each collection. */
    addCallback(callback: StatusObserver): void;
    /** Unregisters a callback (at the manager's close()). */
    removeCallback(callback: StatusObserver): void;
  };
}
