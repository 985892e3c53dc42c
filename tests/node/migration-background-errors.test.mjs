// Background mode, failures after the caller went away (issue 21): a background origin that
// rejects or throws is a recorded error (stats .errors, the event's `error` measurement), never an
// unhandled rejection. The suites run with --unhandled-rejections=strict; this file also listens
// for the event itself, so a rejection left unhandled fails the test that caused it.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { failure } from 'cutover';
import { CTX, bgSetup, measurement, turns, watch } from './helpers/background.mjs';

let unhandled = [];
const onUnhandled = (reason) => unhandled.push(reason);
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  await turns();
  process.off('unhandledRejection', onUnhandled);
  assert.deepEqual(unhandled, [], 'no unhandled rejection');
});

const FAILS = {
  'rejects': (gates, name) => gates.reject(name, new Error(`${name} rejected late`)),
  'rejects with a non-error': (gates, name) => gates.reject(name, { code: 503 }),
  'answers failure()': (gates, name) => gates.resolve(name, failure(new Error(`${name} failed late`))),
};

for (const [how, fail] of Object.entries(FAILS)) {
  for (const order of ['parallel', 'serial', 'random']) {
    test(`a shadow read whose background origin ${how} (${order}) after the caller has its result: a recorded error`, async () => {
      const { migrator, reads, events, compared } = bgSetup({ stage: 'shadow', order });
      const read = watch(migrator.read('mig', CTX, 'off'));
      await turns();
      reads.resolve('old', 'fine');
      await read.done;
      assert.equal(read.value.success, true);
      await turns();
      fail(reads, 'new');
      await migrator.settled();
      await turns();
      assert.equal(events.length, 1);
      assert.deepEqual(measurement(events[0], 'error').values, { new: true });
      assert.equal(measurement(events[0], 'consistent'), undefined);
      assert.equal(compared.length, 0);
      const s = migrator.stats().read;
      assert.deepEqual([s.count, s.new.invoked, s.new.errors, s.new.timeouts, s.old.errors], [1, 1, 1, 0, 0]);
    });
  }

  test(`a live write whose background write ${how}: a recorded error`, async () => {
    const { migrator, writes, events } = bgSetup({ stage: 'live' });
    const write = watch(migrator.write('mig', CTX, 'off'));
    await turns();
    writes.resolve('new');
    await write.done;
    await turns();
    fail(writes, 'old');
    await migrator.settled();
    assert.deepEqual(measurement(events[0], 'error').values, { old: true });
    assert.equal(migrator.stats().write.old.errors, 1);
  });
}

test('a background origin that throws synchronously when it is started (serial): a recorded error', async () => {
  const { migrator, reads, events } = bgSetup({
    stage: 'live',
    order: 'serial',
    readOld: () => {
      throw new RangeError('old blew up on the way in');
    },
  });
  const read = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('new', 'n');
  await read.done;
  assert.equal(read.fulfilled, true);
  assert.equal(read.value.value, 'n');
  await migrator.settled();
  assert.equal(events.length, 1);
  assert.deepEqual(measurement(events[0], 'error').values, { old: true });
  assert.equal(migrator.stats().read.old.errors, 1);
});

test('many reads whose shadows all reject after the callers left: every one counted, nothing unhandled', async () => {
  const { migrator, reads, events } = bgSetup({ stage: 'shadow', order: 'parallel', background: { maxInFlight: 50 } });
  const results = [];
  for (let i = 0; i < 20; i++) {
    const read = watch(migrator.read('mig', CTX, 'off', i));
    await turns(2);
    reads.resolve('old', i);
    results.push(await read.done);
  }
  assert.ok(results.every((r) => r.fulfilled && r.value.success));
  for (let i = 0; i < 20; i++) reads.reject('new', new Error(`shadow ${i}`));
  await migrator.settled();
  assert.equal(events.length, 20);
  assert.equal(migrator.stats().read.new.errors, 20);
});

test('a throwing comparison in the background is logged, the read already resolved', async () => {
  const { migrator, reads, events, log } = bgSetup({
    stage: 'shadow',
    order: 'parallel',
    comparison: () => {
      throw new Error('comparison broke late');
    },
  });
  const read = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('old');
  await read.done;
  assert.equal(read.value.success, true);
  reads.resolve('new');
  await migrator.settled();
  assert.ok(log.has('error', 'comparison broke late'), JSON.stringify(log.calls.map((c) => c.text)));
  assert.equal(events.length, 1);
});

test('a throwing trackMigrationOp in the background is not an unhandled rejection', async () => {
  const { migrator, reads } = bgSetup({
    stage: 'shadow',
    order: 'parallel',
    trackMigrationOp: () => {
      throw new Error('event sink down');
    },
  });
  const read = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('old');
  await read.done;
  reads.resolve('new');
  await migrator.settled();
  assert.equal(migrator.stats().read.count, 1);
});
