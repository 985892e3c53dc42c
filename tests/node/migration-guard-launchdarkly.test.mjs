// guard() through the flag systems (issue 30, API.md §1 "Guardrails"): createMigration over
// LaunchDarkly's own server SDK (@launchdarkly/node-server-sdk, TestData serving 'live', events to
// a local collector) with the `guard` option and LDMigration#guard(key); a MigratorBuilder over
// openFeatureClient with the OpenFeature server SDK serving 'live'. Both trip on a failing new
// origin, then answer from the old one, and the flag system's own events say what ran.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { OpenFeature } from '@openfeature/server-sdk';
import { LDMigrationError, LDMigrationSuccess, MigratorBuilder, createMigration, openFeatureClient } from 'cutover';
import { bulkEvents, migrationOps, SILENT_LOGGER, startLaunchDarkly } from './helpers/launchdarkly.mjs';
import { makeLogger } from './helpers/guard.mjs';

const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];
const CONTEXT = Object.freeze({ kind: 'user', key: 'guard-user' });
const FLAG = 'guard-live';

let ld;
before(async () => {
  ld = await startLaunchDarkly('sdk-guard-test');
  await ld.td.update(ld.td.flag(FLAG).variations(...STAGES).fallthroughVariation(STAGES.indexOf('live')).checkRatio(1));
});
after(async () => {
  await ld?.close();
  await OpenFeature.close();
});

const drain = async () => migrationOps(bulkEvents(await ld.flush()));
const invoked = (event) => event.measurements.find((m) => m.key === 'invoked').values;

test('createMigration(ldClient, { guard }): trips in live, then reads the old origin; LDMigration#guard; LaunchDarkly’s events say what ran', async () => {
  const calls = [];
  const changes = [];
  let newHealthy = false;
  const method = (name, answer) => async (payload) => {
    calls.push(name);
    return answer(payload);
  };
  const log = makeLogger();
  const migration = createMigration(ld.client, {
    readOld: method('readOld', () => LDMigrationSuccess('old')),
    readNew: method('readNew', () => (newHealthy ? LDMigrationSuccess('new') : LDMigrationError(new Error('new store down')))),
    writeOld: method('writeOld', () => LDMigrationSuccess('wrote old')),
    writeNew: method('writeNew', () => LDMigrationSuccess('wrote new')),
    check: (a, b) => a === b,
    logger: log.logger,
    guard: { maxConsecutiveErrors: 3, onChange: (c) => changes.push(c) },
  });
  await drain();
  for (let i = 0; i < 3; i++) {
    const r = await migration.read(FLAG, CONTEXT, 'off');
    assert.deepEqual([r.success, r.origin], [false, 'new']);
  }
  assert.equal(migration.guard(FLAG).state, 'tripped');
  assert.equal(migration.guard(FLAG).reason, '3 consecutive errors');
  assert.deepEqual(changes.map((c) => [c.flagKey, c.from, c.to]), [[FLAG, 'closed', 'tripped']]);
  assert.ok(log.has('warn', `migration guard of flag "${FLAG}": closed -> tripped: 3 consecutive errors`));
  calls.length = 0;
  const r = await migration.read(FLAG, CONTEXT, 'off');
  assert.deepEqual(r, { success: true, result: 'old', origin: 'old' });
  const w = await migration.write(FLAG, CONTEXT, 'off');
  assert.deepEqual(calls, ['readOld', 'writeOld', 'writeNew']);
  assert.equal(w.authoritative.origin, 'old');
  assert.equal(w.nonAuthoritative.origin, 'new');
  const events = await drain();
  assert.equal(events.length, 5);
  for (const e of events) assert.equal(e.evaluation.value, 'live', 'the evaluation is the flag’s');
  assert.deepEqual(events.slice(0, 3).map(invoked), Array(3).fill({ old: true, new: true }));
  assert.deepEqual(invoked(events[3]), { old: true }, 'the tripped read: old only');
  assert.equal(events[3].measurements.find((m) => m.key === 'consistent'), undefined);
  assert.deepEqual(invoked(events[4]), { old: true, new: true });
  const stats = migration.stats().guard;
  assert.deepEqual([stats.trips, stats.fallbacks.read, stats.fallbacks.write], [1, 1, 1]);
  newHealthy = true;
  assert.equal(migration.guard('another-flag').state, 'closed');
});

test('createMigration(ldClient, { guard: true }): the defaults (10 failures in a row)', async () => {
  const migration = createMigration(ld.client, {
    readOld: async () => LDMigrationSuccess('old'),
    readNew: async () => {
      throw new Error('new down');
    },
    writeOld: async () => LDMigrationSuccess('o'),
    writeNew: async () => LDMigrationSuccess('n'),
    logger: SILENT_LOGGER,
    guard: true,
  });
  for (let i = 0; i < 9; i++) await migration.read(FLAG, CONTEXT, 'off');
  assert.equal(migration.guard(FLAG).state, 'closed');
  await migration.read(FLAG, CONTEXT, 'off');
  assert.equal(migration.guard(FLAG).state, 'tripped');
  assert.deepEqual(await migration.read(FLAG, CONTEXT, 'off'), { success: true, result: 'old', origin: 'old' });
  await drain();
});

/** An OpenFeature provider serving 'live' for every flag and recording what it is asked to track. */
class LiveProvider {
  metadata = { name: 'guard-live-provider' };
  runsOn = 'server';
  tracked = [];
  async resolveStringEvaluation() {
    return { value: 'live', variant: '3', reason: 'STATIC', flagMetadata: { version: 4, checkRatio: 1, samplingRatio: 1 } };
  }
  track(name, context, details) {
    this.tracked.push({ name, details });
  }
}

test('openFeatureClient serving live: the guard trips, the old origin answers, track() says what ran', async () => {
  const provider = new LiveProvider();
  await OpenFeature.setProviderAndWait('cutover-guard', provider);
  const calls = [];
  const migrator = new MigratorBuilder(openFeatureClient(OpenFeature.getClient('cutover-guard')), { logger: SILENT_LOGGER })
    .guard({ maxConsecutiveErrors: 2 })
    .read(
      () => (calls.push('old'), 'old'),
      () => {
        calls.push('new');
        throw new Error('new down');
      },
    )
    .write(() => 'o', () => 'n')
    .build();
  await migrator.read('of-guard', CONTEXT, 'off');
  await migrator.read('of-guard', CONTEXT, 'off');
  assert.equal(migrator.guard('of-guard').state, 'tripped');
  calls.length = 0;
  const r = await migrator.read('of-guard', CONTEXT, 'off');
  assert.deepEqual([r.origin, r.value, calls], ['old', 'old', ['old']]);
  assert.equal(provider.tracked.length, 3);
  const last = provider.tracked[2].details;
  assert.equal(last.stage, 'live', 'the stage is the flag’s');
  assert.deepEqual([last.invokedOld, last.invokedNew], [true, false]);
  assert.equal(provider.tracked[0].details.errorNew, true);
});
