// Assertions shared by every runtime orchestrator: over the report of ./smoke.mjs, and over a
// worker's JSON answer.
import assert from 'node:assert/strict';

export const EXPORTS = [
  'BigSegmentStoreManager',
  'LDConcurrentExecution',
  'LDExecution',
  'LDExecutionOrdering',
  'LDMigrationError',
  'LDMigrationStage',
  'LDMigrationSuccess',
  'LDSerialExecution',
  'MigratorBuilder',
  'MigratorConfigError',
  'OpTracker',
  'awsDynamoDbHost',
  'beaconSink',
  'bigSegmentRef',
  'createMigration',
  'dynamoDbBigSegmentStore',
  'failure',
  'fixedStage',
  'hashContextKey',
  'ioredisHost',
  'launchDarklyBigSegmentStore',
  'launchDarklyBrowserClient',
  'launchDarklyClient',
  'migrationConsole',
  'migrationEventRelay',
  'migrationVariation',
  'nodeRedisHost',
  'openFeatureClient',
  'redisBigSegmentStore',
  'redisFleet',
  'sameResponse',
  'sameStructure',
  'upstashHost',
];

const EVALUATION = { key: 'flag-a', value: 'shadow', default: 'off', reason: { kind: 'FALLTHROUGH' }, variation: 2, version: 7 };
const DOMEX = (name) => ({ name, isDOMException: true, isError: true });
const pick = (o, keys) => Object.fromEntries(keys.map((k) => [k, o?.[k]]));

/** Checks a smoke report; `runtime` names the runtime in failure messages. */
export function assertSmoke(report, { runtime } = {}) {
  const where = (what) => `${runtime}: ${what}`;
  assert.deepEqual(report.exports, EXPORTS, where('named exports'));

  const m = report.migrations;
  assert.deepEqual(m.read, { origin: 'old', success: true, value: 'old:42' }, where('shadow read result'));
  assert.deepEqual(
    m.write,
    { authoritative: { origin: 'old', success: true, value: 10 }, nonAuthoritative: { origin: 'new', success: true, value: 15 } },
    where('shadow write result'),
  );
  assert.deepEqual(m.calls, ['read-old:42:true', 'read-new:42', 'write-old:5', 'write-new:5'], where('origin calls (serial order)'));
  assert.deepEqual(m.compared, [['old:42', 'new:42']], where('comparison (old, new)'));
  assert.equal(m.events.length, 2, where('events count'));
  const [readEv, writeEv] = m.events;
  assert.deepEqual(
    readEv,
    { kind: 'migration_op', operation: 'read', contextKey: 'user-1', evaluation: EVALUATION, keys: ['consistent', 'invoked', 'latency_ms'], invoked: { old: true, new: true }, consistent: true, latencyOrigins: ['new', 'old'] },
    where('read event'),
  );
  assert.deepEqual(
    writeEv,
    { kind: 'migration_op', operation: 'write', contextKey: 'user-1', evaluation: EVALUATION, keys: ['invoked', 'latency_ms'], invoked: { old: true, new: true }, latencyOrigins: ['new', 'old'] },
    where('write event'),
  );
  assert.deepEqual(
    m.stats,
    {
      read: { count: 1, byStage: { shadow: 1 }, consistency: { checked: 1, consistent: 1, paths: {} }, oldInvoked: 1, newInvoked: 1, oldLatencyCount: 1 },
      write: { count: 1, byStage: { shadow: 1 }, consistency: { checked: 0, consistent: 0, paths: {} }, oldInvoked: 1, newInvoked: 1 },
    },
    where('stats'),
  );
  assert.equal(m.statsAfterReset, 0, where('resetStats'));
  assert.deepEqual(m.failureRead, { origin: 'new', success: false, error: { name: 'Error', message: 'nope', isDOMException: false, isError: true } }, where('failure()'));

  assert.equal(m.abort.ok, false, where('abort rejects'));
  assert.deepEqual(pick(m.abort.error, ['name', 'isDOMException', 'isError']), DOMEX('AbortError'), where('abort reason'));
  assert.ok(m.abort.elapsedMs < 1500, where(`abort is prompt (${m.abort.elapsedMs} ms)`));
  assert.deepEqual(m.abortCustom, { ok: false, sameReason: true }, where('abort with a custom reason'));
  assert.equal(m.abortPre.ok, false, where('pre-aborted signal rejects'));
  assert.deepEqual(pick(m.abortPre.error, ['name', 'isDOMException', 'isError']), DOMEX('AbortError'), where('pre-aborted reason'));
  assert.equal(m.abortStatsCount, 0, where('aborted operations are not counted'));

  const t = m.timeout;
  assert.equal(t.origin, 'new', where('timeout origin'));
  assert.equal(t.success, false, where('timeout fails'));
  assert.deepEqual(pick(t.error, ['name', 'isDOMException', 'isError']), DOMEX('TimeoutError'), where('timeout error'));
  assert.equal(t.signalAborted, true, where('timed-out origin signal aborted'));
  assert.ok(t.elapsedMs >= 25 && t.elapsedMs < 1500, where(`timeout elapsed ${t.elapsedMs} ms`));
  assert.deepEqual(t.stats, { invoked: 1, errors: 1, timeouts: 1 }, where('timeout stats'));

  assert.deepEqual(
    m.configError,
    { name: 'MigratorConfigError', message: 'read configuration not provided', isDOMException: false, isError: true, isConfigError: true },
    where('MigratorConfigError'),
  );
  assert.equal(m.badOriginError?.name, 'TypeError', where('non-function origin'));
  assert.equal(m.badOrderError?.name, 'TypeError', where('bad execution order'));
  assert.deepEqual(
    m.opTracker,
    { kind: 'migration_op', operation: 'read', evaluation: { key: 'flag-e', value: 'live', default: 'off' }, keys: ['invoked', 'latency_ms'] },
    where('OpTracker#build'),
  );
  assert.deepEqual(m.migrationVariation, { stage: 'rampdown', trackerIsOpTracker: true }, where('migrationVariation'));
  assert.equal(m.badStageFallsBack, 'dualwrite', where('invalid served stage → default'));

  const b = report.bigSegments;
  assert.equal(b.hash, 'CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=', where('hashContextKey'));
  assert.equal(b.ref, 'beta.g3', where('bigSegmentRef'));
  assert.deepEqual(b.first, { status: 'HEALTHY', membership: { 'beta.g3': true, 'alpha.g1': false }, frozen: true, nullProto: true }, where('first lookup'));
  assert.deepEqual(b.second, { status: 'HEALTHY', membership: { 'beta.g3': true, 'alpha.g1': false } }, where('cached lookup'));
  assert.deepEqual(b.unknown, { status: 'HEALTHY', membership: {} }, where('store null → empty membership'));
  assert.equal(b.membershipCalls, 2, where('second lookup served from the cache'));
  assert.equal(b.queriedByHash, true, where('store queried by hashContextKey'));
  assert.deepEqual(b.status, { available: true, stale: false }, where('statusProvider.getStatus'));
  assert.deepEqual(b.lastStatus, { available: true, stale: false }, where('statusProvider.lastStatus'));
  assert.deepEqual(b.afterStale, { status: 'STALE', lastStatus: { available: true, stale: true } }, where('on-demand status poll without start()'));
  assert.deepEqual(b.listened, [{ available: true, stale: true }], where('status listener'));
  assert.deepEqual(
    pick(b.stats, ['lookups', 'cacheHits', 'cacheMisses', 'membershipQueries', 'membershipErrors', 'statusErrors']),
    { lookups: 4, cacheHits: 2, cacheMisses: 2, membershipQueries: 2, membershipErrors: 0, statusErrors: 0 },
    where('manager stats'),
  );
  assert.ok(b.stats.statusPolls >= 2, where('status polled again on demand'));
  assert.equal(b.closeCalls, 1, where('close() awaits store.close once (idempotent)'));
  assert.equal(b.afterClose.ok, false, where('lookup after close rejects'));
  assert.deepEqual(b.notConfigured, { membership: null, status: 'NOT_CONFIGURED' }, where('no store'));
  assert.deepEqual(b.storeError, { status: 'STORE_ERROR', membership: { 's.g1': true } }, where('metadata error'));
  assert.deepEqual(b.alias, { status: 'HEALTHY', membership: { 'ld.g2': true } }, where('getUserMembership alias'));
  assert.equal(b.invalidOption?.name, 'RangeError', where('invalid option'));
  assert.match(b.invalidOption?.message ?? '', /contextCacheSize/, where('invalid option named'));
}

/** The last line of `stdout` that parses as a JSON object tagged by the fixture. */
export function parseReport(stdout, tag = 'CUTOVER_REPORT ') {
  const line = stdout.split('\n').reverse().find((l) => l.startsWith(tag));
  assert.ok(line, `no ${tag.trim()} line in output:\n${stdout}`);
  return JSON.parse(line.slice(tag.length));
}

/** The JSON body of a worker's Response, once asserted to be a 200 (the body as the message). */
export async function jsonAnswer(res) {
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}
