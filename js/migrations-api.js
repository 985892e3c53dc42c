// The migrations API (API.md §1, §1's comparisons, LaunchDarkly's names, the adapters and §2c's
// browser names): the one list both entries export. js/api.js adds Big Segments and the relay;
// js/entries/migrations.js (cutover/migrations) is this list over the migrations-only wasm.
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
export { launchDarklyBrowserClient } from './browser-client.js';
