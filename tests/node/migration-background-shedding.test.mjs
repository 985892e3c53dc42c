// Background mode, shedding (issue 21; API.md §1 "Shadowing in production"): while maxInFlight
// background parts are running, a new operation runs its authoritative origin only; its event
// records only that origin (no consistency) and stats().read.shed / .write.shed count it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CTX, bgSetup, makeWaitUntil, measurement, turns, watch } from './helpers/background.mjs';

/** Starts a read and lets its authoritative origin (old at shadow) answer; returns its result. */
async function readPastOld(migrator, reads, value) {
  const read = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('old', value);
  await read.done;
  assert.equal(read.fulfilled, true);
  return read.value;
}

test('stats().read.shed and .write.shed exist and are 0, with or without background()', async () => {
  for (const background of [false, 'bare']) {
    const { migrator, reads } = bgSetup({ stage: 'off', background });
    const s = migrator.stats();
    assert.equal(s.read.shed, 0);
    assert.equal(s.write.shed, 0);
    const read = watch(migrator.read('mig', CTX, 'off'));
    await turns();
    reads.resolve('old');
    await read.done;
    migrator.resetStats();
    assert.deepEqual([migrator.stats().read.shed, migrator.stats().write.shed], [0, 0]);
  }
});

test('maxInFlight 2, five reads whose shadow hangs: three are shed', async () => {
  const waitUntil = makeWaitUntil();
  const { migrator, reads, events, compared } = bgSetup({
    stage: 'shadow',
    order: 'parallel',
    background: { maxInFlight: 2, waitUntil: waitUntil.fn },
  });
  const results = [];
  for (let i = 0; i < 5; i++) results.push(await readPastOld(migrator, reads, `v${i}`));
  assert.deepEqual(results.map((r) => [r.origin, r.success, r.value]), [0, 1, 2, 3, 4].map((i) => ['old', true, `v${i}`]));
  assert.equal(reads.count('old'), 5);
  assert.equal(reads.count('new'), 2, 'the shed reads never called the shadow origin');
  assert.equal(migrator.stats().read.shed, 3);
  assert.equal(events.length, 3, 'the shed reads have nothing left to do: their events are sent');
  for (const e of events) {
    assert.deepEqual(measurement(e, 'invoked').values, { old: true });
    assert.equal(measurement(e, 'consistent'), undefined);
    assert.deepEqual(Object.keys(measurement(e, 'latency_ms').values), ['old']);
  }
  assert.equal(waitUntil.calls.length, 2, 'waitUntil only for the reads with a background part');

  reads.resolve('new', 'v0');
  reads.resolve('new', 'x');
  await migrator.settled();
  assert.equal(events.length, 5);
  const full = events.slice(3);
  for (const e of full) assert.deepEqual(measurement(e, 'invoked').values, { old: true, new: true });
  assert.deepEqual(full.map((e) => measurement(e, 'consistent').value).sort(), [false, true]);
  assert.equal(compared.length, 2);
  const s = migrator.stats().read;
  assert.equal(s.shed, 3);
  assert.equal(s.count, 5, 'shed reads are operations too');
  assert.deepEqual([s.old.invoked, s.new.invoked], [5, 2]);
  assert.equal(s.consistency.checked, 2);
});

test('a freed slot is used again: after the shadows end, reads are not shed any more', async () => {
  const { migrator, reads } = bgSetup({ stage: 'shadow', order: 'serial', background: { maxInFlight: 1 } });
  await readPastOld(migrator, reads, 'a');
  await turns();
  assert.equal(reads.count('new'), 1);
  await readPastOld(migrator, reads, 'b'); // shed
  assert.equal(migrator.stats().read.shed, 1);
  reads.resolve('new', 'a');
  await migrator.settled();
  await readPastOld(migrator, reads, 'c'); // a slot again
  await turns();
  assert.equal(reads.count('new'), 2, 'the third read has its shadow again');
  reads.resolve('new', 'c');
  await migrator.settled();
  assert.equal(migrator.stats().read.shed, 1);
});

test('shedding at live: the new origin alone answers, the old one is not called', async () => {
  const { migrator, reads, events } = bgSetup({ stage: 'live', order: 'parallel', background: { maxInFlight: 1 } });
  const first = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('new', 'n1');
  await first.done;
  const second = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  assert.equal(reads.count('old'), 1, 'the second (shed) read does not call old');
  reads.resolve('new', 'n2');
  await second.done;
  assert.equal(second.value.value, 'n2');
  assert.equal(events.length, 1);
  assert.deepEqual(measurement(events[0], 'invoked').values, { new: true });
  assert.equal(migrator.stats().read.shed, 1);
  reads.resolve('old');
  await migrator.settled();
});

test('maxInFlight 2, five dualwrites whose new write hangs: three are shed', async () => {
  const { migrator, writes, events } = bgSetup({ stage: 'dualwrite', background: { maxInFlight: 2 } });
  for (let i = 0; i < 5; i++) {
    const write = watch(migrator.write('mig', CTX, 'off', i));
    await turns();
    writes.resolve('old', `w${i}`);
    await write.done;
    assert.equal(write.value.authoritative.value, `w${i}`);
    assert.equal(write.value.nonAuthoritative, undefined);
    await turns();
  }
  assert.equal(writes.count('old'), 5);
  assert.equal(writes.count('new'), 2);
  assert.deepEqual(writes.calls.filter((c) => c.name === 'new').map((c) => c.payload), [0, 1]);
  assert.equal(migrator.stats().write.shed, 3);
  assert.equal(migrator.stats().read.shed, 0);
  assert.equal(events.length, 3);
  for (const e of events) assert.deepEqual(measurement(e, 'invoked').values, { old: true });
  writes.resolve('new');
  writes.resolve('new');
  await migrator.settled();
  assert.equal(events.length, 5);
  const s = migrator.stats().write;
  assert.deepEqual([s.count, s.shed, s.old.invoked, s.new.invoked], [5, 3, 5, 2]);
});

test('reads and writes share the migrator\'s maxInFlight', async () => {
  const { migrator, reads, writes } = bgSetup({ stage: 'shadow', order: 'parallel', background: { maxInFlight: 2 } });
  await readPastOld(migrator, reads, 'r');
  const write = watch(migrator.write('mig', CTX, 'off'));
  await turns();
  writes.resolve('old');
  await write.done;
  await turns();
  assert.equal(writes.count('new'), 1, 'the write has its background part: two in flight');
  await readPastOld(migrator, reads, 'r2');
  const write2 = watch(migrator.write('mig', CTX, 'off'));
  await turns();
  writes.resolve('old');
  await write2.done;
  await turns();
  assert.equal(reads.count('new'), 1);
  assert.equal(writes.count('new'), 1);
  assert.deepEqual([migrator.stats().read.shed, migrator.stats().write.shed], [1, 1]);
  reads.resolve('new', 'r');
  writes.resolve('new');
  await migrator.settled();
});

test('the default maxInFlight is 100: the 101st concurrent shadow is shed', async () => {
  const { migrator, reads } = bgSetup({ stage: 'shadow', order: 'parallel' });
  for (let i = 0; i < 101; i++) await readPastOld(migrator, reads, i);
  assert.equal(reads.count('new'), 100);
  assert.equal(migrator.stats().read.shed, 1);
  for (let i = 0; i < 100; i++) reads.resolve('new', i);
  await migrator.settled();
  assert.equal(migrator.stats().read.count, 101);
});
