// The public types of cutover, one module per part (js/types/): the declarations are hand-written
// beside the JavaScript facade (js/api.js), which js/check-types.ts checks against them.
// All durations are milliseconds; timestamps epoch ms.

export * from './types/common.js';
export * from './types/migrations.js';
export * from './types/events.js';
export * from './types/clients.js';
export * from './types/big-segments.js';
export * from './types/hosts.js';
export * from './types/launchdarkly.js';
export * from './types/differences.js';
export * from './types/beacon.js';
export * from './types/relay.js';
export * from './types/browser.js';
export * from './types/console.js';
