// OpTracker and build() — API.md §1 "Events and the tracker"; SPEC.md A5, A6.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpTracker } from 'cutover';
import { CTX, normalizeEvent, setup } from './helpers/migration.mjs';

const EVAL = { value: 'shadow' };
const tracker = (key = 'mig', context = CTX, evaluation = EVAL, def = 'off') => new OpTracker(key, context, evaluation, def);

function buildError(t) {
  try {
    t.build();
  } catch (e) {
    assert.ok(e instanceof Error, 'build() throws an Error');
    return e.message;
  }
  assert.fail('build() did not throw');
}

test('methods are chainable', () => {
  const t = tracker();
  assert.equal(t.operation('read'), t);
  assert.equal(t.invoked('old'), t);
  assert.equal(t.invoked('new'), t);
  assert.equal(t.latency('old', 1), t);
  assert.equal(t.error('new'), t);
  assert.equal(t.consistent(() => true), t);
});

test('build() returns the event synchronously', () => {
  const e = tracker().operation('read').invoked('old').build();
  assert.equal(typeof e.then, 'undefined');
  assert.equal(e.kind, 'migration_op');
});

test('build(): operation never set → "operation not provided" (checked first)', () => {
  assert.equal(buildError(tracker()), 'operation not provided');
  assert.equal(buildError(tracker('', { key: '' }).latency('old', 1)), 'operation not provided');
});

test('build(): empty flag key → "migration operation cannot contain an empty key"', () => {
  assert.equal(buildError(tracker('').operation('read')), 'migration operation cannot contain an empty key');
  assert.equal(
    buildError(tracker('', { key: '' }).operation('write').invoked('old')),
    'migration operation cannot contain an empty key',
  );
});

test('build(): nothing invoked → "no origins were invoked" (before context validation)', () => {
  assert.equal(buildError(tracker().operation('read')), 'no origins were invoked');
  assert.equal(buildError(tracker('mig', { key: '' }).operation('read')), 'no origins were invoked');
  assert.equal(buildError(tracker().operation('read').latency('old', 3).error('new')), 'no origins were invoked');
});

const INVALID_CONTEXTS = {
  'legacy user with empty key': { key: '' },
  'legacy user with non-string key': { key: 5 },
  'missing key': { kind: 'user' },
  'empty object': {},
  'non-string key': { kind: 'user', key: 5 },
  'empty key': { kind: 'user', key: '' },
  'kind "kind"': { kind: 'kind', key: 'x' },
  'single kind "multi" with a key': { kind: 'multi', key: 'x' },
  'empty kind': { kind: '', key: 'x' },
  'kind with a space': { kind: 'us er', key: 'x' },
  'kind with a colon': { kind: 'org:x', key: 'x' },
  'multi without nested contexts': { kind: 'multi' },
  'multi with nested empty key': { kind: 'multi', user: { key: '' } },
  'multi with nested missing key': { kind: 'multi', user: { name: 'n' } },
  'multi with nested kind "multi"': { kind: 'multi', multi: { key: 'x' } },
  'multi with nested bad kind name': { kind: 'multi', 'bad kind': { key: 'x' } },
};

for (const [name, context] of Object.entries(INVALID_CONTEXTS)) {
  test(`build(): invalid context (${name}) → "provided context was invalid"`, () => {
    assert.equal(buildError(tracker('mig', context).operation('read').invoked('old')), 'provided context was invalid');
  });
}

const VALID_CONTEXTS = {
  'legacy user': { key: 'u' },
  'legacy user with attributes': { key: 'u', name: 'N', custom: { a: 1 } },
  'single kind': { kind: 'user', key: 'u' },
  'kind with allowed punctuation': { kind: 'my.org_kind-2', key: 'k' },
  'single with _meta': { kind: 'org', key: 'o', _meta: { privateAttributes: ['name'] }, name: 'x' },
  'multi with one nested': { kind: 'multi', user: { key: 'u' } },
  'multi with two nested': { kind: 'multi', user: { key: 'u' }, org: { key: 'o', name: 'Org' } },
};

for (const [name, context] of Object.entries(VALID_CONTEXTS)) {
  test(`build(): valid context (${name}) is accepted and passed as given`, () => {
    const e = tracker('mig', context).operation('read').invoked('old').build();
    assert.deepEqual(e.context, context);
  });
}

test('build(): latency without invocation → origin-specific message, old checked before new', () => {
  assert.equal(
    buildError(tracker().operation('read').invoked('new').latency('old', 2)),
    "provided latency for origin 'old' without recording invocation",
  );
  assert.equal(
    buildError(tracker().operation('read').invoked('old').latency('new', 2)),
    "provided latency for origin 'new' without recording invocation",
  );
  // an invoked origin's own measurements are fine; the uninvoked one is reported
  assert.equal(
    buildError(tracker('mig').operation('read').invoked('new').latency('new', 1).error('old')),
    "provided error for origin 'old' without recording invocation",
  );
});

test('build(): error without invocation → origin-specific message', () => {
  assert.equal(
    buildError(tracker().operation('write').invoked('new').error('old')),
    "provided error for origin 'old' without recording invocation",
  );
  assert.equal(
    buildError(tracker().operation('write').invoked('old').error('new')),
    "provided error for origin 'new' without recording invocation",
  );
});

test('build(): for the same origin, latency is checked before error', () => {
  assert.equal(
    buildError(tracker().operation('read').invoked('new').error('old').latency('old', 4)),
    "provided latency for origin 'old' without recording invocation",
  );
});

test('build(): invalid context is reported before per-origin problems', () => {
  const t = tracker('mig', { kind: 'multi' }).operation('read').invoked('new').latency('old', 1);
  assert.equal(buildError(t), 'provided context was invalid');
});

test('build(): consistency with only one origin invoked → message', () => {
  for (const origin of ['old', 'new']) {
    const t = tracker().operation('read').invoked(origin).consistent(() => true);
    assert.equal(buildError(t), 'provided consistency without recording both invocations');
  }
});

test('build(): per-origin problems are reported before the consistency problem', () => {
  const t = tracker().operation('read').invoked('old').error('new').consistent(() => true);
  assert.equal(buildError(t), "provided error for origin 'new' without recording invocation");
});

test('a full event: exact wire format with measurements in fixed order regardless of call order', () => {
  const t = tracker(
    'mig',
    { kind: 'user', key: 'u1' },
    { value: 'shadow', variationIndex: 1, flagVersion: 7, reason: { kind: 'FALLTHROUGH' }, samplingRatio: 3, checkRatio: 1 },
    'live',
  );
  t.error('new').latency('new', 3.0).latency('old', 12.3).consistent(() => false).invoked('new').invoked('old').operation('read');
  const before = Date.now();
  const e = t.build();
  const after = Date.now();
  assert.ok(e.creationDate >= before - 1 && e.creationDate <= after + 1, 'creationDate taken at build');
  assert.deepEqual(e, {
    kind: 'migration_op',
    creationDate: e.creationDate,
    operation: 'read',
    context: { kind: 'user', key: 'u1' },
    evaluation: { key: 'mig', value: 'shadow', default: 'live', variation: 1, version: 7, reason: { kind: 'FALLTHROUGH' } },
    samplingRatio: 3,
    measurements: [
      { key: 'invoked', values: { old: true, new: true } },
      { key: 'consistent', value: false },
      { key: 'latency_ms', values: { old: 12.3, new: 3 } },
      { key: 'error', values: { new: true } },
    ],
  });
});

test('a minimal event: only true keys, no optional evaluation fields, no samplingRatio', () => {
  const e = tracker('mig', { key: 'legacy' }, { value: 'off' }, 'off').operation('write').invoked('old').build();
  assert.deepEqual(normalizeEvent(e), {
    kind: 'migration_op',
    creationDate: 0,
    operation: 'write',
    context: { key: 'legacy' },
    evaluation: { key: 'mig', value: 'off', default: 'off' },
    measurements: [{ key: 'invoked', values: { old: true } }],
  });
});

test('latency floats are kept, the last latency per origin wins', () => {
  const e = tracker().operation('read').invoked('new').latency('new', 1).latency('new', 0.125).build();
  assert.deepEqual(e.measurements, [
    { key: 'invoked', values: { new: true } },
    { key: 'latency_ms', values: { new: 0.125 } },
  ]);
});

test('consistent(check) uses checkRatio: ratio 1 runs the check and omits samplingRatio; 0 never runs it', () => {
  let ran = 0;
  const e1 = tracker('mig', CTX, { value: 'live', checkRatio: 1 })
    .operation('read').invoked('old').invoked('new').consistent(() => ++ran > 0).build();
  assert.equal(ran, 1);
  assert.deepEqual(e1.measurements[1], { key: 'consistent', value: true });
  for (const checkRatio of [0, -2, 1.5]) {
    const e0 = tracker('mig', CTX, { value: 'live', checkRatio })
      .operation('read').invoked('old').invoked('new').consistent(() => ++ran > 0).build();
    assert.equal(ran, 1, `checkRatio ${checkRatio} never runs the check`);
    assert.ok(!e0.measurements.some((m) => m.key === 'consistent'));
  }
});

test('consistent(check) with checkRatio 4 samples about a quarter and tags samplingRatio 4', () => {
  let ran = 0;
  let recorded = 0;
  const N = 2000;
  for (let i = 0; i < N; i++) {
    const e = tracker('mig', CTX, { value: 'live', checkRatio: 4 })
      .operation('read').invoked('old').invoked('new').consistent(() => ++ran > 0).build();
    const m = e.measurements.find((x) => x.key === 'consistent');
    if (m) {
      recorded++;
      assert.deepEqual(m, { key: 'consistent', value: true, samplingRatio: 4 });
    }
  }
  assert.equal(recorded, ran);
  assert.ok(ran / N > 0.18 && ran / N < 0.32, `rate ${ran / N}`);
});

test('a throwing consistency check records nothing', () => {
  const e = tracker().operation('read').invoked('old').invoked('new').consistent(() => {
    throw new Error('x');
  }).build();
  assert.ok(!e.measurements.some((m) => m.key === 'consistent'));
});

test('OpTracker keeps the evaluation it was given (no validation of the served value here)', () => {
  const e = tracker('mig', CTX, { value: 'rampdown', variationIndex: 0, flagVersion: 2 }, 'complete')
    .operation('read').invoked('new').build();
  assert.deepEqual(e.evaluation, { key: 'mig', value: 'rampdown', default: 'complete', variation: 0, version: 2 });
});

test('a migrator event whose context is invalid is not sent; the build error is logged', async () => {
  const { migrator, events, log } = setup({ stage: 'off' });
  const r = await migrator.read('mig', { kind: 'multi' }, 'off');
  assert.equal(r.success, true);
  assert.equal(events.length, 0);
  assert.ok(
    log.has('error', 'error generating migration op event provided context was invalid; no event will be emitted'),
    JSON.stringify(log.calls.map((c) => [c.level, c.text])),
  );
});

test('a migrator with an empty flag key runs, sends nothing and logs the build error', async () => {
  const { migrator, events, log } = setup({ stage: 'complete' });
  const w = await migrator.write('', CTX, 'off');
  assert.equal(w.authoritative.success, true);
  assert.equal(events.length, 0);
  assert.ok(log.has('error', 'error generating migration op event migration operation cannot contain an empty key; no event will be emitted'));
});

// A flag system's tracker is told an operation's measurements in one call when it ends (issue 32):
// a method that throws there, and the client's trackMigrationOp that throws on its event, are
// each logged by name, and the other measurements still reach the tracker.
test("a flag system's tracker: a throwing latency() and a throwing trackMigrationOp are each logged, the rest replayed", async () => {
  const { makeFakeTracker } = await import('./helpers/migration.mjs');
  const tracker = makeFakeTracker();
  tracker.latency = () => {
    throw new Error('latency broke');
  };
  const { migrator, client, log } = setup({ evaluation: () => ({ value: 'shadow', tracker }) });
  client.client.trackMigrationOp = () => {
    throw new Error('sink down');
  };
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.success, true);
  const errors = log.calls.filter((c) => c.level === 'error').map((c) => c.text);
  assert.ok(errors.some((t) => t.includes('migration tracker method latency() threw') && t.includes('latency broke')), errors.join('\n'));
  assert.ok(errors.some((t) => t.includes('trackMigrationOp threw') && t.includes('sink down')), errors.join('\n'));
  assert.deepEqual(tracker.calls.filter((c) => c[0] === 'op' || c[0] === 'invoked'), [['op', 'read'], ['invoked', 'old'], ['invoked', 'new']]);
});
