// The ESM body (dist/lib/esm/migrations.js, bundled by scripts/bundle.mjs) of cutover/migrations:
// the migrations API only, over the wasm built without Big Segments (cargo's `segments` feature
// off), for pages and workers that pay for every byte. Its runtime entries mirror the main ones.
export {
  MigratorBuilder,
  MigratorConfigError,
  OpTracker,
  failure,
  fixedStage,
  launchDarklyClient,
  migrationVariation,
} from '../migration.js';
export {
  LDConcurrentExecution,
  LDExecution,
  LDExecutionOrdering,
  LDMigrationError,
  LDMigrationStage,
  LDMigrationSuccess,
  LDSerialExecution,
  createMigration,
} from '../launchdarkly-migration.js';
export { openFeatureClient } from '../openfeature.js';
export { sameStructure } from '../diff.js';
export { sameResponse } from '../response.js';
export { launchDarklyBrowserClient } from '../browser-client.js';
export { beaconSink } from '../beacon.js';
// The glue of the migrations wasm: bundle.mjs resolves '../wasm/cutover.js' (here and in every
// module above) to js/wasm-migrations/cutover.js.
export { default as initGlue, initSync } from '../wasm/cutover.js';
