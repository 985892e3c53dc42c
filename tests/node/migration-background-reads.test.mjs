// Background mode, reads (issue 21; API.md §1 "Shadowing in production"): at shadow and live a
// read resolves with the authoritative result as soon as that origin settles; 'parallel' starts
// both origins together, 'serial' and 'random' start the other one only after the authoritative
// one settled. Without background() a read still waits for both. Origins are held back by hand
// (helpers/background.mjs gates), so every "before" below is an order of events, not a duration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CTX, authoritativeAt, bgSetup, measurement, otherThan, turns, watch } from './helpers/background.mjs';

const ORDERS = ['parallel', 'serial', 'random'];

for (const stage of ['shadow', 'live']) {
  const auth = authoritativeAt(stage);
  const other = otherThan(auth);

  for (const order of ORDERS) {
    test(`background read at ${stage}, ${order}: resolves with ${auth}'s result while ${other} is still pending`, async () => {
      const { migrator, reads, events } = bgSetup({ stage, order });
      const read = watch(migrator.read('mig', CTX, 'off', { id: 1 }));
      await turns();
      assert.equal(read.settled, false, 'nothing settled yet');
      if (order === 'parallel') {
        assert.deepEqual(reads.names().sort(), ['new', 'old'], 'parallel: both origins started together');
      } else {
        assert.deepEqual(reads.names(), [auth], `${order}: only the authoritative origin runs first`);
      }
      reads.resolve(auth);
      await read.done;
      assert.equal(read.fulfilled, true);
      assert.deepEqual(
        { origin: read.value.origin, success: read.value.success, value: read.value.value },
        { origin: auth, success: true, value: `${auth}-value` },
      );
      await turns();
      assert.deepEqual(reads.names().sort(), ['new', 'old'], 'the other origin runs, in the background');
      assert.equal(reads.isPending(other), true, `${other} has not settled: the read did not wait for it`);
      assert.equal(events.length, 0, 'no event before the background part ended');
      reads.resolve(other);
      await migrator.settled();
      assert.equal(events.length, 1);
      assert.deepEqual(measurement(events[0], 'invoked').values, { old: true, new: true });
      assert.equal(measurement(events[0], 'consistent').value, false, `${auth}-value vs ${other}-value`);
    });

    test(`background read at ${stage}, ${order}: the origins get the payload and an AbortSignal`, async () => {
      const { migrator, reads } = bgSetup({ stage, order });
      const payload = { id: 2 };
      const read = watch(migrator.read('mig', CTX, 'off', payload));
      await turns();
      reads.resolve(auth);
      await read.done;
      await turns();
      reads.resolve(other);
      await migrator.settled();
      assert.equal(reads.calls.length, 2);
      for (const call of reads.calls) {
        assert.equal(call.payload, payload, `${call.name} got the payload by identity`);
        assert.ok(call.signal instanceof AbortSignal, `${call.name} got an AbortSignal`);
        assert.equal(call.signal.aborted, false);
      }
    });

    test(`background read at ${stage}, ${order}: an authoritative failure resolves at once, the other origin still runs`, async () => {
      const { migrator, reads, events, compared } = bgSetup({ stage, order });
      const boom = new Error(`${auth} down`);
      const read = watch(migrator.read('mig', CTX, 'off'));
      await turns();
      reads.reject(auth, boom);
      await read.done;
      assert.equal(read.value.origin, auth);
      assert.equal(read.value.success, false);
      assert.equal(read.value.error, boom);
      await turns();
      assert.equal(reads.isPending(other), true, `${other} runs after the read resolved`);
      reads.resolve(other);
      await migrator.settled();
      assert.equal(events.length, 1);
      assert.deepEqual(measurement(events[0], 'invoked').values, { old: true, new: true });
      assert.deepEqual(measurement(events[0], 'error').values, { [auth]: true });
      assert.equal(measurement(events[0], 'consistent'), undefined, 'no consistency check with a failed origin');
      assert.equal(compared.length, 0);
    });
  }

  test(`background read at ${stage}, parallel: the other origin settling first does not resolve the read`, async () => {
    const { migrator, reads, events } = bgSetup({ stage, order: 'parallel' });
    const read = watch(migrator.read('mig', CTX, 'off'));
    await turns();
    reads.resolve(other, `${auth}-value`);
    await turns();
    assert.equal(read.settled, false, 'still waiting for the authoritative origin');
    assert.equal(events.length, 0);
    reads.resolve(auth);
    await read.done;
    assert.equal(read.value.origin, auth);
    assert.equal(read.value.value, `${auth}-value`);
    await migrator.settled();
    assert.equal(events.length, 1);
    assert.equal(measurement(events[0], 'consistent').value, true);
  });

  for (const order of ['serial', 'random']) {
    test(`background read at ${stage}, ${order}: the authoritative origin goes first on every read (20 reads)`, async () => {
      const { migrator, reads } = bgSetup({ stage, order });
      for (let i = 0; i < 20; i++) {
        reads.calls.length = 0;
        reads.log.length = 0;
        const read = watch(migrator.read('mig', CTX, 'off'));
        await turns(3);
        assert.deepEqual(reads.names(), [auth], `read ${i}: ${auth} alone first`);
        reads.resolve(auth);
        await read.done;
        await turns(3);
        assert.deepEqual(reads.log, [`start ${auth}`, `settle ${auth}`, `start ${other}`], `read ${i}`);
        reads.resolve(other);
        await migrator.settled();
      }
    });
  }

  for (const order of ORDERS) {
    test(`without background(), a read at ${stage}, ${order} still waits for both origins`, async () => {
      const { migrator, reads, events } = bgSetup({ stage, order, background: false });
      const read = watch(migrator.read('mig', CTX, 'off'));
      await turns();
      // whichever origin runs first is released first (serial and random start one at a time)
      const first = reads.names()[0];
      reads.resolve(first);
      await turns();
      assert.equal(read.settled, false, 'the read waits for the second origin');
      assert.equal(reads.names().length, 2);
      reads.resolve(otherThan(first));
      await read.done;
      assert.equal(read.value.origin, auth);
      assert.equal(events.length, 1, 'the event is sent before the read resolves, as before');
      await migrator.settled(); // exists without background() too, and has nothing to wait for
    });
  }
}

for (const stage of ['off', 'dualwrite', 'rampdown', 'complete']) {
  test(`background read at ${stage}: one origin, nothing in the background, the event before the result`, async () => {
    const { migrator, reads, events } = bgSetup({ stage, order: 'parallel' });
    const read = watch(migrator.read('mig', CTX, 'off'));
    await turns();
    const only = authoritativeAt(stage);
    assert.deepEqual(reads.names(), [only]);
    reads.resolve(only);
    await read.done;
    assert.equal(read.value.origin, only);
    assert.equal(events.length, 1);
    assert.deepEqual(measurement(events[0], 'invoked').values, { [only]: true });
    await turns();
    assert.deepEqual(reads.names(), [only], 'the other origin never runs');
  });
}

test('background reads do not wait for each other: a second read resolves while the first one\'s shadow hangs', async () => {
  const { migrator, reads, events } = bgSetup({ stage: 'shadow', order: 'parallel' });
  const first = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('old', 'a');
  await first.done;
  const second = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('old', 'b');
  await second.done;
  assert.deepEqual([first.value.value, second.value.value], ['a', 'b']);
  assert.equal(reads.count('new'), 2);
  assert.equal(events.length, 0);
  reads.resolve('new', 'b');
  reads.resolve('new', 'a');
  await migrator.settled();
  assert.equal(events.length, 2);
  assert.deepEqual(events.map((e) => measurement(e, 'consistent').value), [false, false],
    'each read is compared with its own shadow value (a/b and b/a)');
});
