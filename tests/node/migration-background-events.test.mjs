// Background mode, what is recorded and when (issue 21; API.md §1 "Shadowing in production"):
// the one migration_op event is sent when the background part ends and is the event the same
// operation makes without background() (latency numbers and creationDate aside); stats() and the
// consistency check are recorded then too. migrator.settled() resolves once the background parts
// started before the call have ended, at once when there are none, and never rejects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failure } from 'cutover';
import {
  CTX,
  answering,
  authoritativeAt,
  bgSetup,
  measurement,
  normalizeEvent,
  otherThan,
  turns,
  watch,
} from './helpers/background.mjs';
import { otel } from './helpers/otel.mjs';

/**
 * Runs one operation on a migrator made with `background` and returns its result (read: without
 * the error object compared by identity elsewhere), its events and stats, once all has ended.
 */
async function runOnce({ background, stage, order, op, spec }) {
  const set = bgSetup({
    stage,
    order,
    background,
    readOld: answering(spec.readOld ?? 'same'),
    readNew: answering(spec.readNew ?? 'same'),
    writeOld: answering(spec.writeOld ?? 'w-old'),
    writeNew: answering(spec.writeNew ?? 'w-new'),
  });
  const result = await set.migrator[op]('mig', { kind: 'user', key: 'u-7', name: 'Eve' }, 'off', { p: 1 });
  await set.migrator.settled();
  await turns();
  return { result, events: set.events, stats: set.migrator.stats(), compared: set.compared.length };
}

const boom = new Error('boom');
const READ_SPECS = [
  {},
  { readNew: 'different' },
  { readNew: { rejects: boom } },
  { readOld: { throws: boom } },
  { readOld: failure(boom) },
  { readOld: { rejects: boom }, readNew: { rejects: boom } },
];
const WRITE_SPECS = [{}, { writeOld: { rejects: boom } }, { writeNew: failure(boom) }, { writeNew: { throws: boom } }];

/** Stats with the latency summaries reduced to whether there are any. */
function comparableStats(stats) {
  const s = structuredClone(stats);
  for (const op of ['read', 'write']) {
    for (const origin of ['old', 'new']) s[op][origin].latencyMs = s[op][origin].latencyMs === null ? null : 'some';
  }
  return s;
}

test('the background event equals the foreground event: every read stage × order × outcome', async () => {
  for (const stage of ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete']) {
    for (const order of ['parallel', 'serial', 'random']) {
      for (const spec of READ_SPECS) {
        const where = `read at ${stage}, ${order}, ${JSON.stringify(spec)}`;
        const fg = await runOnce({ background: false, stage, order, op: 'read', spec });
        const bg = await runOnce({ background: 'bare', stage, order, op: 'read', spec });
        assert.equal(fg.events.length, 1, where);
        assert.equal(bg.events.length, 1, `${where}: one event`);
        assert.deepEqual(normalizeEvent(bg.events[0]), normalizeEvent(fg.events[0]), `${where}: event`);
        assert.deepEqual(comparableStats(bg.stats), comparableStats(fg.stats), `${where}: stats`);
        assert.equal(bg.compared, fg.compared, `${where}: comparisons`);
        assert.deepEqual(
          [bg.result.origin, bg.result.success, bg.result.value, bg.result.error],
          [fg.result.origin, fg.result.success, fg.result.value, fg.result.error],
          `${where}: result`,
        );
      }
    }
  }
});

test('the background event equals the foreground event: every write stage × outcome', async () => {
  for (const stage of ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete']) {
    for (const spec of WRITE_SPECS) {
      const where = `write at ${stage}, ${JSON.stringify(spec)}`;
      const fg = await runOnce({ background: false, stage, op: 'write', spec });
      const bg = await runOnce({ background: 'bare', stage, op: 'write', spec });
      assert.equal(bg.events.length, 1, `${where}: one event`);
      assert.deepEqual(normalizeEvent(bg.events[0]), normalizeEvent(fg.events[0]), `${where}: event`);
      assert.deepEqual(comparableStats(bg.stats), comparableStats(fg.stats), `${where}: stats`);
      const a = bg.result.authoritative;
      const b = fg.result.authoritative;
      assert.deepEqual([a.origin, a.success, a.value, a.error], [b.origin, b.success, b.value, b.error], `${where}: authoritative`);
      assert.equal(bg.result.nonAuthoritative, undefined, where);
    }
  }
});

for (const stage of ['shadow', 'live']) {
  const auth = authoritativeAt(stage);
  const other = otherThan(auth);

  test(`read at ${stage}: event, stats and the comparison wait for the background origin, then happen once`, async () => {
    const { migrator, reads, events, compared } = bgSetup({ stage, order: 'parallel' });
    const read = watch(migrator.read('mig', CTX, 'off'));
    await turns();
    reads.resolve(auth, 'v');
    await read.done;
    await turns();
    assert.equal(events.length, 0, 'no event yet');
    assert.equal(compared.length, 0, 'not compared yet');
    const before = migrator.stats().read;
    assert.equal(before.count, 0, 'the operation is not in stats() yet');
    assert.deepEqual(before.byStage, {});
    assert.equal(before.consistency.checked, 0);
    reads.resolve(other, 'v');
    await migrator.settled();
    assert.equal(events.length, 1);
    assert.deepEqual(compared, [['v', 'v']]);
    assert.equal(measurement(events[0], 'consistent').value, true);
    const after = migrator.stats().read;
    assert.equal(after.count, 1);
    assert.deepEqual(after.byStage, { [stage]: 1 });
    assert.deepEqual([after.consistency.checked, after.consistency.consistent], [1, 1]);
    assert.deepEqual([after.old.invoked, after.new.invoked], [1, 1]);
    await turns();
    assert.equal(events.length, 1, 'sent once');
  });

  test(`read at ${stage}: the authoritative origin's stats and metrics wait for the background part too`, async (t) => {
    const { meter, collect } = otel(t);
    const { migrator, reads } = bgSetup({ stage, order: 'parallel', meter });
    const read = watch(migrator.read('mig', CTX, 'off'));
    await turns();
    reads.reject(auth, new Error('authoritative failed'));
    await read.done;
    await turns();
    const before = migrator.stats().read;
    assert.deepEqual(
      [before.count, before[auth].invoked, before[auth].errors, before[auth].latencyMs],
      [0, 0, 0, null],
      'nothing of the operation is in stats() before its background part ended',
    );
    const metrics = await collect();
    assert.deepEqual([...metrics.keys()], [], 'nor in the meter');
    reads.resolve(other);
    await migrator.settled();
    const after = migrator.stats().read;
    assert.deepEqual([after.count, after[auth].invoked, after[auth].errors, after[other].invoked], [1, 1, 1, 1]);
  });

  test(`read at ${stage}: each origin's latency is its own (the background one measured to its own settle)`, async () => {
    const { migrator, reads, events } = bgSetup({ stage, order: 'parallel' });
    const read = watch(migrator.read('mig', CTX, 'off'));
    await turns();
    reads.resolve(auth);
    await read.done;
    await turns();
    reads.resolve(other);
    await migrator.settled();
    const latency = measurement(events[0], 'latency_ms').values;
    assert.deepEqual(Object.keys(latency).sort(), ['new', 'old']);
    for (const v of Object.values(latency)) assert.ok(Number.isFinite(v) && v >= 0, String(v));
  });
}

test('settled() with nothing in the background resolves at once (within a few turns of the event loop)', async () => {
  const { migrator } = bgSetup({ stage: 'shadow' });
  const s = watch(migrator.settled());
  await turns(3);
  assert.equal(s.fulfilled, true);
  assert.equal(s.value, undefined);
  const fresh = watch(bgSetup({ stage: 'off', background: false }).migrator.settled());
  await turns(3);
  assert.equal(fresh.fulfilled, true, 'without background() too');
});

test('settled() waits for the background parts started before it, not for later ones', async () => {
  const { migrator, reads, events } = bgSetup({ stage: 'shadow', order: 'parallel' });
  const first = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('old', 'a');
  await first.done;
  const s1 = watch(migrator.settled());
  await turns();
  assert.equal(s1.settled, false, 'the first read\'s shadow is still running');
  const second = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('old', 'b');
  await second.done;
  const s2 = watch(migrator.settled());
  reads.resolve('new', 'a'); // the first read's shadow
  await s1.done;
  assert.equal(s1.fulfilled, true);
  assert.equal(events.length, 1, 'settled() resolved after the first read\'s event was sent');
  await turns();
  assert.equal(s2.settled, false, 'the second read\'s shadow is still running');
  reads.resolve('new', 'b');
  await s2.done;
  assert.equal(s2.fulfilled, true);
  assert.equal(events.length, 2);
  assert.equal(migrator.stats().read.count, 2);
});

test('settled() waits for a write\'s background part too', async () => {
  const { migrator, writes, events } = bgSetup({ stage: 'dualwrite' });
  const write = watch(migrator.write('mig', CTX, 'off'));
  await turns();
  writes.resolve('old');
  await write.done;
  const s = watch(migrator.settled());
  await turns();
  assert.equal(s.settled, false);
  writes.resolve('new');
  await s.done;
  assert.equal(events.length, 1);
  assert.equal(migrator.stats().write.count, 1);
});

test('settled() never rejects: the background origin failing resolves it', async () => {
  const { migrator, reads } = bgSetup({ stage: 'live', order: 'serial' });
  const read = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('new');
  await read.done;
  await turns();
  const s = watch(migrator.settled());
  reads.reject('old', new Error('old fell over'));
  await s.done;
  assert.equal(s.fulfilled, true);
  assert.equal(s.value, undefined);
});

test('several settled() calls at once all resolve after the same background part', async () => {
  const { migrator, reads } = bgSetup({ stage: 'shadow', order: 'serial' });
  const read = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('old');
  await read.done;
  const all = [watch(migrator.settled()), watch(migrator.settled()), watch(migrator.settled())];
  await turns();
  assert.deepEqual(all.map((w) => w.settled), [false, false, false]);
  await turns();
  reads.resolve('new');
  await Promise.all(all.map((w) => w.done));
  assert.deepEqual(all.map((w) => w.fulfilled), [true, true, true]);
});
