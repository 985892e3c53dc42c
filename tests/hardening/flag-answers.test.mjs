// Hostile answers from a flag client: getters that throw, trackers that are throwing proxies or
// not objects at all. cutover reads an answer in one call; the operation completes at the right
// stage, a property that throws reads as missing, and nothing escapes as an exception.
// Each test gets its own wasm instance, so one failure cannot take the others down with it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { moduleLoader, watchProcess } from './helpers/harness.mjs';

const loader = moduleLoader(createRequire(import.meta.url));
test.after(() => loader.dispose());
const watch = watchProcess();
test.after(() => watch.dispose());
const CTX = Object.freeze({ kind: 'user', key: 'u1' });

function capture() {
  const lines = [];
  const logger = {};
  for (const level of ['debug', 'info', 'warn', 'error']) {
    logger[level] = (...args) => lines.push({ level, text: args.map((a) => String(a)).join(' ') });
  }
  return { logger, errors: () => lines.filter((l) => l.level === 'error').map((l) => l.text) };
}

/** A migrator over a client that serves `answer()` and collects what reaches trackMigrationOp. */
function migrator(c, answer, logger) {
  const sent = [];
  const client = { migrationVariation: () => answer(), trackMigrationOp: (e) => sent.push(e) };
  const m = new c.MigratorBuilder(client, { logger })
    .read(() => 'old-value', () => 'new-value', (a, b) => a === b)
    .write(() => 'old-written', () => 'new-written')
    .build();
  return { m, sent };
}

function recordingTracker() {
  const calls = [];
  const event = { kind: 'migration_op', fromTracker: true };
  return {
    calls,
    event,
    op: (o) => calls.push(['op', o]),
    invoked: (o) => calls.push(['invoked', o]),
    latency: (o) => calls.push(['latency', o]),
    error: (o) => calls.push(['error', o]),
    consistency: (check) => calls.push(['consistency', check()]),
    createEvent: () => event,
  };
}

test('an answer whose reason getter throws: the served stage still runs and the other fields are read', async () => {
  const c = loader.fresh();
  const log = capture();
  const answer = () => ({
    value: 'live',
    variationIndex: 3,
    flagVersion: 9,
    get reason() {
      throw new Error('reason getter');
    },
  });
  const { m, sent } = migrator(c, answer, log.logger);
  const r = await m.read('flag', CTX, 'off');
  assert.equal(r.origin, 'new', "stage 'live' reads from new");
  assert.equal(r.value, 'new-value');
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0].evaluation, { key: 'flag', value: 'live', default: 'off', variation: 3, version: 9 });
});

test('an answer whose tracker getter throws: no tracker, cutover tracks the operation itself', async () => {
  const c = loader.fresh();
  const answer = () => ({
    value: 'shadow',
    get tracker() {
      throw new Error('tracker getter');
    },
  });
  const { m, sent } = migrator(c, answer, capture().logger);
  const r = await m.read('flag', CTX, 'off');
  assert.equal(r.origin, 'old');
  assert.equal(sent.length, 1);
  assert.equal(sent[0].kind, 'migration_op');
  assert.deepEqual(sent[0].measurements.find((x) => x.key === 'invoked').values, { old: true, new: true });
});

test('a tracker proxy whose latency property throws is not used: an error names latency(), own event sent', async () => {
  const c = loader.fresh();
  const log = capture();
  const inner = recordingTracker();
  const tracker = new Proxy(inner, {
    get(target, key) {
      if (key === 'latency') throw new Error('trap');
      return Reflect.get(target, key);
    },
  });
  const { m, sent } = migrator(c, () => ({ value: 'shadow', tracker }), log.logger);
  const r = await m.read('flag', CTX, 'off');
  assert.equal(r.value, 'old-value');
  assert.equal(inner.calls.length, 0, 'the tracker was not used');
  assert.ok(log.errors().some((t) => t.includes('latency()')), log.errors().join('\n'));
  assert.equal(sent.length, 1);
  assert.equal(sent[0].kind, 'migration_op');
  assert.notEqual(sent[0], inner.event);
});

test('a tracker that is not an object is not used (its first method is named missing)', async () => {
  const c = loader.fresh();
  for (const tracker of [5, 'tracker', true]) {
    const log = capture();
    const { m, sent } = migrator(c, () => ({ value: 'shadow', tracker }), log.logger);
    const r = await m.read('flag', CTX, 'off');
    assert.equal(r.value, 'old-value', String(tracker));
    assert.ok(log.errors().some((t) => t.includes('op()')), `${tracker}: ${log.errors().join('\n')}`);
    assert.equal(sent.length, 1, String(tracker));
    assert.equal(sent[0].kind, 'migration_op');
  }
});

test('a revoked proxy as the answer runs at the default stage', async () => {
  const c = loader.fresh();
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  const { m } = migrator(c, () => proxy, capture().logger);
  const r = await m.read('flag', CTX, 'complete');
  assert.equal(r.origin, 'new', "default 'complete' reads from new");
  const w = await m.write('flag', CTX, 'off');
  assert.equal(w.authoritative.origin, 'old', "default 'off' writes to old");
});

test('a usable tracker receives every measurement in order, and its event is what is sent', async () => {
  const c = loader.fresh();
  const tracker = recordingTracker();
  const { m, sent } = migrator(c, () => ({ value: 'shadow', tracker }), capture().logger);
  await m.read('flag', CTX, 'off');
  // The check runs when both values are there; the other measurements are replayed together when
  // the operation ends (one crossing): the operation, then each call, then createEvent.
  assert.deepEqual(tracker.calls[0], ['consistency', false]);
  assert.deepEqual(tracker.calls[1], ['op', 'read']);
  assert.deepEqual(
    tracker.calls.filter((x) => x[0] === 'invoked').map((x) => x[1]).sort(),
    ['new', 'old'],
  );
  assert.deepEqual(tracker.calls.find((x) => x[0] === 'consistency'), ['consistency', false], "'old-value' !== 'new-value'");
  assert.deepEqual(sent, [tracker.event]);
});
