// guard() trips (issue 30, API.md §1 "Guardrails"): what counts as a failure of the new origin
// (a throw, a rejection, failure(), a timeout; not the caller's abort), the bound of failures in a
// row, which origins run at each stage while tripped (from the origins' call logs), the fallbacks
// counted, and the migration_op events, which record what ran under the flag's own evaluation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAILURE_KINDS, STAGES, guardSetup, makeFakeTracker, measurement, moves, trip } from './helpers/guard.mjs';

test('live: 10 new-origin failures in a row trip the guard at once; the old origin answers after', async () => {
  const g = guardSetup();
  const before = Date.now();
  g.health.read = 'throw';
  const failed = await g.reads(9);
  assert.ok(failed.every((r) => r.origin === 'new' && r.success === false), 'closed: the new origin is authoritative at live');
  assert.equal(g.state(), 'closed', 'nine failures do not trip the default guard');
  assert.equal(g.changes.length, 0);
  const tenth = await g.run('read');
  assert.deepEqual([tenth.result.origin, tenth.result.success], ['new', false], 'the tenth read still gets its own result');
  assert.deepEqual(tenth.called, ['new', 'old']);
  const status = g.migrator.guard(g.flag);
  assert.deepEqual({ ...status, since: 0 }, { state: 'tripped', since: 0, reason: '10 consecutive errors' });
  assert.ok(status.since >= before && status.since <= Date.now(), `since is epoch ms: ${status.since}`);
  assert.deepEqual(moves(g.changes), [['closed', 'tripped']]);
  assert.deepEqual(g.log.texts('warn'), ['migration guard of flag "guarded": closed -> tripped: 10 consecutive errors']);
  for (let i = 0; i < 3; i++) {
    const after = await g.run('read');
    assert.deepEqual(after.called, ['old'], 'tripped at live: the old origin only');
    assert.deepEqual(after.result, { origin: 'old', success: true, value: 'old-value' });
  }
  assert.equal(g.migrator.stats().read.new.invoked, 10, 'the new origin was not called again');
});

test('a success of the new origin ends a run of failures; other flag keys keep their own count', async () => {
  const g = guardSetup({ guard: { maxConsecutiveErrors: 3 } });
  g.health.read = 'throw';
  await g.reads(2);
  await g.reads(2, 'other-flag');
  g.health.read = 'ok';
  await g.reads(1);
  g.health.read = 'throw';
  await g.reads(2);
  assert.equal(g.state(), 'closed', 'fail, fail, ok, fail, fail: never 3 in a row');
  assert.equal(g.state('other-flag'), 'closed');
  await g.reads(1, 'other-flag');
  assert.equal(g.state('other-flag'), 'tripped');
  assert.equal(g.state(), 'closed', 'a flag key tripping leaves the others alone');
  await g.reads(1);
  assert.equal(g.state(), 'tripped');
  assert.deepEqual(
    g.changes.map((c) => [c.flagKey, c.reason]),
    [
      ['other-flag', '3 consecutive errors'],
      ['guarded', '3 consecutive errors'],
    ],
  );
});

test('every kind of failure counts: a throw, a rejection, failure(), a timeout (originTimeout)', async () => {
  for (const kind of FAILURE_KINDS) {
    const g = guardSetup({ guard: { maxConsecutiveErrors: 3 }, originTimeout: 10 });
    g.health.read = kind;
    const results = await g.reads(3);
    for (const r of results) assert.equal(r.success, false, kind);
    if (kind === 'timeout') assert.equal(results[0].error.name, 'TimeoutError');
    assert.equal(g.state(), 'tripped', `${kind}: tripped after 3`);
    assert.equal(g.changes[0].window.newErrors, 3, kind);
    assert.equal(g.changes[0].window.newCalls, 3, kind);
  }
});

test('the caller’s abort is not counted; failures around it still are', async () => {
  const g = guardSetup({ guard: { maxConsecutiveErrors: 2 } });
  g.health.read = 'hang';
  for (let i = 0; i < 5; i++) {
    const controller = new AbortController();
    const reason = new Error(`caller gave up ${i}`);
    const pending = g.migrator.read(g.flag, { key: 'u' }, 'off', undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 2);
    await assert.rejects(pending, (e) => e === reason);
  }
  assert.equal(g.state(), 'closed', 'five aborted reads with the new origin pending: nothing counted');
  assert.equal(g.changes.length, 0);
  assert.equal(g.migrator.stats().read.count, 0, 'aborted operations are not completed ones');
  g.health.read = 'throw';
  await g.reads(1);
  assert.equal(g.state(), 'closed');
  await g.reads(1);
  assert.equal(g.state(), 'tripped');
  assert.deepEqual([g.changes[0].window.newCalls, g.changes[0].window.newErrors], [2, 2], 'only the completed reads are in the window');
});

test('many reads in flight when the guard trips: one change, one trip', async () => {
  const g = guardSetup({ guard: { maxConsecutiveErrors: 4 } });
  g.health.read = 'slow:1';
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) => {
      return g.migrator.read(g.flag, { key: `u${i}` }, 'off');
    }),
  );
  assert.ok(results.every((r) => r.success));
  g.health.read = 'reject';
  await Promise.all(Array.from({ length: 12 }, (_, i) => g.migrator.read(g.flag, { key: `u${i}` }, 'off')));
  assert.equal(g.state(), 'tripped');
  assert.deepEqual(moves(g.changes), [['closed', 'tripped']], 'the outcomes that end while tripped are not judged again');
  assert.equal(g.migrator.stats().guard.trips, 1);
  assert.equal(g.log.texts('warn').length, 1);
});

// What runs while tripped, per stage: reads and writes, in call order, and the result's origins.
const TRIPPED = {
  off: { read: ['old'], write: ['old'] },
  dualwrite: { read: ['old'], write: ['old', 'new'] },
  shadow: { read: ['old'], write: ['old', 'new'] },
  live: { read: ['old'], write: ['old', 'new'] },
  rampdown: { read: ['old'], write: ['old', 'new'] },
  complete: { read: ['new'], write: ['new'] },
};

test('tripped, every stage × read/write: stages that write the old origin read it alone and write it first; off and complete unchanged', async () => {
  const g = guardSetup({ guard: { maxConsecutiveErrors: 2 } });
  await trip(g, 2);
  const base = g.migrator.stats().guard.fallbacks;
  assert.deepEqual(base, { read: 0, write: 0 }, 'the reads that tripped it ran as staged');
  for (const stage of STAGES) {
    g.client.evaluation = stage;
    const read = await g.run('read');
    assert.deepEqual(read.called, TRIPPED[stage].read, `read at ${stage}`);
    assert.equal(read.result.origin, TRIPPED[stage].read[0], `read at ${stage}: its result's origin`);
    assert.equal(read.result.success, true);
    const write = await g.run('write');
    assert.deepEqual(write.called, TRIPPED[stage].write, `write at ${stage}`);
    assert.equal(write.result.authoritative.origin, TRIPPED[stage].write[0], `write at ${stage}: authoritative`);
    assert.equal(write.result.nonAuthoritative?.origin, TRIPPED[stage].write[1], `write at ${stage}: non-authoritative`);
  }
  // Fallbacks: operations whose origins the guard changed from the stage's plan. Reads at shadow
  // (no shadow call), live and rampdown; writes at live and rampdown (old first instead of new).
  assert.deepEqual(g.migrator.stats().guard.fallbacks, { read: 3, write: 2 });
  assert.equal(g.state(), 'tripped', 'new-origin outcomes while tripped are not counted (the writes above succeeded)');
});

test('tripped: a write whose old origin fails does not call the new one', async () => {
  const g = guardSetup({ guard: { maxConsecutiveErrors: 2 } });
  await trip(g, 2);
  g.health.oldWrite = 'throw';
  for (const stage of ['dualwrite', 'live', 'rampdown']) {
    g.client.evaluation = stage;
    const write = await g.run('write');
    assert.deepEqual(write.called, ['old'], stage);
    assert.deepEqual([write.result.authoritative.origin, write.result.authoritative.success], ['old', false], stage);
    assert.equal(write.result.nonAuthoritative, undefined, stage);
  }
});

test('events record what ran; the evaluation stays the flag’s', async () => {
  const served = { value: 'live', variationIndex: 3, reason: { kind: 'FALLTHROUGH' }, flagVersion: 7 };
  const g = guardSetup({ evaluation: served, guard: { maxConsecutiveErrors: 2 }, comparison: (a, b) => a === b });
  g.health.read = 'reject';
  await g.reads(2);
  const failing = g.events.at(-1);
  assert.deepEqual(measurement(failing, 'invoked').values, { old: true, new: true });
  assert.deepEqual(measurement(failing, 'error').values, { new: true });
  g.events.length = 0;
  await g.run('read');
  await g.run('write');
  const [read, write] = g.events;
  const evaluation = { key: 'guarded', value: 'live', default: 'off', reason: { kind: 'FALLTHROUGH' }, variation: 3, version: 7 };
  assert.deepEqual(read.evaluation, evaluation, 'the read’s evaluation is the flag’s');
  assert.deepEqual(write.evaluation, evaluation, 'the write’s evaluation is the flag’s');
  assert.deepEqual(measurement(read, 'invoked').values, { old: true });
  assert.equal(measurement(read, 'consistent'), undefined, 'no check: one origin ran');
  assert.equal(measurement(read, 'error'), undefined);
  assert.deepEqual(Object.keys(measurement(read, 'latency_ms').values), ['old']);
  assert.deepEqual(measurement(write, 'invoked').values, { old: true, new: true });
});

test('with the flag system’s tracker: it is told only of the origins that ran', async () => {
  const tracker = makeFakeTracker();
  const g = guardSetup({ guard: { maxConsecutiveErrors: 2 } });
  await trip(g, 2);
  g.client.evaluation = () => ({ value: 'live', tracker });
  const r = await g.run('read');
  assert.deepEqual(r.called, ['old']);
  const told = tracker.calls.filter(([what]) => what !== 'latency');
  assert.deepEqual(told, [['op', 'read'], ['invoked', 'old'], ['createEvent']]);
  assert.deepEqual(
    tracker.calls.filter(([what]) => what === 'latency').map(([, origin]) => origin),
    ['old'],
  );
  assert.equal(g.events.at(-1), tracker.createdEvent, 'the tracker’s own event is sent');
});
