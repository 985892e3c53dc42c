// Messages (issue 33): every RangeError and TypeError an option or argument of the public API
// throws names its owner (the class, function or builder method), the option, and the value it
// got (`BigSegmentStoreManager: contextCacheSize must be a positive integer, got -1`). One row per
// option of each constructor and builder method, with a bad value of each kind it refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BigSegmentStoreManager,
  MigratorBuilder,
  OpTracker,
  beaconSink,
  fixedStage,
  launchDarklyBrowserClient,
  migrationEventRelay,
  redisBigSegmentStore,
  sameResponse,
  sameStructure,
} from 'cutover';

const builder = () => new MigratorBuilder(fixedStage('off'), { logger: { debug() {}, info() {}, warn() {}, error() {} } });
const migrator = () => builder().read(async () => 1, async () => 1).write(async () => 1, async () => 1).build();
const tracker = () => new OpTracker('flag', { key: 'k' }, { value: 'shadow' }, 'off');
const ldBrowser = { variationDetail: () => ({ value: 'off' }) };
const ldServer = { trackMigration() {} };

// [call, class, owner, option, got]
const CASES = [
  [() => new BigSegmentStoreManager({ contextCacheSize: -1 }), RangeError, 'BigSegmentStoreManager', 'contextCacheSize', 'got -1'],
  [() => new BigSegmentStoreManager({ contextCacheSize: 1.5 }), RangeError, 'BigSegmentStoreManager', 'contextCacheSize', 'got 1.5'],
  [() => new BigSegmentStoreManager({ contextCacheSize: '10' }), TypeError, 'BigSegmentStoreManager', 'contextCacheSize', 'got string'],
  [() => new BigSegmentStoreManager({ contextCacheTimeMs: -5 }), RangeError, 'BigSegmentStoreManager', 'contextCacheTimeMs', 'got -5'],
  [() => new BigSegmentStoreManager({ statusPollIntervalMs: 0 }), RangeError, 'BigSegmentStoreManager', 'statusPollIntervalMs', 'got 0'],
  [() => new BigSegmentStoreManager({ staleAfterMs: Number.NaN }), RangeError, 'BigSegmentStoreManager', 'staleAfterMs', 'got NaN'],
  [() => new BigSegmentStoreManager({ queryTimeoutMs: null }), TypeError, 'BigSegmentStoreManager', 'queryTimeoutMs', 'got null'],
  [() => new BigSegmentStoreManager({ queryTimeoutMs: 10n }), TypeError, 'BigSegmentStoreManager', 'queryTimeoutMs', 'got bigint'],
  [() => builder().readExecutionOrder('sideways'), TypeError, 'readExecutionOrder', 'order', 'got "sideways"'],
  [() => builder().originTimeout(-1), RangeError, 'originTimeout', 'ms', 'got -1'],
  [() => builder().originTimeout('1'), TypeError, 'originTimeout', 'ms', 'got string "1"'],
  [() => builder().background({ maxInFlight: 0 }), RangeError, 'background', 'maxInFlight', 'got 0'],
  [() => builder().background({ waitUntil: 5 }), TypeError, 'background', 'waitUntil', 'got number 5'],
  [() => builder().mismatches({ keep: 1001 }), RangeError, 'mismatches', 'keep', 'got 1001'],
  [() => builder().mismatches({ maxDifferences: -1 }), RangeError, 'mismatches', 'maxDifferences', 'got -1'],
  [() => builder().trackLatency('yes'), TypeError, 'trackLatency', 'enabled', 'got string "yes"'],
  [() => sameStructure({ ignore: ['no-slash'] }), TypeError, 'sameStructure', 'ignore[0]', 'got "no-slash"'],
  [() => sameStructure({ ignore: [5] }), TypeError, 'sameStructure', 'ignore[0]', 'got number 5'],
  [() => sameStructure({ ignore: 'x' }), TypeError, 'sameStructure', 'ignore', 'got string "x"'],
  [() => sameResponse({ maxBodyBytes: -1 }), RangeError, 'sameResponse', 'maxBodyBytes', 'got -1'],
  [() => sameResponse({ headers: 'etag' }), TypeError, 'sameResponse', 'headers', 'got string "etag"'],
  [() => sameResponse({ headers: [1] }), TypeError, 'sameResponse', 'headers[0]', 'got number 1'],
  [() => beaconSink('/e', { maxBatch: 0 }), RangeError, 'beaconSink', 'maxBatch', 'got number 0'],
  [() => beaconSink(''), TypeError, 'beaconSink', 'url', 'got string ""'],
  [() => launchDarklyBrowserClient(ldBrowser, { events: 3 }), TypeError, 'launchDarklyBrowserClient', 'events', 'got number 3'],
  [() => migrationEventRelay(ldServer, { maxEvents: 0 }), RangeError, 'migrationEventRelay', 'maxEvents', 'got number 0'],
  [() => migrationEventRelay(ldServer, { flagKeys: 'f' }), TypeError, 'migrationEventRelay', 'flagKeys', 'got string "f"'],
  [() => redisBigSegmentStore(async () => null, { prefix: 5 }), TypeError, 'redisBigSegmentStore', 'prefix', 'got number 5'],
  [() => tracker().latency('old', 'fast'), TypeError, 'latency', 'ms', 'got string "fast"'],
  [() => tracker().latency('both', 1), TypeError, 'latency', 'origin', 'got string "both"'],
  [() => tracker().invoked(0), TypeError, 'invoked', 'origin', 'got number 0'],
  [() => tracker().error(null), TypeError, 'error', 'origin', 'got null'],
  [() => tracker().operation('delete'), TypeError, 'operation', 'op', 'got string "delete"'],
  [() => new OpTracker('flag', { key: 'k' }, 'shadow', 'off'), TypeError, 'OpTracker', 'evaluation', 'got string "shadow"'],
  [() => new MigratorBuilder({}), TypeError, 'MigratorBuilder', 'client', 'got object'],
];

for (const [call, ErrorClass, owner, option, got] of CASES) {
  test(`${owner}: ${option} → ${ErrorClass.name} naming ${owner}, ${option} and "${got}"`, () => {
    assert.throws(call, (error) => {
      assert.ok(error instanceof ErrorClass, `${ErrorClass.name} expected, got ${error?.name}: ${error?.message}`);
      assert.ok(error.message.startsWith(`${owner}: ${option} `) || error.message.startsWith(`${owner}: options.${option} `), `owner and option first: ${error.message}`);
      assert.ok(error.message.endsWith(got) || error.message.includes(`${got} `) || error.message.includes(`${got};`), `the value it got (${got}): ${error.message}`);
      return true;
    });
  });
}

test('Migrator#read: an options object that is not one names the owner and what it got', async () => {
  await assert.rejects(migrator().read('flag', { key: 'k' }, 'off', undefined, 5), (error) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /^Migrator#read: options must be an object, got number 5$/);
    return true;
  });
  await assert.rejects(migrator().write('flag', { key: 'k' }, 'off', undefined, { signal: null }), (error) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /^Migrator#write: options\.signal must be an AbortSignal, got null$/);
    return true;
  });
});
