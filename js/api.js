// The public JavaScript API of cutover: thin classes over the wasm bindings.
// Every entry point is built from this module by scripts/build.sh (esbuild bundles).
// Behaviour lives in the Rust core; here arguments are forwarded and results passed back.
export { BigSegmentStoreManager, bigSegmentRef, hashContextKey, redisBigSegmentStore } from './segments.js';
export { ioredisHost, nodeRedisHost, upstashHost } from './redis-hosts.js';
export { launchDarklyBigSegmentStore } from './launchdarkly-store.js';
export { awsDynamoDbHost, dynamoDbBigSegmentStore } from './dynamodb.js';
export { migrationEventRelay } from './relay.js';
export { migrationConsole } from './console.js';
export { redisFleet } from './fleet.js';
export * from './migrations-api.js';
