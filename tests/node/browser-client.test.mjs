// launchDarklyBrowserClient(ldClient, options) with a stand-in for the browser SDK's
// variationDetail: argument errors, the answer the core gets (value, variationIndex, reason),
// SPEC A7 for missing and non-stage values, events (absent, live, throwing), the ratios, and
// which context the event names. The real SDK in Chromium: tests/runtimes/chromium-launchdarkly.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MigratorBuilder, launchDarklyBrowserClient, migrationVariation } from 'cutover';
import { makeLogger } from './helpers/common.mjs';

const CONTEXT = Object.freeze({ kind: 'user', key: 'u1' });

/** A stand-in for the browser SDK: `flags` maps keys to details (or values: a detail of variation 0). */
function standIn(flags = {}) {
  const calls = [];
  return {
    calls,
    flags,
    variationDetail(key, defaultValue) {
      calls.push([key, defaultValue]);
      if (!(key in this.flags)) {
        return { value: defaultValue ?? null, variationIndex: null, reason: { kind: 'ERROR', errorKind: 'FLAG_NOT_FOUND' } };
      }
      const f = this.flags[key];
      return typeof f === 'object' && f !== null && 'value' in f ? f : { value: f, variationIndex: 0, reason: { kind: 'FALLTHROUGH' } };
    },
  };
}

function migratorOver(client, logger) {
  return new MigratorBuilder(client, logger ? { logger } : undefined)
    .read(async () => 'old', async () => 'new', (a, b) => a === b)
    .write(async () => 'w-old', async () => 'w-new')
    .build();
}

test('ldClient without variationDetail: TypeError naming ldClient', () => {
  for (const bad of [undefined, null, 5, 'client', {}, { variation() {} }, { variationDetail: 'no' }]) {
    assert.throws(() => launchDarklyBrowserClient(bad), {
      name: 'TypeError',
      message: /^launchDarklyBrowserClient: ldClient must have a variationDetail method, got /,
    });
  }
});

test('bad options: TypeError or RangeError naming the option', () => {
  const ld = standIn();
  assert.throws(() => launchDarklyBrowserClient(ld, null), { name: 'TypeError', message: 'launchDarklyBrowserClient: options must be an object, got null' });
  assert.throws(() => launchDarklyBrowserClient(ld, 'x'), { name: 'TypeError', message: 'launchDarklyBrowserClient: options must be an object, got string "x"' });
  assert.throws(() => launchDarklyBrowserClient(ld, { event: () => {} }), {
    name: 'TypeError',
    message: 'event is not an option of launchDarklyBrowserClient; did you mean events?',
  });
  assert.throws(() => launchDarklyBrowserClient(ld, { events: 'https://x.test/e' }), {
    name: 'TypeError',
    message: 'launchDarklyBrowserClient: options.events must be a function, got string "https://x.test/e"',
  });
  assert.throws(() => launchDarklyBrowserClient(ld, { samplingRatio: '2' }), {
    name: 'TypeError',
    message: 'launchDarklyBrowserClient: options.samplingRatio must be a number, got string "2"',
  });
  for (const [name, value, got] of [['samplingRatio', 2.5, '2.5'], ['samplingRatio', -1, '-1'], ['checkRatio', NaN, 'NaN'], ['checkRatio', Infinity, 'Infinity'], ['checkRatio', 2 ** 53, '9007199254740992']]) {
    assert.throws(() => launchDarklyBrowserClient(ld, { [name]: value }), {
      name: 'RangeError',
      message: `launchDarklyBrowserClient: options.${name} must be a whole number ≥ 0 (1 in N; 0: never), got number ${got}`,
    });
  }
  // Undefined values are the defaults.
  launchDarklyBrowserClient(ld, { events: undefined, samplingRatio: undefined, checkRatio: undefined });
  launchDarklyBrowserClient(ld, {});
});

test('the answer is the detail: value, variation index and reason; no version; ratios 1 by default', async () => {
  const ld = standIn({ 'mig': { value: 'shadow', variationIndex: 2, reason: { kind: 'RULE_MATCH', ruleIndex: 0, ruleId: 'r1' } } });
  const { stage, tracker } = await migrationVariation(launchDarklyBrowserClient(ld), 'mig', CONTEXT, 'off');
  assert.equal(stage, 'shadow');
  assert.deepEqual(ld.calls, [['mig', 'off']], 'variationDetail(flagKey, defaultStage)');
  tracker.operation('read').invoked('old').invoked('new');
  const event = tracker.build();
  assert.deepEqual(event.evaluation, { key: 'mig', value: 'shadow', default: 'off', reason: { kind: 'RULE_MATCH', ruleIndex: 0, ruleId: 'r1' }, variation: 2 });
  assert.equal('samplingRatio' in event, false, 'ratio 1 is omitted');
});

test('a missing flag: the default stage with the SDK\'s FLAG_NOT_FOUND reason, no variation', async () => {
  const events = [];
  const migrator = migratorOver(launchDarklyBrowserClient(standIn(), { events: (e) => events.push(e) }));
  const r = await migrator.read('nope', CONTEXT, 'live');
  assert.equal(r.origin, 'new', 'live: the new origin is authoritative');
  assert.deepEqual(events[0].evaluation, { key: 'nope', value: 'live', default: 'live', reason: { kind: 'ERROR', errorKind: 'FLAG_NOT_FOUND' } });
});

test('a value that is not a stage, or a detail that is not an object: the default stage, WRONG_TYPE', async () => {
  for (const served of [{ value: 'Live', variationIndex: 1 }, { value: true, variationIndex: 0 }, { value: { stage: 'live' }, variationIndex: 0 }]) {
    const events = [];
    const migrator = migratorOver(launchDarklyBrowserClient(standIn({ mig: served }), { events: (e) => events.push(e) }));
    const r = await migrator.read('mig', CONTEXT, 'shadow');
    assert.equal(r.origin, 'old', JSON.stringify(served));
    assert.deepEqual(events[0].evaluation, { key: 'mig', value: 'shadow', default: 'shadow', reason: { kind: 'ERROR', errorKind: 'WRONG_TYPE' } });
  }
  for (const detail of [undefined, null, 'live', 3]) {
    const events = [];
    const ld = { variationDetail: () => detail };
    const migrator = migratorOver(launchDarklyBrowserClient(ld, { events: (e) => events.push(e) }));
    const r = await migrator.read('mig', CONTEXT, 'dualwrite');
    assert.equal(r.origin, 'old', `dualwrite reads old: ${String(detail)}`);
    assert.equal(events[0].evaluation.value, 'dualwrite');
    assert.deepEqual(events[0].evaluation.reason, { kind: 'ERROR', errorKind: 'WRONG_TYPE' });
  }
});

test('a throwing variationDetail: the default stage with reason EXCEPTION (SPEC A7.2)', async () => {
  const events = [];
  const ld = { variationDetail() { throw new Error('not started'); } };
  const migrator = migratorOver(launchDarklyBrowserClient(ld, { events: (e) => events.push(e) }));
  const r = await migrator.read('mig', CONTEXT, 'complete');
  assert.equal(r.origin, 'new');
  assert.deepEqual(events[0].evaluation.reason, { kind: 'ERROR', errorKind: 'EXCEPTION' });
});

test('the event names the context passed to read(), whatever the SDK identified', async () => {
  const events = [];
  const identified = { kind: 'user', key: 'identified' };
  const ld = { ...standIn({ mig: 'live' }), getContext: () => identified };
  const migrator = migratorOver(launchDarklyBrowserClient(ld, { events: (e) => events.push(e) }));
  const other = { kind: 'user', key: 'someone-else' };
  await migrator.read('mig', other, 'off');
  await migrator.read('mig', ld.getContext(), 'off');
  assert.equal(events[0].context, other, 'the caller\'s object, by reference');
  assert.equal(events[1].context, identified);
});

test('without events, no event is made; events is read live at each operation', async () => {
  const opts = {};
  const client = launchDarklyBrowserClient(standIn({ mig: 'shadow' }), opts);
  assert.equal(client.trackMigrationOp, undefined, 'no events: no trackMigrationOp');
  const migrator = migratorOver(client);
  assert.equal((await migrator.read('mig', CONTEXT, 'off')).success, true);
  const events = [];
  opts.events = (e) => events.push(e);
  await migrator.write('mig', CONTEXT, 'off');
  assert.equal(events.length, 1);
  assert.equal(events[0].operation, 'write');
  const later = [];
  opts.events = (e) => later.push(e);
  await migrator.read('mig', CONTEXT, 'off');
  delete opts.events;
  await migrator.read('mig', CONTEXT, 'off');
  assert.deepEqual([events.length, later.length], [1, 1]);
});

test('a throwing events callback is logged by the core and never reaches the caller', async () => {
  const log = makeLogger();
  const client = launchDarklyBrowserClient(standIn({ mig: 'live' }), { events() { throw new Error('sink full'); } });
  const migrator = migratorOver(client, log.logger);
  const r = await migrator.read('mig', CONTEXT, 'off');
  assert.deepEqual(r, { origin: 'new', success: true, value: 'new' });
  assert.ok(log.has('error', 'trackMigrationOp threw') && log.has('error', 'sink full'), JSON.stringify(log.calls));
  const w = await migrator.write('mig', CONTEXT, 'off');
  assert.equal(w.authoritative.success, true);
});

test('samplingRatio: 0 sends nothing, N sends about 1 in N with samplingRatio N in the event', async () => {
  const none = [];
  const m0 = migratorOver(launchDarklyBrowserClient(standIn({ mig: 'shadow' }), { events: (e) => none.push(e), samplingRatio: 0 }));
  for (let i = 0; i < 50; i++) await m0.read('mig', CONTEXT, 'off');
  assert.equal(none.length, 0);
  assert.equal(m0.stats().read.count, 50, 'statistics count every operation, sampled or not');

  const some = [];
  const m4 = migratorOver(launchDarklyBrowserClient(standIn({ mig: 'shadow' }), { events: (e) => some.push(e), samplingRatio: 4 }));
  for (let i = 0; i < 400; i++) await m4.read('mig', CONTEXT, 'off');
  // 1 in 4 of 400: 100 expected; outside 40..180 has a probability far below 1e-9.
  assert.ok(some.length > 40 && some.length < 180, `${some.length} of 400`);
  assert.ok(some.every((e) => e.samplingRatio === 4));
});

test('checkRatio: 0 runs no comparison; the ratio is in the consistent measurement when N', async () => {
  let compared = 0;
  const build = (checkRatio, events) => new MigratorBuilder(launchDarklyBrowserClient(standIn({ mig: 'shadow' }), { events: (e) => events.push(e), checkRatio }))
    .read(async () => 1, async () => 1, (a, b) => (compared++, a === b))
    .write(async () => 1, async () => 1)
    .build();
  const e0 = [];
  const m0 = build(0, e0);
  for (let i = 0; i < 20; i++) await m0.read('mig', CONTEXT, 'off');
  assert.equal(compared, 0);
  assert.ok(e0.every((e) => !e.measurements.some((m) => m.key === 'consistent')));
  const e1 = [];
  const m1 = build(1, e1);
  await m1.read('mig', CONTEXT, 'off');
  assert.equal(compared, 1);
  assert.deepEqual(e1[0].measurements.find((m) => m.key === 'consistent'), { key: 'consistent', value: true, samplingRatio: 1 },
    'ratio 1 written too: LaunchDarkly\'s trackMigration (behind the relay) drops a consistent measurement without one');
  const e3 = [];
  const m3 = build(3, e3);
  for (let i = 0; i < 60 && !e3.some((e) => e.measurements.some((m) => m.key === 'consistent')); i++) await m3.read('mig', CONTEXT, 'off');
  assert.deepEqual(e3.flatMap((e) => e.measurements).find((m) => m.key === 'consistent'), { key: 'consistent', value: true, samplingRatio: 3 });
});

test('variationDetail is looked up at each call, with the resolved default when the caller\'s is invalid', async () => {
  const ld = standIn({});
  const client = launchDarklyBrowserClient(ld);
  const migrator = migratorOver(client, makeLogger().logger);
  ld.variationDetail = (key, def) => ({ value: 'complete', variationIndex: 5, reason: { kind: 'OFF' }, seen: def });
  assert.equal((await migrator.read('mig', CONTEXT, 'off')).origin, 'new');
  const seen = [];
  ld.variationDetail = (key, def) => (seen.push(def), { value: def, variationIndex: null });
  await migrator.read('mig', CONTEXT, 'bogus');
  assert.deepEqual(seen, ['off'], 'SPEC A7.1: an invalid default is asked as off');
});

test('the adapter is frozen and has no other methods', () => {
  const client = launchDarklyBrowserClient(standIn(), { events() {} });
  assert.ok(Object.isFrozen(client));
  assert.deepEqual(Object.keys(client).sort(), ['migrationVariation', 'trackMigrationOp']);
  assert.equal(typeof client.trackMigrationOp, 'function');
});
