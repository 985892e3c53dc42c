// The public JavaScript API of cutover: thin classes over the wasm bindings.
// Every entry point is built from this module by scripts/build.sh (esbuild bundles).
// Behaviour lives in the Rust core; here arguments are forwarded and results passed back.
export { BigSegmentStoreManager, bigSegmentRef, hashContextKey, redisBigSegmentStore } from './segments.js';
export { ioredisHost, nodeRedisHost, upstashHost } from './redis-hosts.js';
export { launchDarklyBigSegmentStore } from './launchdarkly-store.js';
export { awsDynamoDbHost, dynamoDbBigSegmentStore } from './dynamodb.js';
export {
  MigratorBuilder,
  MigratorConfigError,
  OpTracker,
  failure,
  fixedStage,
  launchDarklyClient,
  migrationVariation,
} from './migration.js';
export {
  LDConcurrentExecution,
  LDExecution,
  LDExecutionOrdering,
  LDMigrationError,
  LDMigrationStage,
  LDMigrationSuccess,
  LDSerialExecution,
  createMigration,
} from './launchdarkly-migration.js';
export { openFeatureClient } from './openfeature.js';
export { sameStructure } from './diff.js';
export { sameResponse } from './response.js';
export { beaconSink } from './beacon.js';
export { migrationEventRelay } from './relay.js';
export { launchDarklyBrowserClient } from './browser-client.js';
