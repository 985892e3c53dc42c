// Node's ESM entry re-exports the CommonJS build: one wasm instance and one glue copy in the
// process, and no dual-package hazard between `import` and `require`.
import api from './cutover.cjs';

export const {
  BigSegmentStoreManager,
  awsDynamoDbHost,
  bigSegmentRef,
  dynamoDbBigSegmentStore,
  hashContextKey,
  ioredisHost,
  launchDarklyClient,
  migrationVariation,
  MigratorBuilder,
  MigratorConfigError,
  nodeRedisHost,
  OpTracker,
  failure,
  fixedStage,
  redisBigSegmentStore,
  upstashHost,
} = api;
