// Consistency & sampling — SPEC.md A3, A5 (sampling rule), A6 (samplingRatio / consistent measurement).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CTX, setup, measurement, normalizeEvent } from './helpers/migration.mjs';

test('comparison receives (oldValue, newValue) in shadow', async () => {
  const seen = [];
  const { migrator } = setup({
    stage: 'shadow',
    readOld: () => 'OLD',
    readNew: async () => 'NEW',
    comparison: (...args) => {
      seen.push(args);
      return true;
    },
  });
  await migrator.read('mig', CTX, 'off');
  assert.deepEqual(seen, [['OLD', 'NEW']]);
});

test('comparison receives (oldValue, newValue) in live too (new is authoritative)', async () => {
  const seen = [];
  const { migrator } = setup({
    stage: 'live',
    readOld: async () => 'OLD',
    readNew: () => 'NEW',
    comparison: (a, b) => {
      seen.push([a, b]);
      return false;
    },
  });
  const r = await migrator.read('mig', CTX, 'off');
  assert.equal(r.value, 'NEW');
  assert.deepEqual(seen, [['OLD', 'NEW']]);
});

test('comparison receives the origin values by identity', async () => {
  const o = { o: 1 };
  const n = { n: 1 };
  let got;
  const { migrator } = setup({ stage: 'shadow', readOld: () => o, readNew: () => n, comparison: (a, b) => ((got = [a, b]), true) });
  await migrator.read('mig', CTX, 'off');
  assert.equal(got[0], o);
  assert.equal(got[1], n);
});

test('consistent measurement carries the comparison result', async () => {
  for (const result of [true, false]) {
    const { migrator, events } = setup({ stage: 'shadow', comparison: () => result });
    await migrator.read('mig', CTX, 'off');
    assert.deepEqual(measurement(events[0], 'consistent'), { key: 'consistent', value: result });
  }
});

test('no comparison configured → no consistent measurement', async () => {
  const { migrator, events } = setup({ stage: 'shadow' });
  await migrator.read('mig', CTX, 'off');
  assert.equal(measurement(events[0], 'consistent'), undefined);
});

test('consistency only when both origins succeed', async () => {
  const cases = [
    { readOld: () => { throw new Error('o'); } },
    { readNew: () => Promise.reject(new Error('n')) },
    { readOld: () => { throw 'o'; }, readNew: () => { throw 'n'; } },
  ];
  for (const stage of ['shadow', 'live']) {
    for (const c of cases) {
      let compared = 0;
      const { migrator, events } = setup({ stage, ...c, comparison: () => ++compared > 0 });
      await migrator.read('mig', CTX, 'off');
      assert.equal(compared, 0);
      assert.equal(measurement(events[0], 'consistent'), undefined);
    }
  }
});

test('a throwing comparison is logged at error level, records nothing and never fails the read', async () => {
  for (const thrown of [new Error('cmp exploded'), 'cmp string']) {
    const { migrator, events, log } = setup({
      stage: 'live',
      comparison: () => {
        throw thrown;
      },
    });
    const r = await migrator.read('mig', CTX, 'off');
    assert.equal(r.success, true);
    assert.equal(r.value, 'new-value');
    assert.equal(events.length, 1);
    assert.equal(measurement(events[0], 'consistent'), undefined);
    assert.ok(log.texts('error').length >= 1, 'an error was logged');
    assert.deepEqual(measurement(events[0], 'invoked').values, { old: true, new: true });
  }
});

function evalWith(extra) {
  return { value: 'shadow', ...extra };
}

test('checkRatio 1 (and absent) always checks', async () => {
  for (const extra of [{ checkRatio: 1 }, {}]) {
    let compared = 0;
    const { migrator, events } = setup({ evaluation: evalWith(extra), comparison: () => ++compared > 0 });
    for (let i = 0; i < 50; i++) await migrator.read('mig', CTX, 'off');
    assert.equal(compared, 50);
    assert.equal(events.filter((e) => measurement(e, 'consistent')).length, 50);
    for (const e of events) assert.ok(!('samplingRatio' in measurement(e, 'consistent')), 'ratio 1 is omitted');
  }
});

test('checkRatio 0, negative or non-integer never checks', async () => {
  for (const checkRatio of [0, -1, -4, 2.5, 0.5]) {
    let compared = 0;
    const { migrator, events } = setup({ evaluation: evalWith({ checkRatio }), comparison: () => ++compared > 0 });
    for (let i = 0; i < 60; i++) await migrator.read('mig', CTX, 'off');
    assert.equal(compared, 0, `checkRatio ${checkRatio}`);
    assert.equal(events.length, 60);
    assert.equal(events.filter((e) => measurement(e, 'consistent')).length, 0);
    assert.equal(migrator.stats().read.consistency.checked, 0);
  }
});

test('checkRatio 4 checks roughly 1 in 4 reads and records samplingRatio 4', async () => {
  let compared = 0;
  const { migrator, events } = setup({ evaluation: evalWith({ checkRatio: 4 }), comparison: () => ++compared > 0 });
  const N = 1200;
  for (let i = 0; i < N; i++) await migrator.read('mig', CTX, 'off');
  const rate = compared / N;
  assert.ok(rate > 0.17 && rate < 0.33, `rate ${rate}`);
  const withConsistent = events.map((e) => measurement(e, 'consistent')).filter(Boolean);
  assert.equal(withConsistent.length, compared);
  for (const m of withConsistent) assert.deepEqual(m, { key: 'consistent', value: true, samplingRatio: 4 });
  assert.equal(migrator.stats().read.consistency.checked, compared);
});

test('samplingRatio 1 (and absent) always sends the event, without a samplingRatio field', async () => {
  for (const extra of [{ samplingRatio: 1 }, {}]) {
    const { migrator, events } = setup({ evaluation: evalWith(extra) });
    for (let i = 0; i < 40; i++) await migrator.read('mig', CTX, 'off');
    assert.equal(events.length, 40);
    for (const e of events) assert.ok(!('samplingRatio' in e));
  }
});

test('samplingRatio 0, negative or non-integer never sends an event (operations still work)', async () => {
  for (const samplingRatio of [0, -1, 2.5, 0.25]) {
    const { migrator, events } = setup({ evaluation: evalWith({ samplingRatio }), comparison: () => true });
    for (let i = 0; i < 60; i++) {
      const r = await migrator.read('mig', CTX, 'off');
      assert.equal(r.value, 'old-value');
      await migrator.write('mig', CTX, 'off');
    }
    assert.equal(events.length, 0, `samplingRatio ${samplingRatio}`);
    assert.equal(migrator.stats().read.count, 60);
    assert.equal(migrator.stats().write.count, 60);
  }
});

test('samplingRatio 4 sends roughly 1 in 4 events, each with samplingRatio 4', async () => {
  const { migrator, events } = setup({ evaluation: evalWith({ samplingRatio: 4 }) });
  const N = 1200;
  for (let i = 0; i < N; i++) await migrator.read('mig', CTX, 'off');
  const rate = events.length / N;
  assert.ok(rate > 0.17 && rate < 0.33, `rate ${rate}`);
  for (const e of events) assert.equal(e.samplingRatio, 4);
});

test('event sampling does not affect consistency checking (comparison runs for unsent events)', async () => {
  let compared = 0;
  const { migrator, events } = setup({ evaluation: evalWith({ samplingRatio: 0, checkRatio: 1 }), comparison: () => ++compared > 0 });
  for (let i = 0; i < 10; i++) await migrator.read('mig', CTX, 'off');
  assert.equal(events.length, 0);
  assert.equal(compared, 10);
  assert.deepEqual(migrator.stats().read.consistency, { checked: 10, consistent: 10, paths: {} });
});

test('spec example shape: samplingRatio 3 and checkRatio 5 with a failing new origin', async () => {
  const evaluation = {
    value: 'shadow',
    variationIndex: 1,
    flagVersion: 7,
    reason: { kind: 'FALLTHROUGH' },
    samplingRatio: 3,
    checkRatio: 5,
  };
  const { migrator, events } = setup({
    evaluation,
    comparison: () => true,
    readNew: () => {
      throw new Error('new failed');
    },
  });
  let i = 0;
  while (events.length === 0 && i++ < 400) await migrator.read('mig', CTX, 'live');
  assert.equal(events.length, 1, 'an event was eventually sampled');
  assert.deepEqual(normalizeEvent(events[0]), {
    kind: 'migration_op',
    creationDate: 0,
    operation: 'read',
    context: { kind: 'user', key: 'u1' },
    evaluation: { key: 'mig', value: 'shadow', default: 'live', variation: 1, version: 7, reason: { kind: 'FALLTHROUGH' } },
    samplingRatio: 3,
    measurements: [
      { key: 'invoked', values: { old: true, new: true } },
      { key: 'latency_ms', values: { old: 0, new: 0 } },
      { key: 'error', values: { new: true } },
    ],
  });
});

test('comparison is called even when both values are undefined', async () => {
  const seen = [];
  const { migrator } = setup({ stage: 'shadow', readOld: () => undefined, readNew: async () => undefined, comparison: (...a) => (seen.push(a), true) });
  await migrator.read('mig', CTX, 'off');
  assert.equal(seen.length, 1);
  assert.equal(seen[0].length, 2);
  assert.equal(seen[0][0], undefined);
  assert.equal(seen[0][1], undefined);
});
