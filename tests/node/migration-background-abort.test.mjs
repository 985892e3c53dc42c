// Background mode, the caller's AbortSignal and originTimeout (issue 21; API.md §1 "Shadowing in
// production"): the signal aborts an operation only until it resolves; after that, aborting
// changes nothing and the background part runs to its end. The background part is bounded by
// originTimeout, whose expiry is a recorded timeout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CTX, bgSetup, measurement, turns, watch } from './helpers/background.mjs';

const isTimeoutError = (e) => e instanceof DOMException && e.name === 'TimeoutError';

for (const op of ['read', 'write']) {
  const stage = op === 'read' ? 'shadow' : 'dualwrite';

  test(`background ${op}: aborting before it resolves rejects with the reason`, async () => {
    const { migrator, reads, writes } = bgSetup({ stage, order: 'parallel' });
    const gates = op === 'read' ? reads : writes;
    const ac = new AbortController();
    const reason = new Error('the caller gave up');
    const pending = watch(migrator[op]('mig', CTX, 'off', undefined, { signal: ac.signal }));
    await turns();
    assert.equal(gates.isPending('old'), true);
    ac.abort(reason);
    await pending.done;
    assert.equal(pending.rejected, true, 'rejected');
    assert.equal(pending.error, reason, 'with the signal\'s reason');
    assert.equal(gates.signalOf('old').aborted, true, 'the authoritative origin\'s signal is aborted');
    // the held-back origins may still answer; nothing of that reaches the caller
    for (const name of ['old', 'new']) while (gates.isPending(name)) gates.resolve(name);
    await migrator.settled();
  });

  test(`background ${op}: a signal aborted before the call rejects at once and runs nothing`, async () => {
    const { migrator, reads, writes } = bgSetup({ stage, order: 'parallel' });
    const reason = new Error('already gone');
    const pending = watch(migrator[op]('mig', CTX, 'off', undefined, { signal: AbortSignal.abort(reason) }));
    await pending.done;
    assert.equal(pending.error, reason);
    assert.deepEqual((op === 'read' ? reads : writes).names(), []);
  });

  test(`background ${op}: aborting after it resolved changes nothing; the background origin completes and the event is sent`, async () => {
    const { migrator, reads, writes, events, compared } = bgSetup({ stage, order: 'serial' });
    const gates = op === 'read' ? reads : writes;
    const ac = new AbortController();
    const done = watch(migrator[op]('mig', CTX, 'off', undefined, { signal: ac.signal }));
    await turns();
    gates.resolve('old', 'same');
    await done.done;
    assert.equal(done.fulfilled, true);
    await turns();
    assert.equal(gates.isPending('new'), true, 'the background origin is running');
    ac.abort(new Error('too late to matter'));
    await turns();
    const signal = gates.signalOf('new');
    assert.equal(signal.aborted, false, 'the background origin\'s signal is not aborted by the caller');
    gates.resolve('new', 'same');
    await migrator.settled();
    assert.equal(events.length, 1);
    assert.deepEqual(measurement(events[0], 'invoked').values, { old: true, new: true });
    assert.equal(measurement(events[0], 'error'), undefined, 'no error recorded');
    const s = migrator.stats()[op];
    assert.deepEqual([s.count, s.new.errors, s.old.errors], [1, 0, 0]);
    if (op === 'read') {
      assert.equal(measurement(events[0], 'consistent').value, true);
      assert.equal(compared.length, 1);
    }
  });

  test(`background ${op}: originTimeout bounds the background origin; it is recorded as a timeout`, async () => {
    let backgroundSignal;
    const { migrator, events } = bgSetup({
      stage,
      order: 'serial',
      originTimeout: 30,
      // the authoritative origin answers at once (no race with the timeout); the background one
      // never answers, and ignores its signal
      [op === 'read' ? 'readOld' : 'writeOld']: () => 'at once',
      [op === 'read' ? 'readNew' : 'writeNew']: (payload, signal) => {
        backgroundSignal = signal;
        return new Promise(() => {});
      },
    });
    const done = await migrator[op]('mig', CTX, 'off');
    const result = op === 'read' ? done : done.authoritative;
    assert.deepEqual([result.origin, result.success, result.value], ['old', true, 'at once']);
    await migrator.settled(); // ends because of the timeout
    assert.ok(backgroundSignal instanceof AbortSignal, 'the background origin was called');
    assert.equal(backgroundSignal.aborted, true, 'the timed-out origin\'s signal is aborted');
    assert.ok(isTimeoutError(backgroundSignal.reason), String(backgroundSignal.reason));
    assert.equal(events.length, 1);
    assert.deepEqual(measurement(events[0], 'invoked').values, { old: true, new: true });
    assert.deepEqual(measurement(events[0], 'error').values, { new: true });
    assert.equal(measurement(events[0], 'consistent'), undefined);
    const s = migrator.stats()[op];
    assert.deepEqual([s.new.invoked, s.new.errors, s.new.timeouts, s.old.errors], [1, 1, 1, 0]);
  });
}

test('background read: originTimeout also bounds the authoritative origin, which the caller sees', async () => {
  const { migrator, reads } = bgSetup({
    stage: 'live',
    order: 'parallel',
    originTimeout: 30,
    readNew: () => new Promise(() => {}),
  });
  const read = await migrator.read('mig', CTX, 'off');
  assert.equal(read.origin, 'new');
  assert.equal(read.success, false);
  assert.ok(isTimeoutError(read.error));
  reads.resolve('old');
  await migrator.settled();
  assert.equal(migrator.stats().read.new.timeouts, 1);
});

test('one signal shared by several operations: aborting after the first resolved only rejects the pending ones', async () => {
  const { migrator, reads, events } = bgSetup({ stage: 'shadow', order: 'parallel' });
  const ac = new AbortController();
  const reason = new Error('request ended');
  const first = watch(migrator.read('mig', CTX, 'off', 'a', { signal: ac.signal }));
  await turns();
  reads.resolve('old', 'x');
  await first.done;
  const second = watch(migrator.read('mig', CTX, 'off', 'b', { signal: ac.signal }));
  await turns();
  ac.abort(reason);
  await second.done;
  assert.equal(first.fulfilled, true);
  assert.equal(second.error, reason);
  const firstShadow = reads.calls.find((c) => c.name === 'new' && c.payload === 'a');
  assert.equal(firstShadow.signal.aborted, false, 'the first read\'s background origin goes on');
  firstShadow.settled = true;
  firstShadow.d.resolve('x');
  for (const name of ['old', 'new']) while (reads.isPending(name)) reads.resolve(name);
  await migrator.settled();
  const full = events.find((e) => measurement(e, 'consistent') !== undefined);
  assert.ok(full, 'the first read\'s event, with its consistency check, was sent');
  assert.equal(measurement(full, 'consistent').value, true);
});
