// Stage table, reads — SPEC.md A1 (read runs / read returns / consistency check columns).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CTX, STAGES, setup, measurement } from './helpers/migration.mjs';

const TABLE = {
  off: { runs: ['old'], returns: 'old', consistency: false },
  dualwrite: { runs: ['old'], returns: 'old', consistency: false },
  shadow: { runs: ['new', 'old'], returns: 'old', consistency: true },
  live: { runs: ['new', 'old'], returns: 'new', consistency: true },
  rampdown: { runs: ['new'], returns: 'new', consistency: false },
  complete: { runs: ['new'], returns: 'new', consistency: false },
};

for (const stage of STAGES) {
  const row = TABLE[stage];

  test(`read at ${stage}: runs ${row.runs.join('+')}, returns ${row.returns}`, async () => {
    let compared = 0;
    const { migrator, rec, events } = setup({
      stage,
      comparison: () => {
        compared++;
        return true;
      },
    });
    const r = await migrator.read('mig', CTX, 'off');
    assert.deepEqual(rec.names().sort(), row.runs);
    assert.equal(r.origin, row.returns);
    assert.equal(r.success, true);
    assert.equal(r.value, `${row.returns}-value`);
    assert.equal(compared, row.consistency ? 1 : 0);
    assert.equal(events.length, 1);
    const invoked = measurement(events[0], 'invoked');
    const expected = {};
    for (const o of ['old', 'new']) if (row.runs.includes(o)) expected[o] = true;
    assert.deepEqual(invoked.values, expected);
    assert.equal(Boolean(measurement(events[0], 'consistent')), row.consistency);
  });

  test(`read at ${stage}: the authoritative failure is returned as a result`, async () => {
    const err = new Error(`${row.returns} down`);
    const opts = { stage };
    opts[row.returns === 'old' ? 'readOld' : 'readNew'] = () => {
      throw err;
    };
    const { migrator } = setup(opts);
    const r = await migrator.read('mig', CTX, 'off');
    assert.equal(r.origin, row.returns);
    assert.equal(r.success, false);
    assert.equal(r.error, err);
  });

  test(`read at ${stage}: the payload object goes unchanged to every origin that runs`, async () => {
    const payload = { id: 17, nested: { a: [1, 2] } };
    const snapshot = structuredClone(payload);
    const { migrator, rec } = setup({ stage });
    await migrator.read('mig', CTX, 'off', payload);
    assert.equal(rec.calls.length, row.runs.length);
    for (const call of rec.calls) {
      assert.equal(call.payload, payload, 'same object identity');
      assert.ok(call.signal instanceof AbortSignal, 'second argument is an AbortSignal');
      assert.equal(call.signal.aborted, false);
    }
    assert.deepEqual(payload, snapshot);
  });
}

test('read without payload passes undefined and an AbortSignal', async () => {
  const { migrator, rec } = setup({ stage: 'shadow' });
  await migrator.read('mig', CTX, 'off');
  assert.equal(rec.calls.length, 2);
  for (const call of rec.calls) {
    assert.equal(call.payload, undefined);
    assert.ok(call.signal instanceof AbortSignal);
  }
});

test('shadow read returns old success even when new fails', async () => {
  const { migrator, events } = setup({
    stage: 'shadow',
    readNew: () => Promise.reject(new Error('new broke')),
    comparison: () => true,
  });
  const r = await migrator.read('mig', CTX, 'off');
  assert.deepEqual([r.origin, r.success, r.value], ['old', true, 'old-value']);
  assert.deepEqual(measurement(events[0], 'error').values, { new: true });
  assert.equal(measurement(events[0], 'consistent'), undefined);
});

test('live read returns new success even when old fails', async () => {
  const { migrator, events } = setup({
    stage: 'live',
    readOld: () => {
      throw new Error('old broke');
    },
  });
  const r = await migrator.read('mig', CTX, 'off');
  assert.deepEqual([r.origin, r.success, r.value], ['new', true, 'new-value']);
  assert.deepEqual(measurement(events[0], 'error').values, { old: true });
});

test('live read returns new failure when new fails and old succeeds', async () => {
  const err = new TypeError('nope');
  const { migrator } = setup({ stage: 'live', readNew: async () => { throw err; } });
  const r = await migrator.read('mig', CTX, 'off');
  assert.equal(r.origin, 'new');
  assert.equal(r.success, false);
  assert.equal(r.error, err);
});

test('async origins resolve to their values', async () => {
  const { migrator } = setup({
    stage: 'live',
    readOld: async () => ({ from: 'old' }),
    readNew: async () => ({ from: 'new' }),
  });
  const r = await migrator.read('mig', CTX, 'off');
  assert.deepEqual(r.value, { from: 'new' });
});

test('origin values are passed through by identity (objects, undefined, null, falsy)', async () => {
  const obj = { big: new Array(3).fill('x') };
  for (const value of [obj, undefined, null, 0, '', false]) {
    const { migrator } = setup({ stage: 'off', readOld: () => value });
    const r = await migrator.read('mig', CTX, 'off');
    assert.equal(r.success, true);
    assert.equal(r.value, value);
  }
});

test('the stage served by the client wins over the default stage', async () => {
  const { migrator, client } = setup({ stage: 'complete' });
  const r = await migrator.read('mig', CTX, 'off');
  assert.equal(r.origin, 'new');
  assert.deepEqual(client.asks, [{ key: 'mig', context: CTX, defaultStage: 'off' }]);
});

test('the stage is evaluated per operation', async () => {
  const { migrator, client } = setup({ stage: 'off' });
  assert.equal((await migrator.read('mig', CTX, 'off')).origin, 'old');
  client.evaluation = 'complete';
  assert.equal((await migrator.read('mig', CTX, 'off')).origin, 'new');
  client.evaluation = { value: 'live' };
  assert.equal((await migrator.read('mig', CTX, 'off')).origin, 'new');
  client.evaluation = () => Promise.resolve('dualwrite');
  assert.equal((await migrator.read('mig', CTX, 'off')).origin, 'old');
});
