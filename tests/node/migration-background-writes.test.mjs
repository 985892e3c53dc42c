// Background mode, writes (issue 21; API.md §1 "Shadowing in production"): at dualwrite, shadow,
// live and rampdown a write resolves once the authoritative write settled, with no
// `nonAuthoritative`; the other write then runs in the background, and only when the
// authoritative one succeeded. Writes at off and complete are unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failure } from 'cutover';
import { CTX, authoritativeAt, bgSetup, measurement, otherThan, turns, watch } from './helpers/background.mjs';

for (const stage of ['dualwrite', 'shadow', 'live', 'rampdown']) {
  const auth = authoritativeAt(stage);
  const other = otherThan(auth);

  test(`background write at ${stage}: ${auth} first, the write resolves before ${other} settles`, async () => {
    const { migrator, writes, events } = bgSetup({ stage });
    const payload = { row: 1 };
    const write = watch(migrator.write('mig', CTX, 'off', payload));
    await turns();
    assert.deepEqual(writes.names(), [auth], 'only the authoritative write runs first');
    assert.equal(write.settled, false);
    writes.resolve(auth, `${auth}-written`);
    await write.done;
    assert.equal(write.fulfilled, true);
    const result = write.value;
    assert.deepEqual(
      { origin: result.authoritative.origin, success: result.authoritative.success, value: result.authoritative.value },
      { origin: auth, success: true, value: `${auth}-written` },
    );
    assert.equal(result.nonAuthoritative, undefined, 'no nonAuthoritative in background mode');
    await turns();
    assert.deepEqual(writes.names(), [auth, other], 'then the other write, in the background');
    assert.equal(writes.isPending(other), true);
    assert.equal(events.length, 0, 'the event waits for the background write');
    for (const call of writes.calls) {
      assert.equal(call.payload, payload);
      assert.ok(call.signal instanceof AbortSignal);
    }
    writes.resolve(other, `${other}-written`);
    await migrator.settled();
    assert.equal(events.length, 1);
    assert.equal(events[0].operation, 'write');
    assert.deepEqual(measurement(events[0], 'invoked').values, { old: true, new: true });
    assert.equal(measurement(events[0], 'error'), undefined);
    const s = migrator.stats().write;
    assert.equal(s.count, 1);
    assert.deepEqual([s.old.invoked, s.new.invoked, s.old.errors, s.new.errors], [1, 1, 0, 0]);
  });

  for (const how of ['rejects', 'failure()']) {
    test(`background write at ${stage}: when ${auth} ${how === 'rejects' ? 'rejects' : 'answers failure()'}, ${other} never runs`, async () => {
      const { migrator, writes, events } = bgSetup({ stage });
      const boom = new Error(`${auth} write failed`);
      const write = watch(migrator.write('mig', CTX, 'off'));
      await turns();
      if (how === 'rejects') writes.reject(auth, boom);
      else writes.resolve(auth, failure(boom));
      await write.done;
      assert.equal(write.fulfilled, true, 'a failed write is a result, not a rejection');
      assert.equal(write.value.authoritative.origin, auth);
      assert.equal(write.value.authoritative.success, false);
      assert.equal(write.value.authoritative.error, boom);
      assert.equal(write.value.nonAuthoritative, undefined);
      await migrator.settled();
      await turns();
      assert.deepEqual(writes.names(), [auth], `${other} was never called`);
      assert.equal(events.length, 1);
      assert.deepEqual(measurement(events[0], 'invoked').values, { [auth]: true });
      assert.deepEqual(measurement(events[0], 'error').values, { [auth]: true });
      const s = migrator.stats().write;
      assert.equal(s[auth].errors, 1);
      assert.equal(s[other].invoked, 0);
    });
  }

  test(`background write at ${stage}: a failing background write is recorded, the caller already has its result`, async () => {
    const { migrator, writes, events } = bgSetup({ stage });
    const write = watch(migrator.write('mig', CTX, 'off'));
    await turns();
    writes.resolve(auth, 'ok');
    await write.done;
    assert.equal(write.value.authoritative.success, true);
    await turns();
    writes.reject(other, new Error(`${other} write failed later`));
    await migrator.settled();
    assert.equal(events.length, 1);
    assert.deepEqual(measurement(events[0], 'error').values, { [other]: true });
    assert.equal(migrator.stats().write[other].errors, 1);
  });

  test(`without background(), a write at ${stage} still waits for both and has nonAuthoritative`, async () => {
    const { migrator, writes, events } = bgSetup({ stage, background: false });
    const write = watch(migrator.write('mig', CTX, 'off'));
    await turns();
    writes.resolve(auth, 'a');
    await turns();
    assert.equal(write.settled, false);
    assert.deepEqual(writes.names(), [auth, other]);
    writes.resolve(other, 'b');
    await write.done;
    assert.equal(write.value.authoritative.value, 'a');
    assert.equal(write.value.nonAuthoritative.origin, other);
    assert.equal(write.value.nonAuthoritative.value, 'b');
    assert.equal(events.length, 1);
  });
}

for (const stage of ['off', 'complete']) {
  test(`background write at ${stage}: one write, as before`, async () => {
    const { migrator, writes, events } = bgSetup({ stage });
    const only = authoritativeAt(stage);
    const write = watch(migrator.write('mig', CTX, 'off'));
    await turns();
    writes.resolve(only, 'w');
    await write.done;
    assert.equal(write.value.authoritative.origin, only);
    assert.equal(write.value.authoritative.value, 'w');
    assert.equal(write.value.nonAuthoritative, undefined);
    assert.equal(events.length, 1, 'nothing in the background: the event is already sent');
    await turns();
    assert.deepEqual(writes.names(), [only]);
  });
}
