// Abort & originTimeout — API.md §1 (origins, Migrator read/write rejections); SPEC.md A4, A8, A9.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CTX, abortableSleep, measurement, setup, sleep } from './helpers/migration.mjs';

const isTimeoutError = (e) => e instanceof DOMException && e.name === 'TimeoutError';

// ---------- originTimeout ----------

test('originTimeout: a slow origin fails with a DOMException TimeoutError and its signal is aborted', async () => {
  let signal;
  const { migrator, events } = setup({
    stage: 'off',
    originTimeout: 50,
    readOld: (p, s) => {
      signal = s;
      return abortableSleep(1000, s).then(() => 'too late');
    },
  });
  const t0 = performance.now();
  const r = await migrator.read('m', CTX, 'off');
  const elapsed = performance.now() - t0;
  assert.equal(r.origin, 'old');
  assert.equal(r.success, false);
  assert.ok(isTimeoutError(r.error), `error is ${r.error}`);
  assert.ok(elapsed >= 45 && elapsed < 500, `elapsed ${elapsed}`);
  assert.ok(signal instanceof AbortSignal);
  assert.equal(signal.aborted, true);
  assert.deepEqual(measurement(events[0], 'error').values, { old: true });
  assert.deepEqual(measurement(events[0], 'invoked').values, { old: true });
  const lat = measurement(events[0], 'latency_ms').values.old;
  assert.ok(lat >= 45 && lat < 500, `latency ${lat}`);
});

test('originTimeout: an origin that ignores its signal still times out promptly', async () => {
  const { migrator } = setup({
    stage: 'complete',
    originTimeout: 40,
    readNew: () => sleep(400).then(() => 'late'),
  });
  const t0 = performance.now();
  const r = await migrator.read('m', CTX, 'off');
  assert.ok(performance.now() - t0 < 300);
  assert.equal(r.success, false);
  assert.ok(isTimeoutError(r.error));
});

test('originTimeout: fast origins are unaffected and their signals are not aborted', async () => {
  const signals = [];
  const { migrator } = setup({
    stage: 'shadow',
    originTimeout: 200,
    readOld: async (p, s) => {
      signals.push(s);
      await sleep(5);
      return 'o';
    },
    readNew: (p, s) => {
      signals.push(s);
      return 'n';
    },
    comparison: () => true,
  });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.success, true);
  assert.equal(r.value, 'o');
  await sleep(250);
  for (const s of signals) assert.equal(s.aborted, false);
});

test('originTimeout applies per origin: in a parallel shadow read only the slow one fails', async () => {
  let compared = 0;
  const { migrator, events } = setup({
    stage: 'shadow',
    originTimeout: 50,
    readOld: () => 'o',
    readNew: (p, s) => abortableSleep(1000, s),
    comparison: () => ++compared > 0,
  });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.success, true);
  assert.equal(r.value, 'o');
  assert.equal(compared, 0);
  assert.deepEqual(measurement(events[0], 'error').values, { new: true });
});

test('originTimeout on a live read: the authoritative new origin times out', async () => {
  const { migrator } = setup({ stage: 'live', originTimeout: 30, readNew: (p, s) => abortableSleep(1000, s) });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.origin, 'new');
  assert.equal(r.success, false);
  assert.ok(isTimeoutError(r.error));
});

test('originTimeout on a write: authoritative timeout → non-authoritative not run', async () => {
  const { migrator, rec } = setup({ stage: 'dualwrite', originTimeout: 30, writeOld: (p, s) => abortableSleep(1000, s) });
  const w = await migrator.write('m', CTX, 'off');
  assert.equal(w.authoritative.success, false);
  assert.ok(isTimeoutError(w.authoritative.error));
  assert.equal(w.nonAuthoritative, undefined);
  assert.deepEqual(rec.names(), ['old']);
});

test('originTimeout: the origin sees the timeout error as its signal reason or at least an aborted signal', async () => {
  let reason;
  const { migrator } = setup({
    stage: 'off',
    originTimeout: 20,
    readOld: (p, s) =>
      new Promise((resolve, reject) => {
        s.addEventListener('abort', () => {
          reason = s.reason;
          reject(s.reason);
        });
      }),
  });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.success, false);
  assert.ok(isTimeoutError(r.error));
  assert.notEqual(reason, undefined, 'abort listener ran');
});

test('originTimeout: a timeout is counted in stats as invoked, error and timeout', async () => {
  const { migrator } = setup({ stage: 'off', originTimeout: 20, readOld: (p, s) => abortableSleep(500, s) });
  await migrator.read('m', CTX, 'off');
  const s = migrator.stats().read.old;
  assert.equal(s.invoked, 1);
  assert.equal(s.errors, 1);
  assert.equal(s.timeouts, 1);
});

test('a plain origin error does not count as a timeout', async () => {
  const { migrator } = setup({ stage: 'off', readOld: () => { throw new Error('plain'); } });
  await migrator.read('m', CTX, 'off');
  assert.equal(migrator.stats().read.old.timeouts, 0);
  assert.equal(migrator.stats().read.old.errors, 1);
});

// ---------- caller abort: reads ----------

test('read aborted by the caller rejects with the signal reason, no event, origin signals aborted', async () => {
  const signals = [];
  const { migrator, events } = setup({
    stage: 'shadow',
    readOld: (p, s) => (signals.push(s), abortableSleep(300, s)),
    readNew: (p, s) => (signals.push(s), abortableSleep(300, s)),
    comparison: () => true,
  });
  const ac = new AbortController();
  const reason = new Error('caller gave up');
  setTimeout(() => ac.abort(reason), 30);
  const t0 = performance.now();
  await assert.rejects(migrator.read('m', CTX, 'off', undefined, { signal: ac.signal }), (e) => e === reason);
  assert.ok(performance.now() - t0 < 250, 'rejected promptly');
  assert.equal(signals.length, 2);
  for (const s of signals) assert.equal(s.aborted, true);
  await sleep(50);
  assert.equal(events.length, 0);
});

test('read abort with origins that ignore the signal: rejects promptly and never sends an event', async () => {
  const { migrator, events } = setup({
    stage: 'live',
    readOld: () => sleep(150).then(() => 'o'),
    readNew: () => sleep(150).then(() => 'n'),
  });
  const ac = new AbortController();
  setTimeout(() => ac.abort('string reason'), 20);
  const t0 = performance.now();
  await assert.rejects(migrator.read('m', CTX, 'off', { q: 1 }, { signal: ac.signal }), (e) => e === 'string reason');
  assert.ok(performance.now() - t0 < 130);
  await sleep(200);
  assert.equal(events.length, 0);
});

test('abort() without a reason rejects with a DOMException named AbortError', async () => {
  const { migrator } = setup({ stage: 'off', readOld: (p, s) => abortableSleep(300, s) });
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 10);
  await assert.rejects(migrator.read('m', CTX, 'off', undefined, { signal: ac.signal }), (e) => {
    assert.ok(e instanceof DOMException);
    assert.equal(e.name, 'AbortError');
    return true;
  });
});

test('an already-aborted signal rejects the read with its reason and runs no origin', async () => {
  const { migrator, events, rec } = setup({ stage: 'shadow' });
  const reason = { why: 'already' };
  const signal = AbortSignal.abort(reason);
  await assert.rejects(migrator.read('m', CTX, 'off', undefined, { signal }), (e) => e === reason);
  assert.equal(rec.calls.length, 0);
  await sleep(10);
  assert.equal(events.length, 0);
});

test('an aborted read is not counted in stats', async () => {
  const { migrator } = setup({ stage: 'off', readOld: (p, s) => abortableSleep(300, s) });
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('x')), 10);
  await assert.rejects(migrator.read('m', CTX, 'off', undefined, { signal: ac.signal }));
  assert.equal(migrator.stats().read.count, 0);
});

test('a signal that never aborts changes nothing', async () => {
  const { migrator, events } = setup({ stage: 'shadow' });
  const ac = new AbortController();
  const r = await migrator.read('m', CTX, 'off', undefined, { signal: ac.signal });
  assert.equal(r.value, 'old-value');
  const w = await migrator.write('m', CTX, 'off', undefined, { signal: ac.signal });
  assert.equal(w.nonAuthoritative.value, 'new-written');
  assert.equal(events.length, 2);
});

// ---------- caller abort: writes ----------

test('write aborted during the non-authoritative call: event sent with the authoritative only, warn logged, rejects', async () => {
  let newSignal;
  const { migrator, events, log } = setup({
    stage: 'dualwrite',
    writeOld: () => 'old-done',
    writeNew: (p, s) => {
      newSignal = s;
      return abortableSleep(500, s);
    },
  });
  const ac = new AbortController();
  const reason = new Error('stop');
  setTimeout(() => ac.abort(reason), 40);
  await assert.rejects(migrator.write('m', CTX, 'off', undefined, { signal: ac.signal }), (e) => e === reason);
  assert.equal(newSignal.aborted, true);
  assert.ok(log.has('warn', 'Migration write was cancelled before completion'), JSON.stringify(log.calls));
  assert.equal(events.length, 1);
  assert.equal(events[0].operation, 'write');
  assert.deepEqual(measurement(events[0], 'invoked').values, { old: true });
  assert.deepEqual(Object.keys(measurement(events[0], 'latency_ms').values), ['old']);
  assert.equal(measurement(events[0], 'error'), undefined);
});

test('write aborted during the authoritative call: non-authoritative never started, no event, build error logged', async () => {
  const { migrator, events, log, rec } = setup({
    stage: 'live',
    writeNew: (p, s) => abortableSleep(500, s),
  });
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('stop')), 30);
  await assert.rejects(migrator.write('m', CTX, 'off', undefined, { signal: ac.signal }), { message: 'stop' });
  await sleep(50);
  assert.deepEqual(rec.names(), ['new']);
  assert.equal(events.length, 0);
  assert.ok(log.has('warn', 'Migration write was cancelled before completion'));
  assert.ok(
    log.has('error', 'error generating migration op event no origins were invoked; no event will be emitted'),
    JSON.stringify(log.calls.map((c) => [c.level, c.text])),
  );
});

test('write aborted while the authoritative ignores the signal: the non-authoritative is never started', async () => {
  const { migrator, rec } = setup({
    stage: 'dualwrite',
    writeOld: () => sleep(100).then(() => 'old-written-late'),
  });
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('stop')), 20);
  await assert.rejects(migrator.write('m', CTX, 'off', undefined, { signal: ac.signal }));
  await sleep(200);
  assert.deepEqual(rec.names(), ['old']);
});

test('write: the caller aborts as the authoritative finishes → rejects with the reason, non-authoritative never starts', async () => {
  const ac = new AbortController();
  const reason = new Error('aborted mid-write');
  const { migrator, rec, events, log } = setup({
    stage: 'rampdown',
    writeNew: async () => {
      await sleep(5);
      ac.abort(reason);
      return 'new-written';
    },
  });
  await assert.rejects(migrator.write('m', CTX, 'off', undefined, { signal: ac.signal }), (e) => e === reason);
  await sleep(20);
  assert.deepEqual(rec.names(), ['new']);
  assert.ok(log.has('warn', 'Migration write was cancelled before completion'));
  // Whether that authoritative call counts as completed or cancelled, an event (if any) holds only it.
  assert.ok(events.length <= 1);
  for (const e of events) assert.deepEqual(measurement(e, 'invoked').values, { new: true });
});

test('an already-aborted signal rejects the write, runs no origin and sends no event', async () => {
  const { migrator, rec, events } = setup({ stage: 'dualwrite' });
  const reason = new Error('pre-aborted');
  await assert.rejects(migrator.write('m', CTX, 'off', undefined, { signal: AbortSignal.abort(reason) }), (e) => e === reason);
  assert.equal(rec.calls.length, 0);
  assert.equal(events.length, 0);
});

test('an aborted write is not counted in stats.write.count', async () => {
  const { migrator } = setup({ stage: 'dualwrite', writeNew: (p, s) => abortableSleep(500, s) });
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('x')), 20);
  await assert.rejects(migrator.write('m', CTX, 'off', undefined, { signal: ac.signal }));
  assert.equal(migrator.stats().write.count, 0);
});

test('aborted read with an external tracker: createEvent is never called and nothing is sent', async () => {
  const { makeFakeTracker } = await import('./helpers/migration.mjs');
  const tracker = makeFakeTracker();
  const { migrator, events } = setup({
    evaluation: () => ({ value: 'shadow', tracker }),
    readOld: (p, s) => abortableSleep(300, s),
  });
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('x')), 20);
  await assert.rejects(migrator.read('m', CTX, 'off', undefined, { signal: ac.signal }), { message: 'x' });
  await sleep(20);
  assert.equal(events.length, 0);
  assert.ok(!tracker.calls.some((c) => c[0] === 'createEvent'));
  // The measurements are replayed onto the tracker only when an operation ends (one crossing).
  assert.deepEqual(tracker.calls, []);
});

test('aborted write with an external tracker: the event is still created and sent (finally)', async () => {
  const { makeFakeTracker } = await import('./helpers/migration.mjs');
  const tracker = makeFakeTracker();
  const { migrator, events } = setup({
    evaluation: () => ({ value: 'dualwrite', tracker }),
    writeNew: (p, s) => abortableSleep(300, s),
  });
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('x')), 20);
  await assert.rejects(migrator.write('m', CTX, 'off', undefined, { signal: ac.signal }), { message: 'x' });
  assert.equal(events.length, 1);
  assert.equal(events[0], tracker.createdEvent);
  assert.deepEqual(tracker.calls.filter((c) => c[0] === 'invoked'), [['invoked', 'old']]);
});

test('an origin that rejects after its timeout causes no unhandled rejection and no second result', async () => {
  const { migrator, events } = setup({
    stage: 'shadow',
    originTimeout: 20,
    readNew: () => sleep(60).then(() => {
      throw new Error('late rejection');
    }),
  });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.success, true);
  await sleep(100);
  assert.equal(events.length, 1);
  assert.ok(events[0].measurements.find((m) => m.key === 'error').values.new);
  assert.equal(migrator.stats().read.new.invoked, 1);
});

test('an origin that rejects after the caller aborted causes no unhandled rejection', async () => {
  const { migrator } = setup({ stage: 'live', readNew: () => sleep(60).then(() => Promise.reject(new Error('late'))) });
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('gone')), 10);
  await assert.rejects(migrator.read('m', CTX, 'off', undefined, { signal: ac.signal }), { message: 'gone' });
  await sleep(100);
});
