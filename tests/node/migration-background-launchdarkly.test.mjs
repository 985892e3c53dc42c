// Background mode through LaunchDarkly's own SDK (@launchdarkly/node-server-sdk), issue 21: a
// MigratorBuilder over launchDarklyClient(ldClient) with background(), and createMigration(ldClient,
// { …, background }) . The SDK reads its flags from TestData and posts its events to a local HTTP
// server; the migration_op events it posts in background mode must carry the same measurements
// as in foreground mode (creationDate and latency numbers aside), and be posted once the
// background part has ended.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as launchDarkly from '@launchdarkly/node-server-sdk';
import * as cutover from 'cutover';
import { makeGates, makeWaitUntil, turns, watch } from './helpers/background.mjs';
import { bulkEvents, eventShape, migrationOps, SILENT_LOGGER, startLaunchDarkly } from './helpers/launchdarkly.mjs';

const { MigratorBuilder, launchDarklyClient, createMigration } = cutover;
const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];
const CONTEXT = Object.freeze({ kind: 'user', key: 'bg-user', name: 'Bea' });
const flag = (stage) => `bgl-${stage}`;

// ---------- fixture: a local event endpoint, TestData, the SDK client (helpers/launchdarkly.mjs) ----------

let ld;
let ldClient;

before(async () => {
  ld = await startLaunchDarkly('sdk-background-test');
  const { td } = ld;
  ldClient = ld.client;
  for (const stage of STAGES) {
    await td.update(td.flag(flag(stage)).variations(...STAGES).fallthroughVariation(STAGES.indexOf(stage)).checkRatio(1));
  }
});

after(async () => {
  await ld?.close();
});

/** Flushes the SDK's queue; the migration_op events posted since the last call. */
const drain = async () => migrationOps(bulkEvents(await ld.flush()));

/** An event without creationDate (a number), each latency number replaced by its type. */
function shape(event) {
  assert.equal(typeof event.creationDate, 'number');
  return eventShape(event);
}

// ---------- MigratorBuilder over launchDarklyClient ----------

/** spec values: a value, or { throws } */
const answer = (spec) => async () => {
  if (spec && typeof spec === 'object' && 'throws' in spec) throw spec.throws;
  return spec;
};

function builderMigrator({ background, order, spec }) {
  const b = new MigratorBuilder(launchDarklyClient(ldClient), { logger: SILENT_LOGGER });
  b.readExecutionOrder(order);
  if (background) b.background(background === true ? {} : background);
  return b
    .read(answer(spec.readOld ?? 'same'), answer(spec.readNew ?? 'same'), (a, b2) => a === b2)
    .write(answer(spec.writeOld ?? 'w-old'), answer(spec.writeNew ?? 'w-new'))
    .build();
}

const boom = new Error('boom');

test('launchDarklyClient + background(): LaunchDarkly receives the foreground event, every stage × order × outcome', async () => {
  const specs = [{}, { readNew: 'other' }, { readNew: { throws: boom } }, { readOld: { throws: boom } }, { writeOld: { throws: boom } }, { writeNew: { throws: boom } }];
  for (const stage of STAGES) {
    for (const order of ['parallel', 'serial', 'random']) {
      for (const spec of specs) {
        for (const op of ['read', 'write']) {
          if (op === 'write' && order !== 'parallel') continue; // the read order does not apply to writes
          const where = `${op} at ${stage}, ${order}, ${JSON.stringify(spec)}`;
          await drain();
          const fg = builderMigrator({ background: false, order, spec });
          const fgResult = await fg[op](flag(stage), CONTEXT, 'off', 'p');
          const fgEvents = await drain();
          const bg = builderMigrator({ background: true, order, spec });
          const bgResult = await bg[op](flag(stage), CONTEXT, 'off', 'p');
          await bg.settled();
          const bgEvents = await drain();
          assert.equal(fgEvents.length, 1, `${where}: foreground`);
          assert.equal(bgEvents.length, 1, `${where}: one event in background mode`);
          assert.deepEqual(bgEvents.map(shape), fgEvents.map(shape), `${where}: event`);
          if (op === 'read') {
            assert.deepEqual([bgResult.origin, bgResult.success, bgResult.value], [fgResult.origin, fgResult.success, fgResult.value], where);
          } else {
            assert.deepEqual(
              [bgResult.authoritative.origin, bgResult.authoritative.success, bgResult.authoritative.value],
              [fgResult.authoritative.origin, fgResult.authoritative.success, fgResult.authoritative.value],
              where,
            );
            assert.equal(bgResult.nonAuthoritative, undefined, where);
          }
        }
      }
    }
  }
});

test('launchDarklyClient + background(): nothing reaches LaunchDarkly until the shadow has answered', async () => {
  const gates = makeGates();
  const migrator = new MigratorBuilder(launchDarklyClient(ldClient))
    .background()
    .read(gates.origin('old'), gates.origin('new'), (a, b) => a === b)
    .write(gates.origin('w-old'), gates.origin('w-new'))
    .build();
  await drain();
  const read = watch(migrator.read(flag('shadow'), CONTEXT, 'off'));
  await turns();
  gates.resolve('old', 'v');
  await read.done;
  assert.equal(read.value.value, 'v');
  assert.deepEqual(await drain(), [], 'no migration_op posted while the shadow runs');
  gates.resolve('new', 'v');
  await migrator.settled();
  const events = await drain();
  assert.equal(events.length, 1);
  const m = Object.fromEntries(events[0].measurements.map((x) => [x.key, x]));
  assert.deepEqual(m.invoked.values, { old: true, new: true });
  assert.equal(m.consistent.value, true);
  assert.deepEqual(Object.keys(m.latency_ms.values).sort(), ['new', 'old']);
  assert.deepEqual(await drain(), [], 'sent once');
});

test('launchDarklyClient + background({ maxInFlight: 1 }): a shed read reaches LaunchDarkly with the old origin only', async () => {
  const gates = makeGates();
  const migrator = new MigratorBuilder(launchDarklyClient(ldClient))
    .background({ maxInFlight: 1 })
    .read(gates.origin('old'), gates.origin('new'), (a, b) => a === b)
    .write(gates.origin('w-old'), gates.origin('w-new'))
    .build();
  await drain();
  for (let i = 0; i < 2; i++) {
    const read = watch(migrator.read(flag('shadow'), CONTEXT, 'off'));
    await turns();
    gates.resolve('old', 'v');
    await read.done;
  }
  const shedEvents = await drain();
  assert.equal(shedEvents.length, 1);
  const invoked = shedEvents[0].measurements.find((x) => x.key === 'invoked');
  assert.deepEqual(invoked.values, { old: true });
  assert.equal(shedEvents[0].measurements.find((x) => x.key === 'consistent'), undefined);
  assert.equal(migrator.stats().read.shed, 1);
  gates.resolve('new', 'v');
  await migrator.settled();
  assert.equal((await drain()).length, 1);
});

// ---------- createMigration(ldClient, { …, background }) ----------

const EXECUTIONS = {
  fixed: (ns) => new ns.LDSerialExecution(ns.LDExecutionOrdering.Fixed),
  random: (ns) => new ns.LDSerialExecution(ns.LDExecutionOrdering.Random),
  concurrent: (ns) => new ns.LDConcurrentExecution(),
};

/** LDMigrationOptions whose four methods are `method(name)`, compared with ===, `extra` added. */
const optionsOf = (method, extra) => ({
  readOld: method('readOld'),
  readNew: method('readNew'),
  writeOld: method('writeOld'),
  writeNew: method('writeNew'),
  check: (a, b) => a === b,
  ...extra,
});

/** LDMigrationOptions of `ns` answering at once; spec: a value or { error } per method. */
function ldOptions(ns, spec, extra = {}) {
  const method = (name) => async (payload) => {
    const a = spec[name];
    if (a?.error) return ns.LDMigrationError(a.error);
    return ns.LDMigrationSuccess(`${a ?? 'same'}:${payload}`);
  };
  return optionsOf(method, extra);
}

test('createMigration({ background: true }): the events LaunchDarkly receives equal foreground mode\'s and LaunchDarkly\'s own', async () => {
  const specs = [{}, { readNew: { error: boom } }, { readOld: 'a', readNew: 'b' }, { writeOld: { error: boom } }, { writeNew: { error: boom } }];
  for (const stage of STAGES) {
    for (const execution of Object.keys(EXECUTIONS)) {
      for (const spec of specs) {
        for (const op of ['read', 'write']) {
          const where = `${op} at ${stage}, ${execution}, ${JSON.stringify(spec)}`;
          await drain();
          const theirs = await launchDarkly.createMigration(ldClient, ldOptions(launchDarkly, spec, { execution: EXECUTIONS[execution](launchDarkly) }))[op](flag(stage), CONTEXT, 'off', 'p');
          const theirEvents = await drain();
          const fg = await createMigration(ldClient, ldOptions(cutover, spec, { execution: EXECUTIONS[execution](cutover) }))[op](flag(stage), CONTEXT, 'off', 'p');
          const fgEvents = await drain();
          const migration = createMigration(ldClient, ldOptions(cutover, spec, { execution: EXECUTIONS[execution](cutover), background: true }));
          const bg = await migration[op](flag(stage), CONTEXT, 'off', 'p');
          await migration.settled();
          const bgEvents = await drain();
          assert.equal(bgEvents.length, 1, `${where}: one event`);
          assert.deepEqual(bgEvents.map(shape), fgEvents.map(shape), `${where}: as in foreground mode`);
          assert.deepEqual(bgEvents.map(shape), theirEvents.map(shape), `${where}: as LaunchDarkly's createMigration`);
          if (op === 'read') {
            assert.deepEqual(bg, fg, `${where}: result`);
            assert.deepEqual(bg, theirs, `${where}: LaunchDarkly's result`);
          } else {
            assert.deepEqual(bg.authoritative, fg.authoritative, `${where}: authoritative`);
            assert.equal(bg.nonAuthoritative, undefined, `${where}: no nonAuthoritative`);
          }
        }
      }
    }
  }
});

/** LDMigrationOptions whose methods wait for the test: `gates.resolve('readOld', value)`. */
function heldOptions(gates, extra = {}) {
  const method = (name) => {
    const held = gates.origin(name);
    return (payload, signal) => held(payload, signal).then((v) => cutover.LDMigrationSuccess(v));
  };
  return optionsOf(method, extra);
}

for (const [stage, first, second] of [['shadow', 'readOld', 'readNew'], ['live', 'readNew', 'readOld']]) {
  test(`createMigration, Fixed serial, background at ${stage}: ${first} first, the read resolves before ${second} settles`, async () => {
    const gates = makeGates();
    const migration = createMigration(ldClient, heldOptions(gates, { execution: EXECUTIONS.fixed(cutover), background: true }));
    await drain();
    const read = watch(migration.read(flag(stage), CONTEXT, 'off', 'k'));
    await turns();
    assert.deepEqual(gates.names(), [first], 'the authoritative method alone');
    gates.resolve(first, 'same');
    await read.done;
    assert.deepEqual(read.value, { origin: first === 'readOld' ? 'old' : 'new', success: true, result: 'same' });
    await turns();
    assert.deepEqual(gates.log, [`start ${first}`, `settle ${first}`, `start ${second}`]);
    assert.deepEqual(await drain(), []);
    gates.resolve(second, 'same');
    await migration.settled();
    const [event] = await drain();
    assert.equal(event.measurements.find((m) => m.key === 'consistent').value, true);
  });
}

test('createMigration, concurrent, background: the write resolves after the authoritative write, the other follows', async () => {
  const gates = makeGates();
  const migration = createMigration(ldClient, heldOptions(gates, { execution: EXECUTIONS.concurrent(cutover), background: true }));
  await drain();
  const write = watch(migration.write(flag('live'), CONTEXT, 'off', 'row'));
  await turns();
  assert.deepEqual(gates.names(), ['writeNew']);
  gates.resolve('writeNew', 'n');
  await write.done;
  assert.deepEqual(write.value.authoritative, { origin: 'new', success: true, result: 'n' });
  assert.equal(write.value.nonAuthoritative, undefined);
  await turns();
  assert.deepEqual(gates.names(), ['writeNew', 'writeOld']);
  gates.resolve('writeOld', 'o');
  await migration.settled();
  const [event] = await drain();
  assert.deepEqual(event.measurements.find((m) => m.key === 'invoked').values, { old: true, new: true });
});

test('createMigration({ background: { maxInFlight, waitUntil } }): shedding, waitUntil, per-operation waitUntil, stats', async () => {
  const gates = makeGates();
  const builderLevel = makeWaitUntil();
  const perOp = makeWaitUntil();
  const migration = createMigration(
    ldClient,
    heldOptions(gates, { execution: EXECUTIONS.concurrent(cutover), background: { maxInFlight: 1, waitUntil: builderLevel.fn } }),
  );
  await drain();
  const first = watch(migration.read(flag('shadow'), CONTEXT, 'off', 'a'));
  await turns();
  gates.resolve('readOld', 'a');
  await first.done;
  assert.equal(builderLevel.calls.length, 1);
  const shed = watch(migration.read(flag('shadow'), CONTEXT, 'off', 'b', { waitUntil: perOp.fn }));
  await turns();
  gates.resolve('readOld', 'b');
  await shed.done;
  assert.equal(gates.count('readNew'), 1, 'the second read was shed');
  assert.equal(migration.stats().read.shed, 1);
  assert.equal(perOp.calls.length, 0, 'a shed read has no background part');
  const shedEvents = await drain();
  assert.equal(shedEvents.length, 1);
  assert.deepEqual(shedEvents[0].measurements.find((m) => m.key === 'invoked').values, { old: true });
  gates.resolve('readNew', 'a');
  await builderLevel.calls[0].watched.done;
  assert.equal((await drain()).length, 1, 'the first read\'s event was handed to LaunchDarkly before waitUntil\'s promise resolved');
  // a slot again: the per-operation waitUntil now serves
  const third = watch(migration.read(flag('shadow'), CONTEXT, 'off', 'c', { waitUntil: perOp.fn }));
  await turns();
  gates.resolve('readOld', 'c');
  await third.done;
  assert.deepEqual([perOp.calls.length, builderLevel.calls.length], [1, 1]);
  gates.resolve('readNew', 'c');
  await migration.settled();
  await perOp.calls[0].watched.done;
  assert.equal(perOp.calls[0].watched.fulfilled, true);
  assert.equal((await drain()).length, 1);
});

test('createMigration without background: settled() exists and resolves at once; reads wait for both', async () => {
  const gates = makeGates();
  const migration = createMigration(ldClient, heldOptions(gates, { execution: EXECUTIONS.concurrent(cutover) }));
  const s = watch(migration.settled());
  await turns(3);
  assert.equal(s.fulfilled, true);
  const read = watch(migration.read(flag('shadow'), CONTEXT, 'off'));
  await turns();
  gates.resolve('readOld');
  await turns();
  assert.equal(read.settled, false);
  gates.resolve('readNew');
  await read.done;
  assert.equal(read.value.success, true);
  await drain();
});
