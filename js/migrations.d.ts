// The types of cutover/migrations (js/entries/migrations.js): the migrations API only (API.md
// §2c), the same declarations as the full entry's, re-exported. scripts/bundle.mjs copies this
// file to dist/migrations/migrations.d.ts (beside the entry files, naming ../index.js).

export type {
  Context,
  ExecutionOrder,
  LegacyUser,
  Logger,
  MeterLike,
  CounterLike,
  HistogramLike,
  MetricAttributes,
  MultiKindContext,
  OpenFeatureContext,
  OpenFeatureEvaluationContext,
  Operation,
  Origin,
  SingleKindContext,
  Stage,
} from './index.js';
export type {
  BackgroundOptions,
  DeclaredOrInferred,
  Difference,
  ExternalTracker,
  Failure,
  GuardChange,
  GuardOptions,
  GuardState,
  GuardStats,
  GuardStatus,
  GuardWindow,
  LatencyStats,
  MigrationClient,
  MigrationStats,
  Migrator,
  Mismatch,
  MismatchOptions,
  OperationFailure,
  OperationOptions,
  OperationResult,
  OperationStats,
  OperationSuccess,
  OperationValue,
  OriginArgument,
  OriginFn,
  OriginStats,
  OriginValue,
  PayloadArguments,
  StageEvaluation,
  WriteResult,
} from './index.js';
export { MigratorBuilder, MigratorConfigError, failure, fixedStage, migrationVariation } from './index.js';
export type { Measurement, MigrationOpEvent } from './index.js';
export { OpTracker } from './index.js';
export type { LDClientLike, OpenFeatureClientLike, OpenFeatureDetailsLike, OpenFeatureMigrationDetails } from './index.js';
export { launchDarklyClient, openFeatureClient } from './index.js';
export type { SameResponseOptions, SameStructureOptions, StructuralComparison } from './index.js';
export { sameStructure } from './index.js';
export type {
  LDMethodFailure,
  LDMethodResult,
  LDMethodSuccess,
  LDMigration,
  LDMigrationOptions,
  LDMigrationOrigin,
  LDMigrationReadResult,
  LDMigrationResult,
  LDMigrationWriteResult,
} from './index.js';
export {
  LDConcurrentExecution,
  LDExecution,
  LDExecutionOrdering,
  LDMigrationError,
  LDMigrationStage,
  LDMigrationSuccess,
  LDSerialExecution,
  createMigration,
} from './index.js';
export type { BeaconSink, BeaconSinkOptions, BeaconSinkStats } from './index.js';
export type { LDBrowserClientLike, LDBrowserEvaluationDetail, LaunchDarklyBrowserClientOptions } from './index.js';
export { beaconSink, launchDarklyBrowserClient, sameResponse } from './index.js';
