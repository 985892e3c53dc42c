// Background mode and AsyncLocalStorage (issue 21): what runs after an operation resolved (the
// background origin and its continuation, the comparison, the external tracker,
// trackMigrationOp, the logger, the meter) runs in the async context of the call that started
// the operation, also when operations overlap and when the origins are released from another
// context.
//
// Every callback notes `{ id, what, store }`; `id` is read from its arguments (flag key
// `flag-<id>`, payload `<id>`, values `<id>:…`) and `store` is als.getStore(). Each operation runs
// in als.run(<id>, …), and the test releases origins inside als.run('releaser', …): a callback is
// in the right context exactly when store === id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { MigratorBuilder } from 'cutover';
import { ctxOf, idOfFlag, idOfValue, makeProbe } from './helpers/async-context.mjs';
import { deferred, turns } from './helpers/background.mjs';

const als = new AsyncLocalStorage();

function assertSeen(probe, id, whats) {
  const got = probe.whats(id);
  for (const what of whats) assert.ok(got.has(what), `${what} ran for ${id} (saw: ${[...got].join(', ')})`);
}

function assertAllInCallersContext(probe) {
  const wrong = probe.seen.filter((e) => e.store !== e.id).map((e) => `${e.what} of ${e.id} saw ${JSON.stringify(e.store)}`);
  assert.deepEqual(wrong, [], `${wrong.length} of ${probe.seen.length} callbacks outside their caller's context`);
}

/** Origins held back per operation: `release(id, label, value)` settles one from the releaser's context. */
function makeHeld(probe) {
  const held = new Map();
  const key = (id, label) => `${id}/${label}`;
  return {
    origin(label) {
      return async (id) => {
        probe.note(id, label);
        const d = deferred();
        held.set(key(id, label), d);
        const value = await d.promise;
        probe.note(id, `${label}:continued`);
        if (value instanceof Error) throw value;
        return `${id}:${value}`;
      };
    },
    has(id, label) {
      return held.has(key(id, label));
    },
    release(id, label, value = 'same') {
      const d = held.get(key(id, label));
      assert.ok(d, `${label} of ${id} was started`);
      held.delete(key(id, label));
      als.run('releaser', () => d.resolve(value));
    },
  };
}

function makeTracker(probe, id) {
  const t = {};
  for (const name of ['op', 'invoked', 'latency', 'error']) t[name] = () => probe.note(id, `tracker.${name}`);
  t.consistency = (check) => {
    probe.note(id, 'tracker.consistency');
    check();
  };
  t.createEvent = () => {
    probe.note(id, 'tracker.createEvent');
    return { kind: 'migration_op', of: id };
  };
  return t;
}

function makeMeter(probe) {
  const forAttrs = (what) => (value, attributes) => {
    const flag = attributes?.['feature_flag.key'];
    if (typeof flag === 'string' && flag.startsWith('flag-')) probe.note(idOfFlag(flag), what);
  };
  return {
    createCounter: () => ({ add: forAttrs('meter.add') }),
    createHistogram: () => ({ record: forAttrs('meter.record') }),
  };
}

/**
 * A migrator whose stage, tracker and comparison answer per operation id. `stages[id]` is the
 * stage; operations in `trackers` get an external tracker; `throwingCompare` ids get a
 * comparison that throws (so the logger is called in the background).
 */
function build(probe, { stages, order = 'parallel', trackers = new Set(), throwingCompare = new Set(), maxInFlight } = {}) {
  const events = [];
  const client = {
    migrationVariation(flagKey) {
      const id = idOfFlag(flagKey);
      probe.note(id, 'migrationVariation');
      return trackers.has(id) ? { value: stages[id], tracker: makeTracker(probe, id) } : { value: stages[id] };
    },
    trackMigrationOp(event) {
      const id = event.of ?? idOfFlag(event.evaluation.key);
      probe.note(id, 'trackMigrationOp');
      events.push(event);
    },
  };
  const logger = {};
  for (const level of ['debug', 'info', 'warn', 'error']) {
    logger[level] = (...args) => {
      const text = args.map(String).join(' ');
      const m = /flag-(\w+)|compare of (\w+)/.exec(text);
      if (m) probe.note(m[1] ?? m[2], `log.${level}`);
    };
  }
  const held = makeHeld(probe);
  const builder = new MigratorBuilder(client, { logger })
    .readExecutionOrder(order)
    .background(maxInFlight === undefined ? {} : { maxInFlight })
    .meter(makeMeter(probe))
    .read(held.origin('read:old'), held.origin('read:new'), (a, b) => {
      const id = idOfValue(a);
      probe.note(id, 'comparison');
      assert.equal(idOfValue(b), id, 'values of one operation are compared');
      if (throwingCompare.has(id)) throw new Error(`compare of ${id} broke`);
      return a === b;
    })
    .write(held.origin('write:old'), held.origin('write:new'));
  return { migrator: builder.build(), held, events };
}

const start = (migrator, op, id) => als.run(id, () => migrator[op](`flag-${id}`, ctxOf(id), 'off', id));

test('overlapping background reads (parallel): each one\'s shadow, comparison, tracker, event and log line in its own context', async () => {
  const probe = makeProbe(als);
  const stages = { A: 'shadow', B: 'live', C: 'shadow', D: 'live' };
  const { migrator, held, events } = build(probe, { stages, trackers: new Set(['B', 'C']), throwingCompare: new Set(['D']) });
  const ids = Object.keys(stages);
  const results = ids.map((id) => start(migrator, 'read', id));
  await turns();
  const auth = (id) => (stages[id] === 'shadow' ? 'read:old' : 'read:new');
  const other = (id) => (stages[id] === 'shadow' ? 'read:new' : 'read:old');
  // authoritative answers in one order, the shadows in another, all from the releaser's context
  for (const id of ['C', 'A', 'D', 'B']) held.release(id, auth(id));
  const values = await Promise.all(results);
  assert.deepEqual(values.map((r) => r.value), ['A:same', 'B:same', 'C:same', 'D:same']);
  assert.equal(events.length, 0);
  for (const id of ['B', 'D', 'A', 'C']) held.release(id, other(id), id === 'A' ? 'different' : 'same');
  await als.run('settler', () => migrator.settled());
  assert.equal(events.length, 4);
  const common = ['read:old', 'read:new', 'read:old:continued', 'read:new:continued', 'comparison', 'trackMigrationOp', 'meter.add', 'meter.record'];
  for (const id of ids) assertSeen(probe, id, common);
  for (const id of ['B', 'C']) assertSeen(probe, id, ['tracker.invoked', 'tracker.latency', 'tracker.consistency', 'tracker.createEvent']);
  assertSeen(probe, 'D', ['log.error']);
  assertAllInCallersContext(probe);
});

for (const order of ['serial', 'random']) {
  test(`overlapping background reads (${order}): the other origin, started after the read resolved, runs in the caller's context`, async () => {
    const probe = makeProbe(als);
    const stages = { A: 'shadow', B: 'live', C: 'live', D: 'shadow', E: 'shadow' };
    const { migrator, held, events } = build(probe, { stages, order, trackers: new Set(['E']) });
    const ids = Object.keys(stages);
    const results = ids.map((id) => start(migrator, 'read', id));
    await turns();
    const auth = (id) => (stages[id] === 'shadow' ? 'read:old' : 'read:new');
    const other = (id) => (stages[id] === 'shadow' ? 'read:new' : 'read:old');
    for (const id of ids) assert.equal(held.has(id, other(id)), false, `${id}: the other origin waits`);
    for (const id of ['E', 'B', 'A', 'D', 'C']) held.release(id, auth(id));
    await Promise.all(results);
    await turns();
    for (const id of ['D', 'A', 'C', 'E', 'B']) held.release(id, other(id));
    await migrator.settled();
    assert.equal(events.length, 5);
    for (const id of ids) assertSeen(probe, id, ['read:old', 'read:new', 'read:old:continued', 'read:new:continued', 'comparison', 'trackMigrationOp']);
    assertSeen(probe, 'E', ['tracker.consistency', 'tracker.createEvent']);
    assertAllInCallersContext(probe);
  });
}

test('overlapping background writes: the background write and trackMigrationOp run in each caller\'s context', async () => {
  const probe = makeProbe(als);
  const stages = { A: 'dualwrite', B: 'live', C: 'shadow', D: 'rampdown' };
  const { migrator, held, events } = build(probe, { stages, trackers: new Set(['C']) });
  const ids = Object.keys(stages);
  const results = ids.map((id) => start(migrator, 'write', id));
  await turns();
  const auth = (id) => (['dualwrite', 'shadow'].includes(stages[id]) ? 'write:old' : 'write:new');
  const other = (id) => (auth(id) === 'write:old' ? 'write:new' : 'write:old');
  for (const id of ['D', 'B', 'A', 'C']) held.release(id, auth(id));
  const written = await Promise.all(results);
  for (const w of written) assert.equal(w.nonAuthoritative, undefined);
  await turns();
  for (const id of ['A', 'C', 'D', 'B']) held.release(id, other(id));
  await migrator.settled();
  assert.equal(events.length, 4);
  for (const id of ids) assertSeen(probe, id, ['write:old', 'write:new', 'write:old:continued', 'write:new:continued', 'trackMigrationOp', 'meter.add']);
  assertSeen(probe, 'C', ['tracker.invoked', 'tracker.createEvent']);
  assertAllInCallersContext(probe);
});

test('a background origin failing after the caller left: its tracker.error and event in the caller\'s context', async () => {
  const probe = makeProbe(als);
  const stages = { A: 'shadow', B: 'shadow' };
  const { migrator, held } = build(probe, { stages, trackers: new Set(['A', 'B']) });
  const results = ['A', 'B'].map((id) => start(migrator, 'read', id));
  await turns();
  held.release('B', 'read:old');
  held.release('A', 'read:old');
  await Promise.all(results);
  held.release('A', 'read:new', new Error('A shadow broke'));
  held.release('B', 'read:new', new Error('B shadow broke'));
  await migrator.settled();
  for (const id of ['A', 'B']) assertSeen(probe, id, ['tracker.error', 'tracker.createEvent', 'trackMigrationOp']);
  assertAllInCallersContext(probe);
});

test('shed operations keep their caller\'s context too', async () => {
  const probe = makeProbe(als);
  const stages = { A: 'shadow', B: 'shadow', C: 'live' };
  const { migrator, held, events } = build(probe, { stages, maxInFlight: 1 });
  const a = start(migrator, 'read', 'A');
  await turns();
  held.release('A', 'read:old');
  await a;
  const rest = ['B', 'C'].map((id) => start(migrator, 'read', id));
  await turns();
  held.release('C', 'read:new');
  held.release('B', 'read:old');
  await Promise.all(rest);
  assert.equal(migrator.stats().read.shed, 2);
  held.release('A', 'read:new');
  await migrator.settled();
  assert.equal(events.length, 3);
  for (const id of ['B', 'C']) assertSeen(probe, id, ['trackMigrationOp', 'meter.add']);
  assertAllInCallersContext(probe);
});
