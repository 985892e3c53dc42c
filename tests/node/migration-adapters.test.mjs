// Adapters and tracker delegation — API.md §1 "Adapters", ExternalTracker; SPEC.md A9 (tracker delegation,
// LaunchDarkly trackMigration form, fixedStage validation).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MigratorBuilder, fixedStage, launchDarklyClient, migrationVariation } from 'cutover';
import { CTX, STAGES, makeFakeTracker, makeLogger, measurement, servedValue } from './helpers/migration.mjs';

function migratorFor(client, { logger, comparison, readOld, readNew, trackLatency, trackErrors } = {}) {
  const b = new MigratorBuilder(client, { logger: logger ?? makeLogger().logger });
  if (trackLatency !== undefined) b.trackLatency(trackLatency);
  if (trackErrors !== undefined) b.trackErrors(trackErrors);
  return b
    .read(readOld ?? (() => 'old-value'), readNew ?? (() => 'new-value'), comparison)
    .write(() => 'old-written', () => 'new-written')
    .build();
}

// ---------- fixedStage ----------

for (const stage of STAGES) {
  test(`fixedStage('${stage}') serves ${stage} for every flag`, async () => {
    const client = fixedStage(stage);
    assert.equal(typeof client.migrationVariation, 'function');
    for (const key of ['a', 'b']) {
      const served = await client.migrationVariation(key, CTX, stage === 'off' ? 'live' : 'off');
      assert.equal(servedValue(served), stage);
    }
    const res = await migrationVariation(client, 'any', CTX, stage === 'off' ? 'live' : 'off');
    assert.equal(res.stage, stage);
  });
}

test('fixedStage drives a migrator; events go nowhere without errors', async () => {
  const log = makeLogger();
  const m = migratorFor(fixedStage('live'), { logger: log.logger, comparison: () => true });
  const r = await m.read('k', CTX, 'off');
  assert.equal(r.origin, 'new');
  const w = await m.write('k', CTX, 'off');
  assert.deepEqual([w.authoritative.origin, w.nonAuthoritative.origin], ['new', 'old']);
  assert.equal(log.texts('error').length, 0);
  const c = fixedStage('off');
  if (c.trackMigrationOp !== undefined) {
    assert.equal(typeof c.trackMigrationOp, 'function');
    c.trackMigrationOp({ kind: 'migration_op' });
  }
});

test('fixedStage with an invalid stage throws TypeError at once', () => {
  for (const bad of ['bogus', 'LIVE', '', undefined, null, 3, {}]) {
    assert.throws(() => fixedStage(bad), (e) => e instanceof TypeError, String(bad));
  }
  assert.throws(() => fixedStage('bogus'), (e) => /bogus|stage/i.test(e.message));
});

// ---------- launchDarklyClient with a fake LD-shaped client ----------

function fakeLD(opts = {}) {
  const { value = 'shadow', reject } = opts;
  const tracker = 'tracker' in opts ? opts.tracker : makeFakeTracker();
  const ld = {
    asks: [],
    sent: [],
    tracker,
    async migrationVariation(key, context, defaultStage) {
      ld.asks.push([key, context, defaultStage]);
      if (reject) throw reject;
      return { value, tracker: ld.tracker };
    },
    trackMigration(event) {
      ld.sent.push(event);
    },
  };
  return ld;
}

test('launchDarklyClient: asks LD with (key, context, default) and uses its value', async () => {
  const ld = fakeLD({ value: 'rampdown' });
  const m = migratorFor(launchDarklyClient(ld));
  const r = await m.read('mig', CTX, 'off');
  assert.equal(r.origin, 'new');
  assert.deepEqual(ld.asks, [['mig', CTX, 'off']]);
});

test('launchDarklyClient: measurements go to the LD tracker, op() first, createEvent() once, sent unchanged', async () => {
  const ld = fakeLD({ value: 'shadow' });
  const m = migratorFor(launchDarklyClient(ld), {
    comparison: (a, b) => a === 'old-value' && b === 'new-value',
    readNew: () => {
      throw new Error('new failed');
    },
  });
  const r = await m.read('mig', CTX, 'off');
  assert.equal(r.value, 'old-value');
  const calls = ld.tracker.calls;
  assert.deepEqual(calls[0], ['op', 'read']);
  assert.deepEqual(calls.filter((c) => c[0] === 'createEvent'), [['createEvent']]);
  assert.equal(calls.at(-1)[0], 'createEvent');
  const names = (n) => calls.filter((c) => c[0] === n).map((c) => c[1]).sort();
  assert.deepEqual(names('invoked'), ['new', 'old']);
  assert.deepEqual(names('latency'), ['new', 'old']);
  for (const c of calls.filter((x) => x[0] === 'latency')) assert.ok(typeof c[2] === 'number' && c[2] >= 0);
  assert.deepEqual(names('error'), ['new']);
  assert.equal(names('consistency').length, 0, 'no consistency check when an origin failed');
  assert.equal(ld.sent.length, 1);
  assert.equal(ld.sent[0], ld.tracker.createdEvent, 'the createEvent() object is what trackMigration receives');
});

test('launchDarklyClient: the consistency check is handed to the LD tracker, which decides', async () => {
  let compared = 0;
  const ld = fakeLD({ value: 'live', tracker: makeFakeTracker({ sample: true }) });
  const m = migratorFor(launchDarklyClient(ld), {
    comparison: (a, b) => {
      compared++;
      return a !== b;
    },
  });
  await m.read('mig', CTX, 'off');
  assert.equal(compared, 1);
  assert.deepEqual(ld.tracker.calls.find((c) => c[0] === 'consistency-result'), ['consistency-result', true]);

  const ld2 = fakeLD({ value: 'live', tracker: makeFakeTracker({ sample: false }) });
  const m2 = migratorFor(launchDarklyClient(ld2), { comparison: () => ++compared > 0 });
  await m2.read('mig', CTX, 'off');
  assert.equal(compared, 1, 'not sampled by the tracker → comparison never runs');
  assert.ok(ld2.tracker.calls.some((c) => c[0] === 'consistency'));
});

test('launchDarklyClient: write operations call op("write") first', async () => {
  const ld = fakeLD({ value: 'dualwrite' });
  const m = migratorFor(launchDarklyClient(ld));
  await m.write('mig', CTX, 'off');
  assert.deepEqual(ld.tracker.calls[0], ['op', 'write']);
  assert.deepEqual(ld.tracker.calls.filter((c) => c[0] === 'invoked').map((c) => c[1]), ['old', 'new']);
  assert.equal(ld.sent.length, 1);
});

test('launchDarklyClient: trackLatency(false)/trackErrors(false) still hold with the LD tracker', async () => {
  const ld = fakeLD({ value: 'shadow' });
  const m = migratorFor(launchDarklyClient(ld), {
    trackLatency: false,
    trackErrors: false,
    readOld: () => {
      throw new Error('x');
    },
  });
  await m.read('mig', CTX, 'off');
  assert.equal(ld.tracker.calls.filter((c) => c[0] === 'latency' || c[0] === 'error').length, 0);
  assert.equal(ld.tracker.calls.filter((c) => c[0] === 'invoked').length, 2);
});

test('launchDarklyClient: an LD client that rejects → default stage', async () => {
  const ld = fakeLD({ reject: new Error('ld down') });
  const m = migratorFor(launchDarklyClient(ld));
  const r = await m.read('mig', CTX, 'complete');
  assert.equal(r.origin, 'new');
});

test('launchDarklyClient without an LD tracker: cutover event reaches trackMigration with a numeric consistent samplingRatio', async () => {
  const ld = fakeLD({ value: 'shadow', tracker: undefined });
  const m = migratorFor(launchDarklyClient(ld), { comparison: () => true });
  await m.read('mig', CTX, 'off');
  assert.equal(ld.sent.length, 1);
  const e = ld.sent[0];
  assert.equal(e.kind, 'migration_op');
  assert.equal(e.operation, 'read');
  assert.equal(e.evaluation.key, 'mig');
  assert.equal(e.evaluation.value, 'shadow');
  assert.deepEqual(measurement(e, 'consistent'), { key: 'consistent', value: true, samplingRatio: 1 });
});

// ---------- tracker delegation through any MigrationClient ----------

function trackerClient(tracker, extra = {}) {
  const sent = [];
  const client = {
    migrationVariation: () => ({ value: 'shadow', tracker, ...extra }),
    trackMigrationOp: (e) => sent.push(e),
  };
  return { client, sent };
}

test('delegation: no sampling on top of the tracker (samplingRatio/checkRatio 0 in the evaluation are ignored)', async () => {
  const tracker = makeFakeTracker({ sample: true });
  let compared = 0;
  const { client, sent } = trackerClient(tracker, { samplingRatio: 0, checkRatio: 0 });
  const m = migratorFor(client, { comparison: () => ++compared > 0 });
  for (let i = 0; i < 5; i++) await m.read('k', CTX, 'off');
  assert.equal(sent.length, 5);
  for (const e of sent) assert.equal(e, tracker.createdEvent);
  assert.equal(compared, 5);
  assert.equal(tracker.calls.filter((c) => c[0] === 'consistency').length, 5);
});

test('delegation: createEvent() returning undefined → nothing sent, debug log', async () => {
  const tracker = makeFakeTracker({ event: undefined });
  const log = makeLogger();
  const { client, sent } = trackerClient(tracker);
  const m = migratorFor(client, { logger: log.logger });
  const r = await m.read('k', CTX, 'off');
  assert.equal(r.value, 'old-value');
  assert.equal(sent.length, 0);
  assert.ok(log.texts('debug').length >= 1, 'a debug line was logged');
});

test('delegation: a throwing tracker method is logged at error level and the operation goes on', async () => {
  const tracker = makeFakeTracker();
  tracker.latency = () => {
    throw new Error('tracker latency broke');
  };
  const log = makeLogger();
  const { client, sent } = trackerClient(tracker);
  const m = migratorFor(client, { logger: log.logger, comparison: () => true });
  const r = await m.read('k', CTX, 'off');
  assert.equal(r.success, true);
  assert.equal(r.value, 'old-value');
  assert.ok(log.texts('error').length >= 1);
  assert.equal(sent.length, 1);
  assert.equal(sent[0], tracker.createdEvent);
});

test('delegation: a throwing op()/createEvent() never fails the operation', async () => {
  for (const broken of ['op', 'createEvent', 'invoked', 'consistency']) {
    const tracker = makeFakeTracker();
    tracker[broken] = () => {
      throw new Error(`${broken} broke`);
    };
    const log = makeLogger();
    const { client } = trackerClient(tracker);
    const m = migratorFor(client, { logger: log.logger, comparison: () => true });
    const r = await m.read('k', CTX, 'off');
    assert.equal(r.value, 'old-value', broken);
    const w = await m.write('k', CTX, 'off');
    assert.equal(w.authoritative.value, 'old-written', broken);
    assert.ok(log.texts('error').length >= 1, broken);
  }
});

test('delegation: a tracker lacking a method is not used (error log); cutover’s own event is sent', async () => {
  for (const missing of ['op', 'invoked', 'latency', 'error', 'consistency', 'createEvent']) {
    const tracker = makeFakeTracker();
    delete tracker[missing];
    const log = makeLogger();
    const { client, sent } = trackerClient(tracker);
    const m = migratorFor(client, { logger: log.logger, comparison: () => true });
    await m.read('k', CTX, 'off');
    assert.equal(tracker.calls.length, 0, `${missing}: tracker not used`);
    assert.ok(log.texts('error').length >= 1, `${missing}: error logged`);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].kind, 'migration_op');
    assert.deepEqual(sent[0].evaluation, { key: 'k', value: 'shadow', default: 'off' });
    assert.deepEqual(measurement(sent[0], 'invoked').values, { old: true, new: true });
    assert.deepEqual(measurement(sent[0], 'consistent'), { key: 'consistent', value: true });
  }
});

test('delegation: a served value that is not a stage runs at the default stage even with a tracker', async () => {
  const tracker = makeFakeTracker();
  const client = { migrationVariation: () => ({ value: 'SHADOW', tracker }), trackMigrationOp() {} };
  const m = migratorFor(client);
  const r = await m.read('k', CTX, 'complete');
  assert.equal(r.origin, 'new');
  const r2 = await migratorFor(client).read('k', CTX, 'live');
  assert.equal(r2.origin, 'new');
  const r3 = await migratorFor(client).read('k', CTX, 'dualwrite');
  assert.equal(r3.origin, 'old');
});

test('exported migrationVariation() returns the external tracker itself', async () => {
  const tracker = makeFakeTracker();
  const res = await migrationVariation({ migrationVariation: () => ({ value: 'live', tracker }) }, 'k', CTX, 'off');
  assert.equal(res.stage, 'live');
  assert.equal(res.tracker, tracker);
  const ld = fakeLD({ value: 'rampdown' });
  const res2 = await migrationVariation(launchDarklyClient(ld), 'k', CTX, 'off');
  assert.equal(res2.stage, 'rampdown');
  assert.equal(res2.tracker, ld.tracker);
});

// ---------- the real LaunchDarkly Node SDK (offline data via TestData) ----------

test('launchDarklyClient with the real @launchdarkly/node-server-sdk: LD’s own event with every measurement', async (t) => {
  const { init, integrations } = await import('@launchdarkly/node-server-sdk');
  const td = new integrations.TestData();
  await td.usePreconfiguredFlag({
    key: 'mig',
    version: 7,
    on: true,
    variations: ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'],
    fallthrough: { variation: 2 },
    offVariation: 0,
    samplingRatio: 3,
    migration: { checkRatio: 1 },
    salt: 's',
  });
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const ld = init('sdk-key-for-tests', {
    updateProcessor: td.getFactory(),
    sendEvents: false,
    diagnosticOptOut: true,
    logger: silent,
  });
  t.after(() => ld.close());
  await ld.waitForInitialization({ timeout: 5 });
  const sent = [];
  ld.trackMigration = (event) => sent.push(event);
  const m = migratorFor(launchDarklyClient(ld), {
    comparison: (a, b) => a === 'same' && b === 'same',
    readOld: () => 'same',
    readNew: async () => 'same',
  });
  const r = await m.read('mig', { kind: 'user', key: 'u1' }, 'off');
  assert.equal(r.origin, 'old');
  assert.equal(r.value, 'same');
  assert.equal(sent.length, 1);
  const e = sent[0];
  assert.equal(e.kind, 'migration_op');
  assert.equal(e.operation, 'read');
  assert.deepEqual(e.context, { kind: 'user', key: 'u1' });
  assert.deepEqual(e.evaluation, {
    key: 'mig',
    value: 'shadow',
    default: 'off',
    reason: { kind: 'FALLTHROUGH' },
    variation: 2,
    version: 7,
  });
  assert.equal(e.samplingRatio, 3);
  assert.deepEqual(measurement(e, 'invoked').values, { old: true, new: true });
  assert.deepEqual(measurement(e, 'consistent'), { key: 'consistent', value: true, samplingRatio: 1 });
  const lat = measurement(e, 'latency_ms').values;
  assert.equal(typeof lat.old, 'number');
  assert.equal(typeof lat.new, 'number');

  const w = await m.write('mig', { kind: 'user', key: 'u1' }, 'off');
  assert.equal(w.nonAuthoritative.origin, 'new');
  assert.equal(sent.length, 2);
  assert.equal(sent[1].operation, 'write');
  assert.deepEqual(measurement(sent[1], 'invoked').values, { old: true, new: true });
});
