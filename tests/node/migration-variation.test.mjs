// migrationVariation and its fallbacks — SPEC.md A7; API.md migrationVariation / MigrationClient.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MigratorBuilder, OpTracker, migrationVariation } from 'cutover';
import { CTX, STAGES, makeClient, makeLogger, normalizeEvent, setup } from './helpers/migration.mjs';

const evaluationOf = (tracker, op = 'read', origin = 'old') => tracker.operation(op).invoked(origin).build().evaluation;

test('served stage is returned with an OpTracker holding the evaluation as served', async () => {
  const c = makeClient({
    value: 'live',
    variationIndex: 3,
    reason: { kind: 'RULE_MATCH', ruleIndex: 1, ruleId: 'abc' },
    flagVersion: 12,
  });
  const res = await migrationVariation(c.client, 'mig', CTX, 'off');
  assert.equal(res.stage, 'live');
  assert.ok(res.tracker instanceof OpTracker);
  assert.deepEqual(c.asks, [{ key: 'mig', context: CTX, defaultStage: 'off' }]);
  assert.deepEqual(evaluationOf(res.tracker), {
    key: 'mig',
    value: 'live',
    default: 'off',
    variation: 3,
    version: 12,
    reason: { kind: 'RULE_MATCH', ruleIndex: 1, ruleId: 'abc' },
  });
});

for (const stage of STAGES) {
  test(`every valid stage is accepted: ${stage} (string and object, sync and async)`, async () => {
    for (const ev of [() => stage, () => ({ value: stage }), async () => stage, async () => ({ value: stage })]) {
      const res = await migrationVariation(makeClient(ev).client, 'k', CTX, stage === 'off' ? 'complete' : 'off');
      assert.equal(res.stage, stage);
    }
  });
}

test('the tracker uses samplingRatio/checkRatio from the evaluation', async () => {
  const c = makeClient({ value: 'shadow', samplingRatio: 7, checkRatio: 1 });
  const { tracker } = await migrationVariation(c.client, 'mig', CTX, 'off');
  const e = tracker.operation('read').invoked('old').invoked('new').consistent(() => true).build();
  assert.equal(e.samplingRatio, 7);
  assert.deepEqual(e.measurements[1], { key: 'consistent', value: true });
});

test('client throws synchronously → default stage, reason ERROR/EXCEPTION', async () => {
  const c = makeClient(() => {
    throw new Error('flag service down');
  });
  const res = await migrationVariation(c.client, 'mig', CTX, 'rampdown');
  assert.equal(res.stage, 'rampdown');
  assert.deepEqual(evaluationOf(res.tracker), {
    key: 'mig',
    value: 'rampdown',
    default: 'rampdown',
    reason: { kind: 'ERROR', errorKind: 'EXCEPTION' },
  });
});

test('client rejects (also with a non-Error) → default stage, reason ERROR/EXCEPTION', async () => {
  for (const thrown of [new Error('x'), 'string reason', { code: 1 }, undefined]) {
    const c = makeClient(() => Promise.reject(thrown));
    const res = await migrationVariation(c.client, 'mig', CTX, 'dualwrite');
    assert.equal(res.stage, 'dualwrite');
    assert.deepEqual(evaluationOf(res.tracker, 'write').reason, { kind: 'ERROR', errorKind: 'EXCEPTION' });
  }
});

test('client that rejects after an await → default stage', async () => {
  const c = makeClient(async () => {
    await null;
    throw new RangeError('late');
  });
  const res = await migrationVariation(c.client, 'mig', CTX, 'shadow');
  assert.equal(res.stage, 'shadow');
});

const WRONG_VALUES = {
  'upper-case stage': 'LIVE',
  'capitalised stage': 'Shadow',
  'padded stage': ' live',
  'unknown string': 'bogus',
  'empty string': '',
  number: 42,
  null: null,
  'boolean': true,
  'array': ['live'],
  'object': { stage: 'live' },
};

for (const [name, value] of Object.entries(WRONG_VALUES)) {
  test(`served value not a stage (${name}) → default stage, WRONG_TYPE, version kept, no variation`, async () => {
    const c = makeClient({ value, variationIndex: 4, flagVersion: 5, reason: { kind: 'FALLTHROUGH' } });
    const res = await migrationVariation(c.client, 'mig', CTX, 'live');
    assert.equal(res.stage, 'live');
    assert.deepEqual(evaluationOf(res.tracker), {
      key: 'mig',
      value: 'live',
      default: 'live',
      version: 5,
      reason: { kind: 'ERROR', errorKind: 'WRONG_TYPE' },
    });
  });
}

test('served value missing → default stage, WRONG_TYPE', async () => {
  const c = makeClient({ flagVersion: 1 });
  const res = await migrationVariation(c.client, 'mig', CTX, 'complete');
  assert.equal(res.stage, 'complete');
  assert.deepEqual(evaluationOf(res.tracker, 'read', 'new'), {
    key: 'mig',
    value: 'complete',
    default: 'complete',
    version: 1,
    reason: { kind: 'ERROR', errorKind: 'WRONG_TYPE' },
  });
});

test('a plain string return that is not a stage → default stage, WRONG_TYPE', async () => {
  const c = makeClient(() => 'nope');
  const res = await migrationVariation(c.client, 'mig', CTX, 'shadow');
  assert.equal(res.stage, 'shadow');
  assert.deepEqual(evaluationOf(res.tracker), {
    key: 'mig',
    value: 'shadow',
    default: 'shadow',
    reason: { kind: 'ERROR', errorKind: 'WRONG_TYPE' },
  });
});

test('client returning undefined → default stage, nothing crashes', async () => {
  const res = await migrationVariation(makeClient(() => undefined).client, 'mig', CTX, 'live');
  assert.equal(res.stage, 'live');
  const m = new MigratorBuilder(makeClient(() => undefined).client, { logger: makeLogger().logger })
    .read(() => 'o', () => 'n').write(() => 1, () => 2).build();
  assert.equal((await m.read('mig', CTX, 'live')).value, 'n');
});

test('Migrator: a throwing client runs the default stage and the event says ERROR/EXCEPTION', async () => {
  const { migrator, events } = setup({
    evaluation: () => {
      throw new Error('down');
    },
  });
  const r = await migrator.read('mig', CTX, 'complete');
  assert.equal(r.origin, 'new');
  assert.deepEqual(normalizeEvent(events[0]).evaluation, {
    key: 'mig',
    value: 'complete',
    default: 'complete',
    reason: { kind: 'ERROR', errorKind: 'EXCEPTION' },
  });
});

test('Migrator: a wrong-type served value runs the default stage and the event says WRONG_TYPE', async () => {
  const { migrator, events } = setup({ evaluation: { value: 'Live', variationIndex: 1, flagVersion: 8 } });
  const w = await migrator.write('mig', CTX, 'rampdown');
  assert.equal(w.authoritative.origin, 'new');
  assert.equal(w.nonAuthoritative.origin, 'old');
  assert.deepEqual(events[0].evaluation, {
    key: 'mig',
    value: 'rampdown',
    default: 'rampdown',
    version: 8,
    reason: { kind: 'ERROR', errorKind: 'WRONG_TYPE' },
  });
});

test('Migrator: invalid default stage is logged, the client is asked with off, and a valid served stage wins', async () => {
  const { migrator, log, client, events } = setup({ stage: 'live' });
  const r = await migrator.read('mig', CTX, 'bogus');
  assert.equal(r.origin, 'new');
  assert.equal(client.asks[0].defaultStage, 'off');
  assert.ok(
    log.has('error', 'default stage "bogus" is not a valid stage; using \'off\' instead'),
    JSON.stringify(log.calls.map((c) => [c.level, c.text])),
  );
  assert.equal(events[0].evaluation.default, 'off');
  assert.equal(events[0].evaluation.value, 'live');
});

test('Migrator: invalid default stage and invalid served value → runs at off', async () => {
  for (const def of [123, undefined, null, 'OFF', '']) {
    const { migrator, log, client } = setup({ evaluation: { value: 'garbage' } });
    const r = await migrator.read('mig', CTX, def);
    assert.equal(r.origin, 'old');
    assert.deepEqual(client.asks.map((a) => a.defaultStage), ['off']);
    // A string quoted (so that '' and 'OFF' show), anything else as String() prints it.
    const printed = typeof def === 'string' ? JSON.stringify(def) : String(def);
    assert.ok(log.has('error', `default stage ${printed} is not a valid stage; using 'off' instead`), String(def));
    const w = await migrator.write('mig', CTX, def);
    assert.equal(w.authoritative.origin, 'old');
    assert.equal(w.nonAuthoritative, undefined);
  }
});

test('Migrator: invalid default stage with a throwing client → runs at off', async () => {
  const { migrator, events } = setup({
    evaluation: () => {
      throw new Error('x');
    },
  });
  const r = await migrator.read('mig', CTX, 'nonsense');
  assert.equal(r.origin, 'old');
  assert.deepEqual(events[0].evaluation, {
    key: 'mig',
    value: 'off',
    default: 'off',
    reason: { kind: 'ERROR', errorKind: 'EXCEPTION' },
  });
});

test('exported migrationVariation: invalid default stage asks the client with off', async () => {
  const c = makeClient({ value: 'not-a-stage' });
  const res = await migrationVariation(c.client, 'mig', CTX, 'Shadow');
  assert.equal(c.asks[0].defaultStage, 'off');
  assert.equal(res.stage, 'off');
});
