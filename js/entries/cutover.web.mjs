// cutover/web: the API with explicit initialisation (the body is dist/lib/esm/web.js).
import { initGlue } from './lib/esm/web.js';

export {
  BigSegmentStoreManager,
  awsDynamoDbHost,
  bigSegmentRef,
  dynamoDbBigSegmentStore,
  hashContextKey,
  ioredisHost,
  launchDarklyBigSegmentStore,
  launchDarklyClient,
  migrationVariation,
  MigratorBuilder,
  MigratorConfigError,
  nodeRedisHost,
  openFeatureClient,
  OpTracker,
  failure,
  fixedStage,
  createMigration,
  LDConcurrentExecution,
  LDExecution,
  LDExecutionOrdering,
  LDMigrationError,
  LDMigrationStage,
  LDMigrationSuccess,
  LDSerialExecution,
  redisBigSegmentStore,
  upstashHost,
  initSync,
} from './lib/esm/web.js';

/** `init()` with no argument fetches the wasm beside this file (or beside a bundle made from it). */
export default function init(options) {
  return initGlue(options === undefined ? { module_or_path: new URL('./cutover_bg.wasm', import.meta.url) } : options);
}
export { init };
