// Golden test: cutover's own migration_op event (its own tracker, the wire format of
// src/migration/event_format.rs) against LaunchDarkly's own serialisation of the same operation.
// The same flag (TestData: variations = the six stages, checkRatio 1), context, stage and origin
// outcomes run through LaunchDarkly's createMigration, whose event is captured as its event
// processor posts it to a local collector (/bulk), and through a cutover Migrator whose client
// answers with LaunchDarkly's evaluation of that flag (value, variation, version, reason from
// allFlagsState) and takes cutover's own event; that event is captured as a sink sends it
// (JSON.stringify). The two must match field for field but for the exemptions named below.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createMigration, LDMigrationError, LDMigrationSuccess, LDConcurrentExecution } from '@launchdarkly/node-server-sdk';
import { MigratorBuilder } from 'cutover';
import { bulkEvents, migrationOps, startLaunchDarkly } from './helpers/launchdarkly.mjs';

const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];
const CONTEXT = Object.freeze({ kind: 'user', key: 'golden-user', name: 'Ann' });

let ld;
before(async () => {
  ld = await startLaunchDarkly('sdk-golden-event-test');
});
after(async () => {
  await ld?.close();
});

/** Exemptions, each a value that legitimately differs between the two serialisations. */
function exempt(event, ldEvent, started, ended) {
  const e = structuredClone(event);
  const l = structuredClone(ldEvent);
  // 1. creationDate: each side's clock when it built its event. Both must be integers within the
  //    operation's window; not compared.
  for (const x of [e, l]) {
    assert.ok(Number.isInteger(x.creationDate) && x.creationDate >= started && x.creationDate <= ended, `creationDate ${x.creationDate}`);
    delete x.creationDate;
  }
  for (const x of [e, l]) {
    for (const m of x.measurements) {
      // 2. latency_ms values: each side timed its own run of the origins. The same origins must be
      //    measured, each a finite number ≥ 0; the numbers are not compared.
      if (m.key === 'latency_ms') {
        for (const [origin, ms] of Object.entries(m.values)) {
          assert.ok(Number.isFinite(ms) && ms >= 0, `latency ${origin} ${ms}`);
          m.values[origin] = 'measured';
        }
      }
    }
  }
  // 3. consistent.samplingRatio when the check ratio is 1: LaunchDarkly's tracker always writes it
  //    (its trackMigration needs it); cutover's own wire format (SPEC A6, API.md §2c) leaves the
  //    ratio 1 out, and a missing ratio means 1. Any other ratio is compared.
  for (const m of l.measurements) if (m.key === 'consistent' && m.samplingRatio === 1) delete m.samplingRatio;
  // (The event's own samplingRatio is 1 here, left out by both: a flag sampling 1 in N would let
  // LaunchDarkly's processor drop the event at random. Key order is not compared either: JSON
  // objects are unordered, and LaunchDarkly's processor writes its own order.)
  return [e, l];
}

async function evaluation(flagKey) {
  const state = (await ld.client.allFlagsState(CONTEXT, { withReasons: true })).toJSON();
  const meta = state.$flagsState[flagKey];
  return { value: state[flagKey], variationIndex: meta.variation, flagVersion: meta.version, reason: meta.reason, checkRatio: 1 };
}

async function both(flagKey, stage, op, outcomes) {
  await ld.td.update(ld.td.flag(flagKey).variations(...STAGES).fallthroughVariation(STAGES.indexOf(stage)).checkRatio(1));
  await ld.flush();
  const started = Date.now();
  const ldMigration = createMigration(ld.client, {
    execution: new LDConcurrentExecution(),
    latencyTracking: true,
    errorTracking: true,
    readOld: async () => (outcomes.old ? LDMigrationSuccess('same') : LDMigrationError(new Error('old failed'))),
    readNew: async () => (outcomes.new ? LDMigrationSuccess('same') : LDMigrationError(new Error('new failed'))),
    writeOld: async () => (outcomes.old ? LDMigrationSuccess('w') : LDMigrationError(new Error('old failed'))),
    writeNew: async () => (outcomes.new ? LDMigrationSuccess('w') : LDMigrationError(new Error('new failed'))),
    check: (a, b) => a === b,
  });
  await ldMigration[op](flagKey, CONTEXT, 'off');
  const [ldEvent, ...more] = migrationOps(bulkEvents(await ld.flush()));
  assert.equal(more.length, 0);

  const sent = [];
  const answer = await evaluation(flagKey);
  const client = { migrationVariation: () => answer, trackMigrationOp: (event) => sent.push(JSON.stringify(event)) };
  const origin = (ok, value) => async () => {
    if (!ok) throw new Error('failed');
    return value;
  };
  const migrator = new MigratorBuilder(client)
    .readExecutionOrder('parallel')
    .read(origin(outcomes.old, 'same'), origin(outcomes.new, 'same'), (a, b) => a === b)
    .write(origin(outcomes.old, 'w'), origin(outcomes.new, 'w'))
    .build();
  await migrator[op](flagKey, CONTEXT, 'off').catch(() => {});
  await migrator.settled?.();
  const ended = Date.now();
  assert.equal(sent.length, 1, 'cutover sends one event');
  const [ours, theirs] = exempt(JSON.parse(sent[0]), ldEvent, started, ended);
  assert.deepEqual(ours, theirs);
  return { ours, theirs };
}

test('a shadow read, both origins succeed, consistent: the same event as LaunchDarkly posts', async () => {
  const { ours } = await both('golden-shadow', 'shadow', 'read', { old: true, new: true });
  assert.deepEqual(ours.measurements.map((m) => m.key), ['invoked', 'consistent', 'latency_ms']);
});

test('a live read whose old origin fails: invoked, latency_ms and error as LaunchDarkly posts them', async () => {
  const { ours } = await both('golden-live', 'live', 'read', { old: false, new: true });
  assert.deepEqual(ours.measurements.at(-1), { key: 'error', values: { old: true } });
});

test('a dualwrite write whose new origin fails: the same event as LaunchDarkly posts', async () => {
  const { ours } = await both('golden-dualwrite', 'dualwrite', 'write', { old: true, new: false });
  assert.equal(ours.operation, 'write');
  assert.deepEqual(ours.measurements.at(-1), { key: 'error', values: { new: true } });
});
