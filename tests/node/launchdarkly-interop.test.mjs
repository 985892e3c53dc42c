// Interop with the real LaunchDarkly Node server SDK (@launchdarkly/node-server-sdk).
//
// A cutover migrator built on `launchDarklyClient(ldClient)` must hand every measurement it takes
// to LaunchDarkly's own tracker, so that the `migration_op` events LaunchDarkly sends carry exactly
// what cutover measured, with the flag's version, checkRatio and samplingRatio as LaunchDarkly
// records them (API.md §1 "Adapters", SPEC.md A9 "Tracker delegation").
//
// The SDK gets its flags from TestData and sends its events to a local HTTP server, which keeps
// the POST bodies of the bulk endpoint. For each scenario the same operation is also run through
// LaunchDarkly's own `createMigration` as a reference: both events must have the same shape
// (everything but `creationDate` and the latency numbers).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createMigration,
  LDMigrationSuccess,
  LDMigrationError,
  LDSerialExecution,
  LDExecutionOrdering,
} from '@launchdarkly/node-server-sdk';
import { MigratorBuilder, launchDarklyClient, failure } from 'cutover';
import { bulkEvents, eventShape as shape, migrationOps, startLaunchDarkly } from './helpers/launchdarkly.mjs';

const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];
const STAGE_INDEX = Object.fromEntries(STAGES.map((s, i) => [s, i]));
const CONTEXT = Object.freeze({ kind: 'user', key: 'u1', name: 'Ann' });

// ---------------------------------------------------------------------------------------------
// Fixture: event capture server, TestData, LaunchDarkly client (helpers/launchdarkly.mjs), loggers
// ---------------------------------------------------------------------------------------------

let ld;
let td;
let ldClient;

function recordingLogger() {
  const lines = { debug: [], info: [], warn: [], error: [] };
  const logger = {};
  for (const level of Object.keys(lines)) {
    logger[level] = (...args) => {
      lines[level].push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(' '));
    };
  }
  return { logger, lines };
}
const ldLog = recordingLogger();
const cutoverLog = recordingLogger();

before(async () => {
  ld = await startLaunchDarkly('sdk-interop-test-key', { logger: ldLog.logger });
  ({ td, client: ldClient } = ld);
});

after(async () => {
  await ld?.close();
});

/** Flushes LaunchDarkly's event queue and returns (and forgets) every event captured so far. */
const drainEvents = async () => bulkEvents(await ld.flush());

/** Sum of the summary counters LaunchDarkly recorded for one flag (= number of evaluations). */
function evaluationsOf(events, flagKey) {
  let n = 0;
  for (const e of events) {
    if (e.kind !== 'summary' || !e.features?.[flagKey]) continue;
    for (const c of e.features[flagKey].counters) n += c.count;
  }
  return n;
}

function stageFlag(key, stage) {
  return td.flag(key).variations(...STAGES).fallthroughVariation(STAGE_INDEX[stage]).checkRatio(1);
}

// ---------------------------------------------------------------------------------------------
// Origins: one spec drives both a cutover origin and an equivalent LaunchDarkly origin
// ---------------------------------------------------------------------------------------------

/**
 * spec: { ms, value, fail?: 'throw' | 'failure' }
 * `calls` records [name, payload] for every call, in call order.
 */
function cutoverOrigin(name, spec, calls) {
  return async (payload, signal) => {
    calls.push([name, payload, signal]);
    await sleep(spec.ms);
    if (spec.fail === 'throw') throw new Error(`${name} failed`);
    if (spec.fail === 'failure') return failure(new Error('x'));
    return spec.value;
  };
}
function ldOrigin(name, spec, calls) {
  return async (payload) => {
    calls.push([name, payload]);
    await sleep(spec.ms);
    if (spec.fail) return LDMigrationError(new Error(`${name} failed`));
    return LDMigrationSuccess(spec.value);
  };
}

/**
 * Runs one operation through cutover and then the same one through LaunchDarkly's createMigration.
 * Returns the cutover result, its captured events, the migrator and the reference event.
 */
async function runBoth({ op, flagKey, defaultStage, context = CONTEXT, payload, origins, compare }) {
  const calls = [];
  const compareCalls = [];
  const cmp = compare && ((a, b) => (compareCalls.push([a, b]), compare(a, b)));
  const builder = new MigratorBuilder(launchDarklyClient(ldClient), { logger: cutoverLog.logger });
  const o = origins;
  if (cmp) {
    builder.read(cutoverOrigin('readOld', o.readOld, calls), cutoverOrigin('readNew', o.readNew, calls), cmp);
  } else {
    builder.read(cutoverOrigin('readOld', o.readOld, calls), cutoverOrigin('readNew', o.readNew, calls));
  }
  builder.write(cutoverOrigin('writeOld', o.writeOld, calls), cutoverOrigin('writeNew', o.writeNew, calls));
  const migrator = builder.build();

  await drainEvents(); // start from an empty queue
  const result = await migrator[op](flagKey, context, defaultStage, payload);
  const events = await drainEvents();

  // Reference: LaunchDarkly's own migration, serial so that the call order is deterministic too.
  const refCalls = [];
  const ref = createMigration(ldClient, {
    readOld: ldOrigin('readOld', o.readOld, refCalls),
    readNew: ldOrigin('readNew', o.readNew, refCalls),
    writeOld: ldOrigin('writeOld', o.writeOld, refCalls),
    writeNew: ldOrigin('writeNew', o.writeNew, refCalls),
    ...(compare ? { check: compare } : {}),
    execution: new LDSerialExecution(LDExecutionOrdering.Fixed),
  });
  const refResult = await ref[op](flagKey, context, defaultStage, payload);
  const refEvents = migrationOps(await drainEvents());
  assert.equal(refEvents.length, 1, 'LaunchDarkly reference migration must emit one migration_op');

  return { result, events, migrator, calls, compareCalls, refResult, refEvent: refEvents[0], refCalls };
}

// ---------------------------------------------------------------------------------------------
// Assertions shared by the scenarios
// ---------------------------------------------------------------------------------------------

const measurement = (ev, key) => ev.measurements.find((m) => m.key === key);

/**
 * Checks one captured migration_op event.
 * expected: { operation, evaluation, samplingRatio?, invoked, consistent?: {value, samplingRatio},
 *             errors?: {old?, new?}, minLatency: {old?, new?} }
 */
function assertEvent(ev, expected, before, afterTs) {
  assert.equal(ev.kind, 'migration_op');
  assert.equal(ev.operation, expected.operation);
  assert.equal(typeof ev.creationDate, 'number');
  assert.ok(ev.creationDate >= before - 5 && ev.creationDate <= afterTs + 5,
    `creationDate ${ev.creationDate} must be taken during the operation [${before}, ${afterTs}]`);
  assert.deepEqual(ev.context, { ...CONTEXT, ...(expected.context ?? {}) });
  assert.deepEqual(ev.evaluation, expected.evaluation);
  if (expected.samplingRatio === undefined) {
    assert.equal('samplingRatio' in ev, false, 'samplingRatio 1 is omitted on the wire');
  } else {
    assert.equal(ev.samplingRatio, expected.samplingRatio);
  }

  const keys = ['invoked'];
  if (expected.consistent) keys.push('consistent');
  keys.push('latency_ms');
  if (expected.errors) keys.push('error');
  assert.deepEqual(ev.measurements.map((m) => m.key), keys, 'measurements and their order');

  assert.deepEqual(measurement(ev, 'invoked').values, expected.invoked);
  if (expected.consistent) {
    assert.deepEqual(measurement(ev, 'consistent'), { key: 'consistent', ...expected.consistent });
  }
  const latency = measurement(ev, 'latency_ms').values;
  assert.deepEqual(Object.keys(latency).sort(), Object.keys(expected.invoked).sort(),
    'a latency for exactly the invoked origins');
  for (const [origin, ms] of Object.entries(latency)) {
    assert.equal(typeof ms, 'number');
    assert.ok(Number.isFinite(ms) && ms > 0, `latency_ms.${origin} = ${ms} must be > 0`);
    const min = expected.minLatency?.[origin] ?? 0;
    assert.ok(ms >= min, `latency_ms.${origin} = ${ms} must cover the origin's ${min} ms sleep`);
    assert.ok(ms < 2000, `latency_ms.${origin} = ${ms} is implausibly large (unit must be ms)`);
  }
  if (expected.errors) assert.deepEqual(measurement(ev, 'error').values, expected.errors);
}

/** byStage without zero entries (an implementation may list every stage). */
const nonZero = (byStage) => Object.fromEntries(Object.entries(byStage).filter(([, n]) => n !== 0));

const approx = (actual, expected, what) =>
  assert.ok(Math.abs(actual - expected) <= 0.025 * Math.abs(expected) + 0.05,
    `${what}: ${actual} should be within 2% of ${expected}`);

/**
 * migrator.stats() must agree with what the events say. Valid when every operation produced an
 * event (samplingRatio 1) and every consistency check was sampled (checkRatio 1).
 */
function assertStatsAgree(stats, events) {
  for (const op of ['read', 'write']) {
    const evs = events.filter((e) => e.operation === op);
    const s = stats[op];
    assert.equal(s.count, evs.length, `${op}.count`);
    const byStage = {};
    for (const e of evs) byStage[e.evaluation.value] = (byStage[e.evaluation.value] ?? 0) + 1;
    assert.deepEqual(nonZero(s.byStage), byStage, `${op}.byStage`);
    for (const origin of ['old', 'new']) {
      const o = s[origin];
      const invoked = evs.filter((e) => measurement(e, 'invoked')?.values[origin]).length;
      const errors = evs.filter((e) => measurement(e, 'error')?.values[origin]).length;
      const lat = evs.map((e) => measurement(e, 'latency_ms')?.values[origin]).filter((v) => v !== undefined);
      assert.equal(o.invoked, invoked, `${op}.${origin}.invoked`);
      assert.equal(o.errors, errors, `${op}.${origin}.errors`);
      assert.equal(o.timeouts, 0, `${op}.${origin}.timeouts`);
      if (lat.length === 0) {
        assert.equal(o.latencyMs, null, `${op}.${origin}.latencyMs is null when never timed`);
      } else {
        assert.equal(o.latencyMs.count, lat.length, `${op}.${origin}.latencyMs.count`);
        approx(o.latencyMs.max, Math.max(...lat), `${op}.${origin}.latencyMs.max`);
        approx(o.latencyMs.mean, lat.reduce((a, b) => a + b, 0) / lat.length, `${op}.${origin}.latencyMs.mean`);
        if (lat.length === 1) {
          for (const p of ['p50', 'p90', 'p99']) approx(o.latencyMs[p], lat[0], `${op}.${origin}.latencyMs.${p}`);
        }
      }
    }
    const checks = evs.map((e) => measurement(e, 'consistent')).filter(Boolean);
    assert.deepEqual({ ...s.consistency }, {
      checked: checks.length,
      consistent: checks.filter((c) => c.value === true).length,
      paths: {},
    }, `${op}.consistency`);
  }
}

const OK = (ms, value) => ({ ms, value });

// ---------------------------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------------------------

test('shadow read with a comparison: invoked, consistent and latency reach LaunchDarkly', async () => {
  await td.update(stageFlag('mig-shadow', 'shadow'));
  const t0 = Date.now();
  const payload = { id: 42 };
  const r = await runBoth({
    op: 'read', flagKey: 'mig-shadow', defaultStage: 'off', payload,
    origins: {
      readOld: OK(4, { src: 'old', v: 1 }), readNew: OK(2, { src: 'new', v: 1 }),
      writeOld: OK(1, 'w'), writeNew: OK(1, 'w'),
    },
    compare: (a, b) => a.v === b.v,
  });
  const t1 = Date.now();

  assert.deepEqual(r.result, { origin: 'old', success: true, value: { src: 'old', v: 1 } });
  assert.deepEqual(r.calls.map((c) => c[0]).sort(), ['readNew', 'readOld']);
  for (const c of r.calls) assert.equal(c[1], payload, 'the payload goes unchanged to every origin');
  assert.deepEqual(r.compareCalls, [[{ src: 'old', v: 1 }, { src: 'new', v: 1 }]], 'comparison sees (old, new) once');

  const ops = migrationOps(r.events);
  assert.equal(ops.length, 1, 'exactly one migration_op per operation');
  assertEvent(ops[0], {
    operation: 'read',
    evaluation: { key: 'mig-shadow', value: 'shadow', default: 'off', reason: { kind: 'FALLTHROUGH' }, variation: 2, version: 1 },
    invoked: { old: true, new: true },
    consistent: { value: true, samplingRatio: 1 },
    minLatency: { old: 3, new: 1 },
  }, t0, t1);
  assert.deepEqual(shape(ops[0]), shape(r.refEvent), 'same event shape as LaunchDarkly createMigration');
  assert.equal(evaluationsOf(r.events, 'mig-shadow'), 1, 'one flag evaluation per operation');
  assert.ok(r.events.some((e) => e.kind === 'index'), 'LaunchDarkly still sends its own index event');
  assertStatsAgree(r.migrator.stats(), ops);
});

test('live read with a mismatch: consistent=false, the new value is returned', async () => {
  await td.update(stageFlag('mig-live', 'live'));
  const t0 = Date.now();
  const r = await runBoth({
    op: 'read', flagKey: 'mig-live', defaultStage: 'off',
    origins: { readOld: OK(2, 'old-value'), readNew: OK(3, 'new-value'), writeOld: OK(1, 'w'), writeNew: OK(1, 'w') },
    compare: (a, b) => a === b,
  });
  const t1 = Date.now();

  assert.deepEqual(r.result, { origin: 'new', success: true, value: 'new-value' });
  assert.deepEqual(r.compareCalls, [['old-value', 'new-value']]);
  const ops = migrationOps(r.events);
  assert.equal(ops.length, 1);
  assertEvent(ops[0], {
    operation: 'read',
    evaluation: { key: 'mig-live', value: 'live', default: 'off', reason: { kind: 'FALLTHROUGH' }, variation: 3, version: 1 },
    invoked: { old: true, new: true },
    consistent: { value: false, samplingRatio: 1 },
    minLatency: { old: 1, new: 2 },
  }, t0, t1);
  assert.deepEqual(shape(ops[0]), shape(r.refEvent));
  assertStatsAgree(r.migrator.stats(), ops);
});

test('live write: new (authoritative) then old, latency for both, no consistency', async () => {
  // Updated twice: the event must carry the flag's current version (2), not a constant.
  await td.update(stageFlag('mig-write', 'off'));
  await td.update(stageFlag('mig-write', 'live'));
  const t0 = Date.now();
  const r = await runBoth({
    op: 'write', flagKey: 'mig-write', defaultStage: 'off', payload: 'row-7',
    origins: { readOld: OK(1, 'r'), readNew: OK(1, 'r'), writeOld: OK(3, 'old-ok'), writeNew: OK(2, 'new-ok') },
    compare: () => true,
  });
  const t1 = Date.now();

  assert.deepEqual(r.calls.map((c) => c[0]), ['writeNew', 'writeOld'], 'authoritative first, sequentially');
  assert.deepEqual(r.calls.map((c) => c[1]), ['row-7', 'row-7']);
  assert.deepEqual(r.result.authoritative, { origin: 'new', success: true, value: 'new-ok' });
  assert.deepEqual(r.result.nonAuthoritative, { origin: 'old', success: true, value: 'old-ok' });
  assert.equal(r.compareCalls.length, 0, 'writes never compare');

  const ops = migrationOps(r.events);
  assert.equal(ops.length, 1);
  assertEvent(ops[0], {
    operation: 'write',
    evaluation: { key: 'mig-write', value: 'live', default: 'off', reason: { kind: 'FALLTHROUGH' }, variation: 3, version: 2 },
    invoked: { old: true, new: true },
    minLatency: { old: 2, new: 1 },
  }, t0, t1);
  assert.deepEqual(shape(ops[0]), shape(r.refEvent));
  assertStatsAgree(r.migrator.stats(), ops);
});

test('shadow read, new origin fails with failure(): error measurement, no consistency', async () => {
  await td.update(stageFlag('mig-fail-new', 'shadow'));
  const t0 = Date.now();
  const r = await runBoth({
    op: 'read', flagKey: 'mig-fail-new', defaultStage: 'off',
    origins: {
      readOld: OK(3, 'old-value'), readNew: { ms: 2, fail: 'failure' },
      writeOld: OK(1, 'w'), writeNew: OK(1, 'w'),
    },
    compare: (a, b) => a === b,
  });
  const t1 = Date.now();

  assert.deepEqual(r.result, { origin: 'old', success: true, value: 'old-value' },
    'a shadow read returns old; the new failure does not change the result');
  assert.equal(r.compareCalls.length, 0, 'no comparison unless both origins succeeded');
  const ops = migrationOps(r.events);
  assert.equal(ops.length, 1);
  assertEvent(ops[0], {
    operation: 'read',
    evaluation: { key: 'mig-fail-new', value: 'shadow', default: 'off', reason: { kind: 'FALLTHROUGH' }, variation: 2, version: 1 },
    invoked: { old: true, new: true },
    errors: { new: true },
    minLatency: { old: 2, new: 1 },
  }, t0, t1);
  assert.deepEqual(shape(ops[0]), shape(r.refEvent));
  assertStatsAgree(r.migrator.stats(), ops);
});

test('live write, authoritative new origin throws: old never runs, error on new', async () => {
  await td.update(stageFlag('mig-fail-write', 'live'));
  const t0 = Date.now();
  const r = await runBoth({
    op: 'write', flagKey: 'mig-fail-write', defaultStage: 'off', payload: { k: 'v' },
    origins: {
      readOld: OK(1, 'r'), readNew: OK(1, 'r'),
      writeOld: OK(1, 'old-ok'), writeNew: { ms: 2, fail: 'throw' },
    },
  });
  const t1 = Date.now();

  assert.deepEqual(r.calls.map((c) => c[0]), ['writeNew']);
  assert.equal(r.result.authoritative.origin, 'new');
  assert.equal(r.result.authoritative.success, false);
  assert.ok(r.result.authoritative.error instanceof Error);
  assert.equal(r.result.authoritative.error.message, 'writeNew failed', 'the thrown value becomes error');
  assert.equal(r.result.nonAuthoritative, undefined);

  const ops = migrationOps(r.events);
  assert.equal(ops.length, 1);
  assertEvent(ops[0], {
    operation: 'write',
    evaluation: { key: 'mig-fail-write', value: 'live', default: 'off', reason: { kind: 'FALLTHROUGH' }, variation: 3, version: 1 },
    invoked: { new: true },
    errors: { new: true },
    minLatency: { new: 1 },
  }, t0, t1);
  assert.deepEqual(shape(ops[0]), shape(r.refEvent));
  assertStatsAgree(r.migrator.stats(), ops);
});

test('rampdown read through individual targeting: TARGET_MATCH, only new invoked', async () => {
  await td.update(stageFlag('mig-target', 'shadow').variationForUser('u1', STAGE_INDEX.rampdown));
  const t0 = Date.now();
  const r = await runBoth({
    op: 'read', flagKey: 'mig-target', defaultStage: 'off',
    origins: { readOld: OK(1, 'o'), readNew: OK(2, 'n'), writeOld: OK(1, 'w'), writeNew: OK(1, 'w') },
    compare: (a, b) => a === b,
  });
  const t1 = Date.now();

  assert.deepEqual(r.result, { origin: 'new', success: true, value: 'n' });
  assert.deepEqual(r.calls.map((c) => c[0]), ['readNew']);
  const ops = migrationOps(r.events);
  assert.equal(ops.length, 1);
  assertEvent(ops[0], {
    operation: 'read',
    evaluation: { key: 'mig-target', value: 'rampdown', default: 'off', reason: { kind: 'TARGET_MATCH' }, variation: 4, version: 1 },
    invoked: { new: true },
    minLatency: { new: 1 },
  }, t0, t1);
  assert.deepEqual(shape(ops[0]), shape(r.refEvent));
  assertStatsAgree(r.migrator.stats(), ops);
});

test('unknown flag: the default stage runs, with LaunchDarkly\'s FLAG_NOT_FOUND reason', async () => {
  const t0 = Date.now();
  const r = await runBoth({
    op: 'write', flagKey: 'mig-does-not-exist', defaultStage: 'dualwrite',
    origins: { readOld: OK(1, 'o'), readNew: OK(1, 'n'), writeOld: OK(2, 'wo'), writeNew: OK(1, 'wn') },
  });
  const t1 = Date.now();

  assert.deepEqual(r.calls.map((c) => c[0]), ['writeOld', 'writeNew']);
  assert.deepEqual(r.result.authoritative, { origin: 'old', success: true, value: 'wo' });
  assert.deepEqual(r.result.nonAuthoritative, { origin: 'new', success: true, value: 'wn' });
  const ops = migrationOps(r.events);
  assert.equal(ops.length, 1);
  assertEvent(ops[0], {
    operation: 'write',
    evaluation: {
      key: 'mig-does-not-exist', value: 'dualwrite', default: 'dualwrite',
      reason: { kind: 'ERROR', errorKind: 'FLAG_NOT_FOUND' },
    },
    invoked: { old: true, new: true },
    minLatency: { old: 1 },
  }, t0, t1);
  assert.deepEqual(shape(ops[0]), shape(r.refEvent));
  assertStatsAgree(r.migrator.stats(), ops);
});

test('flag serving a non-stage value: default stage, WRONG_TYPE, flag version kept', async () => {
  await td.update(td.flag('mig-potato').variations('potato', ...STAGES).fallthroughVariation(0));
  const t0 = Date.now();
  const r = await runBoth({
    op: 'read', flagKey: 'mig-potato', defaultStage: 'complete',
    origins: { readOld: OK(1, 'o'), readNew: OK(1, 'n'), writeOld: OK(1, 'w'), writeNew: OK(1, 'w') },
  });
  const t1 = Date.now();

  assert.deepEqual(r.result, { origin: 'new', success: true, value: 'n' });
  const ops = migrationOps(r.events);
  assert.equal(ops.length, 1);
  assertEvent(ops[0], {
    operation: 'read',
    evaluation: {
      key: 'mig-potato', value: 'complete', default: 'complete',
      reason: { kind: 'ERROR', errorKind: 'WRONG_TYPE' }, version: 1,
    },
    invoked: { new: true },
  }, t0, t1);
  assert.deepEqual(shape(ops[0]), shape(r.refEvent));
  assertStatsAgree(r.migrator.stats(), ops);
});

test('the flag\'s checkRatio and samplingRatio decide sampling, as LaunchDarkly records them', async (t) => {
  // A full flag JSON with migration.checkRatio 3, samplingRatio 2 and version 7.
  await td.usePreconfiguredFlag({
    key: 'mig-ratios',
    version: 7,
    on: true,
    variations: STAGES,
    offVariation: 0,
    fallthrough: { variation: STAGE_INDEX.shadow },
    targets: [],
    contextTargets: [],
    rules: [],
    prerequisites: [],
    salt: 'mig-ratios-salt',
    trackEvents: false,
    trackEventsFallthrough: false,
    debugEventsUntilDate: null,
    clientSide: false,
    deleted: false,
    migration: { checkRatio: 3 },
    samplingRatio: 2,
  });

  const calls = [];
  let comparisons = 0;
  const migrator = new MigratorBuilder(launchDarklyClient(ldClient), { logger: cutoverLog.logger })
    .read(cutoverOrigin('readOld', OK(2, 'same'), calls), cutoverOrigin('readNew', OK(1, 'same'), calls),
      (a, b) => (comparisons++, a === b))
    .write(cutoverOrigin('writeOld', OK(1, 'w'), calls), cutoverOrigin('writeNew', OK(1, 'w'), calls))
    .build();
  await drainEvents();

  // LaunchDarkly samples with Math.random (floor(random * N) === 0). Pin it so that LaunchDarkly
  // samples everything; cutover must add no sampling of its own on top (SPEC A9), so every one of
  // the N reads must produce an event with a consistency result.
  const N = 6;
  const realRandom = Math.random;
  const t0 = Date.now();
  try {
    Math.random = () => 0;
    for (let i = 0; i < N; i++) {
      const res = await migrator.read('mig-ratios', CONTEXT, 'off');
      assert.deepEqual(res, { origin: 'old', success: true, value: 'same' });
    }
  } finally {
    Math.random = realRandom;
  }
  const t1 = Date.now();
  const sampledEvents = await drainEvents();
  const ops = migrationOps(sampledEvents);
  assert.equal(ops.length, N, 'every operation LaunchDarkly sampled reaches it');
  for (const ev of ops) {
    assertEvent(ev, {
      operation: 'read',
      evaluation: { key: 'mig-ratios', value: 'shadow', default: 'off', reason: { kind: 'FALLTHROUGH' }, variation: 2, version: 7 },
      samplingRatio: 2,
      invoked: { old: true, new: true },
      consistent: { value: true, samplingRatio: 3 },
      minLatency: { old: 1 },
    }, t0, t1);
  }
  assert.equal(comparisons, N);
  assertStatsAgree(migrator.stats(), ops);
  assert.equal(evaluationsOf(sampledEvents, 'mig-ratios'), N);

  // Now LaunchDarkly samples nothing: no migration_op events, no consistency checks; the
  // in-process statistics still count every operation (they are independent of event sampling).
  try {
    Math.random = () => 0.999;
    for (let i = 0; i < N; i++) await migrator.read('mig-ratios', CONTEXT, 'off');
  } finally {
    Math.random = realRandom;
  }
  const unsampledEvents = await drainEvents();
  assert.equal(migrationOps(unsampledEvents).length, 0, 'unsampled operations send no migration_op');
  assert.equal(comparisons, N, 'LaunchDarkly\'s tracker decided not to run the comparison');
  assert.equal(evaluationsOf(unsampledEvents, 'mig-ratios'), N, 'still one evaluation per operation');
  const s = migrator.stats();
  assert.equal(s.read.count, 2 * N);
  assert.deepEqual(nonZero(s.read.byStage), { shadow: 2 * N });
  assert.equal(s.read.old.invoked, 2 * N);
  assert.equal(s.read.new.invoked, 2 * N);
  assert.equal(s.read.old.latencyMs.count, 2 * N);
  assert.deepEqual({ ...s.read.consistency }, { checked: N, consistent: N, paths: {} },
    'checked counts only the comparisons that actually ran');

  migrator.resetStats();
  const z = migrator.stats();
  assert.equal(z.read.count, 0);
  assert.equal(z.read.old.invoked, 0);
  assert.equal(z.read.old.latencyMs, null);
  assert.deepEqual({ ...z.read.consistency }, { checked: 0, consistent: 0, paths: {} });
});

test('cutover logged no errors while talking to the real SDK', () => {
  assert.deepEqual(cutoverLog.lines.error, []);
  assert.deepEqual(cutoverLog.lines.warn, []);
});
