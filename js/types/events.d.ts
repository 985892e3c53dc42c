// Events: LaunchDarkly's migration_op wire format, and the tracker that builds them by hand.
import type { Context, Operation, Origin, Stage } from './common.js';
import type { StageEvaluation } from './migrations.js';

/** One measurement of a `migration_op` event. */
export type Measurement =
  | {
      /** Which origins ran. */
      key: 'invoked';
      /** `true` for each origin that ran. */
      values: { old?: true; new?: true };
    }
  | {
      /** A consistency check's outcome. */
      key: 'consistent';
      /** Whether the two reads agreed. */
      value: boolean;
      /** The check's 1-in-N sampling; omitted when 1. */
      samplingRatio?: number;
    }
  | {
      /** The origins' durations. */
      key: 'latency_ms';
      /** Each timed origin's duration in ms. */
      values: { old?: number; new?: number };
    }
  | {
      /** Which origins failed. */
      key: 'error';
      /** `true` for each origin that failed. */
      values: { old?: true; new?: true };
    };

/** LaunchDarkly's `migration_op` event, in wire format. */
export interface MigrationOpEvent {
  /** Always 'migration_op'. */
  kind: 'migration_op';
  /** Epoch ms when the event was built. */
  creationDate: number;
  /** The operation. */
  operation: Operation;
  /** The caller's context object. */
  context: Context;
  /** The flag evaluation the operation ran under. */
  evaluation: {
    /** The flag key. */
    key: string;
    /** The stage served. */
    value: Stage;
    /** The default stage. */
    default: Stage;
    /** The evaluation reason. */
    reason?: object;
    /** The variation index. */
    variation?: number;
    /** The flag version. */
    version?: number;
  };
  /** Omitted when 1. */
  samplingRatio?: number;
  /** What the operation measured. */
  measurements: Measurement[];
}

/** Builds a `migration_op` event by hand, as migrators do. */
export class OpTracker {
  /** A tracker for one operation under `evaluation`. */
  constructor(flagKey: string, context: Context, evaluation: StageEvaluation, defaultStage: Stage);
  /** Records the operation. */
  operation(op: Operation): this;
  /** Records that an origin ran. */
  invoked(origin: Origin): this;
  /** Records that an origin failed. */
  error(origin: Origin): this;
  /** Records an origin's duration in ms. */
  latency(origin: Origin, ms: number): this;
  /** Runs the consistency check when the evaluation's checkRatio samples it. */
  consistent(check: () => boolean): this;
  /** @throws Error with the exact messages of SPEC A5 when the event would be invalid. */
  build(): MigrationOpEvent;
}
