// Background mode, waitUntil (issue 21; API.md §1 "Shadowing in production"): called once per
// operation that has a background part, before read()/write() resolves, with a promise that
// resolves (to undefined, never rejecting) once that part has ended: event sent, stats recorded.
// The per-operation option overrides the builder's; a throwing waitUntil is logged and ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CTX, bgSetup, makeWaitUntil, turns, watch } from './helpers/background.mjs';

test('builder waitUntil: called once, before the read resolves, with a promise that resolves after the event', async () => {
  const order = [];
  let seen;
  const waitUntil = (promise, ...rest) => {
    order.push('waitUntil');
    seen = { promise, rest };
  };
  const { migrator, reads, events } = bgSetup({ stage: 'shadow', order: 'parallel', background: { waitUntil } });
  const read = migrator.read('mig', CTX, 'off');
  read.then(() => order.push('resolved'));
  await turns();
  reads.resolve('old');
  await read;
  assert.deepEqual(order, ['waitUntil', 'resolved']);
  assert.ok(seen.promise instanceof Promise, 'waitUntil gets a promise');
  assert.deepEqual(seen.rest, [], 'and nothing else');
  const background = watch(seen.promise);
  await turns();
  assert.equal(background.settled, false, 'the background part is still running');
  let eventsWhenResolved;
  seen.promise.then(() => {
    eventsWhenResolved = events.length;
  });
  reads.resolve('new');
  await background.done;
  assert.equal(background.fulfilled, true);
  assert.equal(background.value, undefined);
  assert.equal(eventsWhenResolved, 1, 'the event was sent before the promise resolved');
  assert.equal(migrator.stats().read.count, 1, 'stats recorded before the promise resolved');
  assert.equal(order.filter((x) => x === 'waitUntil').length, 1, 'called once');
});

test('builder waitUntil on writes: once per write with a background part', async () => {
  const w = makeWaitUntil();
  const { migrator, writes, events, client } = bgSetup({ stage: 'live', background: { waitUntil: w.fn } });
  const write = watch(migrator.write('mig', CTX, 'off'));
  await turns();
  writes.resolve('new');
  await write.done;
  assert.equal(w.calls.length, 1);
  assert.equal(w.calls[0].argc, 1);
  await turns();
  assert.equal(w.calls[0].watched.settled, false);
  writes.resolve('old');
  await w.calls[0].watched.done;
  assert.equal(events.length, 1);
  // a write at complete has no background part
  client.evaluation = 'complete';
  const single = watch(migrator.write('mig', CTX, 'off'));
  await turns();
  writes.resolve('new');
  await single.done;
  assert.equal(w.calls.length, 1, 'not called for an operation without a background part');
});

test('waitUntil is not called for stages with one origin', async () => {
  for (const stage of ['off', 'dualwrite', 'rampdown', 'complete']) {
    const w = makeWaitUntil();
    const { migrator, reads } = bgSetup({ stage, background: { waitUntil: w.fn } });
    const read = watch(migrator.read('mig', CTX, 'off', undefined, { waitUntil: w.fn }));
    await turns();
    reads.resolve(['off', 'dualwrite'].includes(stage) ? 'old' : 'new');
    await read.done;
    assert.equal(read.fulfilled, true, stage);
    assert.equal(w.calls.length, 0, `${stage}: no background part, no waitUntil`);
  }
});

test('per-operation waitUntil overrides the builder\'s, for that operation only', async () => {
  const builderLevel = makeWaitUntil();
  const perOp = makeWaitUntil();
  const { migrator, reads, writes } = bgSetup({ stage: 'shadow', order: 'serial', background: { waitUntil: builderLevel.fn } });
  const first = watch(migrator.read('mig', CTX, 'off', undefined, { waitUntil: perOp.fn }));
  await turns();
  reads.resolve('old');
  await first.done;
  assert.equal(perOp.calls.length, 1);
  assert.equal(builderLevel.calls.length, 0, 'the builder\'s waitUntil is not called when the operation has its own');
  const second = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('old');
  await second.done;
  assert.equal(builderLevel.calls.length, 1, 'the next read without one uses the builder\'s');
  assert.equal(perOp.calls.length, 1);
  const write = watch(migrator.write('mig', CTX, 'off', undefined, { waitUntil: perOp.fn }));
  await turns();
  writes.resolve('old');
  await write.done;
  assert.deepEqual([perOp.calls.length, builderLevel.calls.length], [2, 1]);
  await turns();
  reads.resolve('new');
  reads.resolve('new');
  writes.resolve('new');
  await Promise.all([...perOp.calls, ...builderLevel.calls].map((c) => c.watched.done));
  for (const c of [...perOp.calls, ...builderLevel.calls]) assert.equal(c.watched.fulfilled, true);
});

test('per-operation waitUntil without a builder-level one', async () => {
  const perOp = makeWaitUntil();
  const { migrator, reads, events } = bgSetup({ stage: 'live', order: 'parallel' });
  const read = watch(migrator.read('mig', CTX, 'off', undefined, { signal: new AbortController().signal, waitUntil: perOp.fn }));
  await turns();
  reads.resolve('new');
  await read.done;
  assert.equal(perOp.calls.length, 1);
  reads.resolve('old');
  await perOp.calls[0].watched.done;
  assert.equal(events.length, 1);
});

test('waitUntil\'s promise resolves, never rejects, when the background origin fails', async () => {
  const w = makeWaitUntil();
  const { migrator, reads } = bgSetup({ stage: 'shadow', order: 'parallel', background: { waitUntil: w.fn } });
  const read = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('old');
  await read.done;
  reads.reject('new', new Error('shadow broke'));
  await w.calls[0].watched.done;
  assert.equal(w.calls[0].watched.fulfilled, true);
  assert.equal(w.calls[0].watched.value, undefined);
});

test('a throwing waitUntil is logged with logger.error and the operation resolves normally', async () => {
  const thrown = new Error('waitUntil is not available here');
  let called = 0;
  const { migrator, reads, events, log } = bgSetup({
    stage: 'shadow',
    order: 'parallel',
    background: {
      waitUntil: () => {
        called++;
        throw thrown;
      },
    },
  });
  const read = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('old', 'kept');
  await read.done;
  assert.equal(read.fulfilled, true, 'the read resolves');
  assert.equal(read.value.value, 'kept');
  assert.equal(called, 1);
  const errors = log.calls.filter((c) => c.level === 'error');
  assert.equal(errors.length, 1, `one error line: ${JSON.stringify(log.calls.map((c) => c.text))}`);
  assert.ok(
    errors[0].args.includes(thrown) || errors[0].text.includes(thrown.message),
    `the line carries the thrown error: ${errors[0].text}`,
  );
  reads.resolve('new', 'kept');
  await migrator.settled();
  assert.equal(events.length, 1, 'the background part went on');
});

test('a throwing per-operation waitUntil on a write is logged too', async () => {
  const { migrator, writes, log } = bgSetup({ stage: 'dualwrite' });
  const write = watch(
    migrator.write('mig', CTX, 'off', undefined, {
      waitUntil: () => {
        throw new TypeError('no context to wait on');
      },
    }),
  );
  await turns();
  writes.resolve('old');
  await write.done;
  assert.equal(write.fulfilled, true);
  assert.ok(log.has('error', 'no context to wait on'), JSON.stringify(log.calls.map((c) => c.text)));
  writes.resolve('new');
  await migrator.settled();
});

test('a per-operation waitUntil on a migrator without background() is accepted and not called', async () => {
  const w = makeWaitUntil();
  const { migrator, reads } = bgSetup({ stage: 'shadow', order: 'parallel', background: false });
  const read = watch(migrator.read('mig', CTX, 'off', undefined, { waitUntil: w.fn }));
  await turns();
  reads.resolve('old');
  reads.resolve('new');
  await read.done;
  assert.equal(read.fulfilled, true, read.error?.message);
  assert.equal(w.calls.length, 0);
});

test('a throwing waitUntil still got a promise that resolves when the background part ends', async () => {
  let handed;
  const { migrator, reads } = bgSetup({
    stage: 'shadow',
    order: 'parallel',
    background: {
      waitUntil: (promise) => {
        handed = watch(promise);
        throw new Error('registered, then threw');
      },
    },
  });
  const read = watch(migrator.read('mig', CTX, 'off'));
  await turns();
  reads.resolve('old');
  await read.done;
  assert.equal(read.fulfilled, true);
  reads.resolve('new');
  await migrator.settled();
  await turns();
  assert.equal(handed.fulfilled, true, 'the promise handed over resolved');
});
