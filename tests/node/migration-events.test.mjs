// Event wire format through the Migrator — SPEC.md A4, A6, A8; API.md MigrationOpEvent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MigratorBuilder } from 'cutover';
import { CTX, makeClient, makeLogger, normalizeEvent, setup, sleep, measurement } from './helpers/migration.mjs';

const FULL_EVAL = {
  value: 'shadow',
  variationIndex: 2,
  flagVersion: 42,
  reason: { kind: 'RULE_MATCH', ruleIndex: 0, ruleId: 'r1' },
};

test('shadow read, both succeed, consistent: exact event', async () => {
  const { migrator, events } = setup({ evaluation: FULL_EVAL, comparison: () => true });
  const before = Date.now();
  await migrator.read('mig-flag', CTX, 'live');
  const after = Date.now();
  assert.equal(events.length, 1);
  assert.ok(events[0].creationDate >= before - 1 && events[0].creationDate <= after + 1);
  assert.deepEqual(normalizeEvent(events[0]), {
    kind: 'migration_op',
    creationDate: 0,
    operation: 'read',
    context: { kind: 'user', key: 'u1' },
    evaluation: {
      key: 'mig-flag',
      value: 'shadow',
      default: 'live',
      reason: { kind: 'RULE_MATCH', ruleIndex: 0, ruleId: 'r1' },
      variation: 2,
      version: 42,
    },
    measurements: [
      { key: 'invoked', values: { old: true, new: true } },
      { key: 'consistent', value: true },
      { key: 'latency_ms', values: { old: 0, new: 0 } },
    ],
  });
});

test('off read: exact event with only the old origin', async () => {
  const { migrator, events } = setup({ stage: 'off' });
  await migrator.read('m', { key: 'legacy-user' }, 'off');
  assert.deepEqual(normalizeEvent(events[0]), {
    kind: 'migration_op',
    creationDate: 0,
    operation: 'read',
    context: { key: 'legacy-user' },
    evaluation: { key: 'm', value: 'off', default: 'off' },
    measurements: [
      { key: 'invoked', values: { old: true } },
      { key: 'latency_ms', values: { old: 0 } },
    ],
  });
});

test('complete write with a failing new origin: exact event', async () => {
  const { migrator, events } = setup({ stage: 'complete', writeNew: () => Promise.reject(new Error('w')) });
  const ctx = { kind: 'multi', user: { key: 'u' }, org: { key: 'o', name: 'Acme' } };
  const r = await migrator.write('m', ctx, 'rampdown');
  assert.equal(r.authoritative.success, false);
  assert.deepEqual(normalizeEvent(events[0]), {
    kind: 'migration_op',
    creationDate: 0,
    operation: 'write',
    context: ctx,
    evaluation: { key: 'm', value: 'complete', default: 'rampdown' },
    measurements: [
      { key: 'invoked', values: { new: true } },
      { key: 'latency_ms', values: { new: 0 } },
      { key: 'error', values: { new: true } },
    ],
  });
});

test('dualwrite write, both succeed: exact event', async () => {
  const { migrator, events } = setup({ evaluation: { value: 'dualwrite', flagVersion: 3, samplingRatio: 1 } });
  await migrator.write('m', CTX, 'off');
  assert.deepEqual(normalizeEvent(events[0]), {
    kind: 'migration_op',
    creationDate: 0,
    operation: 'write',
    context: CTX,
    evaluation: { key: 'm', value: 'dualwrite', default: 'off', version: 3 },
    measurements: [
      { key: 'invoked', values: { old: true, new: true } },
      { key: 'latency_ms', values: { old: 0, new: 0 } },
    ],
  });
});

test('live read with both failing and an inconsistent-looking comparison: errors, no consistency', async () => {
  const { migrator, events } = setup({
    stage: 'live',
    readOld: () => { throw 'a'; },
    readNew: () => { throw 'b'; },
    comparison: () => false,
  });
  await migrator.read('m', CTX, 'off');
  assert.deepEqual(normalizeEvent(events[0]).measurements, [
    { key: 'invoked', values: { old: true, new: true } },
    { key: 'latency_ms', values: { old: 0, new: 0 } },
    { key: 'error', values: { old: true, new: true } },
  ]);
});

test('trackLatency(false): no latency_ms measurement', async () => {
  const { migrator, events } = setup({ stage: 'shadow', trackLatency: false, comparison: () => false });
  await migrator.read('m', CTX, 'off');
  assert.deepEqual(normalizeEvent(events[0]).measurements, [
    { key: 'invoked', values: { old: true, new: true } },
    { key: 'consistent', value: false },
  ]);
});

test('trackErrors(false): no error measurement, failures still reported as results', async () => {
  const { migrator, events } = setup({
    stage: 'shadow',
    trackErrors: false,
    readOld: () => { throw new Error('o'); },
    writeOld: () => { throw new Error('w'); },
  });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.success, false);
  const w = await migrator.write('m', CTX, 'off');
  assert.equal(w.authoritative.success, false);
  for (const e of events) assert.equal(measurement(e, 'error'), undefined);
  assert.deepEqual(normalizeEvent(events[0]).measurements, [
    { key: 'invoked', values: { old: true, new: true } },
    { key: 'latency_ms', values: { old: 0, new: 0 } },
  ]);
});

test('trackLatency(true)/trackErrors(true) after false turn them back on', async () => {
  const { builder, events } = setup({ stage: 'off', trackLatency: false, trackErrors: false, readOld: () => { throw 1; } });
  builder.trackLatency(true).trackErrors(true);
  await builder.build().read('m', CTX, 'off');
  assert.deepEqual(normalizeEvent(events[0]).measurements, [
    { key: 'invoked', values: { old: true } },
    { key: 'latency_ms', values: { old: 0 } },
    { key: 'error', values: { old: true } },
  ]);
});

test('latency is measured in milliseconds, failures included', async () => {
  const { migrator, events } = setup({
    stage: 'live',
    readOld: async () => {
      await sleep(60);
      return 'o';
    },
    readNew: async () => {
      await sleep(20);
      throw new Error('late failure');
    },
  });
  await migrator.read('m', CTX, 'off');
  const lat = measurement(events[0], 'latency_ms').values;
  assert.ok(lat.old >= 55 && lat.old < 1000, `old latency ${lat.old}`);
  assert.ok(lat.new >= 15 && lat.new < lat.old, `new latency ${lat.new}`);
});

test('synchronous origins get a small non-negative latency', async () => {
  const { migrator, events } = setup({ stage: 'shadow' });
  await migrator.read('m', CTX, 'off');
  const lat = measurement(events[0], 'latency_ms').values;
  for (const k of ['old', 'new']) {
    assert.equal(typeof lat[k], 'number');
    assert.ok(lat[k] >= 0 && lat[k] < 50, `${k} latency ${lat[k]}`);
  }
});

test('the event is sent before read/write resolve, exactly once per operation', async () => {
  const { migrator, events } = setup({ stage: 'shadow', comparison: () => true });
  await migrator.read('m', CTX, 'off');
  assert.equal(events.length, 1);
  await migrator.write('m', CTX, 'off');
  assert.equal(events.length, 2);
  await sleep(20);
  assert.equal(events.length, 2);
  assert.deepEqual(events.map((e) => e.operation), ['read', 'write']);
});

test('a string evaluation yields an evaluation with only key, value and default', async () => {
  const c = makeClient(() => 'rampdown');
  const m = new MigratorBuilder(c.client).read(() => 1, () => 2).write(() => 1, () => 2).build();
  await m.read('str', CTX, 'complete');
  assert.deepEqual(c.events[0].evaluation, { key: 'str', value: 'rampdown', default: 'complete' });
});

test('an async client evaluation works like a sync one', async () => {
  const c = makeClient(async () => ({ value: 'live', variationIndex: 3, flagVersion: 9, reason: { kind: 'TARGET_MATCH' } }));
  const m = new MigratorBuilder(c.client).read(() => 1, () => 2).write(() => 1, () => 2).build();
  const r = await m.read('k', CTX, 'off');
  assert.equal(r.value, 2);
  assert.deepEqual(c.events[0].evaluation, {
    key: 'k',
    value: 'live',
    default: 'off',
    variation: 3,
    version: 9,
    reason: { kind: 'TARGET_MATCH' },
  });
});

test('the context goes into the event as given (extra attributes kept)', async () => {
  const ctx = { kind: 'org', key: 'o1', name: 'Acme', tier: 3, _meta: { privateAttributes: ['tier'] } };
  const { migrator, events, client } = setup({ stage: 'off' });
  await migrator.read('m', ctx, 'off');
  assert.deepEqual(events[0].context, ctx);
  assert.deepEqual(client.asks[0], { key: 'm', context: ctx, defaultStage: 'off' });
});

test('a client without trackMigrationOp works', async () => {
  const m = new MigratorBuilder({ migrationVariation: () => 'shadow' }, { logger: makeLogger().logger })
    .read(() => 1, () => 1, (a, b) => a === b)
    .write(() => 1, () => 1)
    .build();
  assert.equal((await m.read('k', CTX, 'off')).value, 1);
  assert.equal((await m.write('k', CTX, 'off')).nonAuthoritative.value, 1);
});

test('events are plain JSON-serialisable objects', async () => {
  const { migrator, events } = setup({ evaluation: FULL_EVAL, comparison: () => true });
  await migrator.read('m', CTX, 'off');
  const e = events[0];
  assert.equal(Object.getPrototypeOf(e), Object.prototype);
  assert.ok(Array.isArray(e.measurements));
  const round = JSON.parse(JSON.stringify(e));
  assert.deepEqual(round, e);
});

test('default logger is console at level warn: errors reach console, debug does not', async () => {
  const captured = [];
  const orig = {};
  for (const m of ['debug', 'info', 'warn', 'error', 'log', 'trace']) {
    orig[m] = console[m];
    console[m] = (...a) => captured.push([m, a.map(String).join(' ')]);
  }
  try {
    const c = makeClient({ value: 'shadow', tracker: { op() {}, invoked() {}, latency() {}, error() {}, consistency() {}, createEvent() { return undefined; } } });
    const m = new MigratorBuilder(c.client).read(() => 1, () => 1).write(() => 1, () => 1).build();
    await m.read('k', CTX, 'not-a-stage');
  } finally {
    Object.assign(console, orig);
  }
  assert.ok(
    captured.some(([, text]) => text.includes(`default stage "not-a-stage" is not a valid stage; using 'off' instead`)),
    JSON.stringify(captured),
  );
  assert.ok(!captured.some(([level]) => level === 'debug' || level === 'info'), JSON.stringify(captured));
  // the only line at warn level or above is the invalid-default one (the debug line is filtered out)
  assert.equal(captured.length, 1, JSON.stringify(captured));
  assert.ok(['error', 'warn'].includes(captured[0][0]), JSON.stringify(captured));
});
