// Events: LaunchDarkly's migration_op wire format, and the tracker that builds them by hand.
import type { Context, Operation, Origin, Stage } from './common.js';
import type { StageEvaluation } from './migrations.js';

/** One measurement of a `migration_op` event. */
export type Measurement =
  | {
      key: 'invoked';
      values: { old?: true; new?: true };
    }
  | {
      key: 'consistent';
      value: boolean;
      samplingRatio?: number;
    }
  | {
      key: 'latency_ms';
      values: { old?: number; new?: number };
    }
  | {
      key: 'error';
      values: { old?: true; new?: true };
    };

/** LaunchDarkly's `migration_op` event, in wire format. */
export interface MigrationOpEvent {
  kind: 'migration_op';
  creationDate: number;
  operation: Operation;
  /** The caller's context object. */
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

/** Builds a `migration_op` event by hand, as migrators do. */
export class OpTracker {
  constructor(flagKey: string, context: Context, evaluation: StageEvaluation, defaultStage: Stage);
  /** Records the operation's kind. */
  operation(op: Operation): this;
  /** Records that `origin` ran. */
  invoked(origin: Origin): this;
  /** Records that `origin` failed. */
  error(origin: Origin): this;
  /** Records how long `origin` took, in ms (a finite number ≥ 0, else RangeError). */
  latency(origin: Origin, ms: number): this;
  /** Runs `check` when the 1-in-checkRatio sampler picks it, and records its answer. */
  consistent(check: () => boolean): this;
  /** @throws Error with the exact messages of SPEC A5 when the event would be invalid. */
  build(): MigrationOpEvent;
}
