// AsyncLocalStorage propagation through migrations: every callback of an operation (flag client,
// origins, comparison, external tracker, logger, trackMigrationOp) runs in the async context that
// was current when `migrator.read()` / `migrator.write()` was called — also when operations
// interleave, after an origin timeout and after a caller's abort.
//
// Every callback records `{ id, what, store }`, where `id` names the operation it belongs to (read
// from its arguments: flag key `flag-<id>`, payload `<id>`, values `<id>:old`) and `store` is
// `als.getStore()`. Each operation runs inside `als.run(<id>, …)`, so a callback is in the right
// context exactly when `store === id`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { MigratorBuilder } from 'cutover';
import { ctxOf, idOfFlag, idOfValue, makeProbe } from './helpers/async-context.mjs';
import { abortableSleep, sleep } from './helpers/migration.mjs';

const als = new AsyncLocalStorage();

// ---------- recording (helpers/async-context.mjs) ----------

/** Every callback named in `whats` ran at least once for operation `id`. */
function assertSeen(probe, id, whats) {
  const got = probe.whats(id);
  for (const what of whats) {
    assert.ok(got.has(what), `${what} was called for operation ${id} (saw: ${[...got].join(', ')})`);
  }
}

/** Every recorded callback ran in the context of its own operation. */
function assertAllInCallersContext(probe) {
  const wrong = probe.seen
    .filter((e) => e.store !== e.id)
    .map((e) => `${e.what} of operation ${e.id} saw store ${JSON.stringify(e.store)}`);
  if (wrong.length > 0) {
    assert.fail(`${wrong.length} of ${probe.seen.length} callbacks ran outside their caller's AsyncLocalStorage context:\n  ${wrong.join('\n  ')}`);
  }
}

/** A LaunchDarkly-shaped external tracker for operation `id`; consistency(check) calls check(). */
function makeTracker(probe, id) {
  return {
    op() {
      probe.note(id, 'tracker.op');
    },
    invoked() {
      probe.note(id, 'tracker.invoked');
    },
    latency() {
      probe.note(id, 'tracker.latency');
    },
    error() {
      probe.note(id, 'tracker.error');
    },
    consistency(check) {
      probe.note(id, 'tracker.consistency');
      check();
    },
    createEvent() {
      probe.note(id, 'tracker.createEvent');
      return { kind: 'migration_op', trackerEventOf: id };
    },
  };
}

/**
 * A flag client. `stageOf(id)` is the stage served; `variationDelay(id)` (when given) makes
 * migrationVariation return a promise settling after that many ms; `trackerFor(id)` (when true)
 * adds an external tracker to the evaluation.
 */
function makeClient(probe, { stageOf = () => 'shadow', variationDelay, trackerFor = () => false } = {}) {
  const events = [];
  const client = {
    migrationVariation(flagKey) {
      const id = idOfFlag(flagKey);
      probe.note(id, 'migrationVariation');
      const answer = () => (trackerFor(id) ? { value: stageOf(id), tracker: makeTracker(probe, id) } : { value: stageOf(id) });
      if (variationDelay) return sleep(variationDelay(id)).then(answer);
      return answer();
    },
    trackMigrationOp(event) {
      const id = event.trackerEventOf ?? idOfFlag(event.evaluation.key);
      probe.note(id, 'trackMigrationOp');
      events.push(event);
    },
  };
  return { client, events };
}

/**
 * A logger. A line naming a flag (`flag-<id>`) belongs to that operation; other lines belong to
 * `ownerId` when given (a migrator used by one operation only), else they are kept but not judged.
 */
function makeLogger(probe, ownerId) {
  const calls = [];
  const logger = {};
  for (const level of ['debug', 'info', 'warn', 'error']) {
    logger[level] = (...args) => {
      const text = args.map((a) => String(a)).join(' ');
      calls.push({ level, text, store: als.getStore() });
      const m = /flag-([\w-]+)/.exec(text);
      const id = m ? m[1] : ownerId;
      if (id !== undefined) probe.note(id, `log.${level}`);
    };
  }
  return { logger, calls, has: (level, s) => calls.some((c) => c.level === level && c.text.includes(s)) };
}

/** An origin recording its call; `behaviour(id, signal)` gives its result (value or promise). */
function origin(probe, label, behaviour) {
  return (payload, signal) => {
    probe.note(payload, label);
    return behaviour(payload, signal);
  };
}

/** An async origin answering `<id>:<suffix>` after `delays[id]` ms. */
function delayed(probe, label, suffix, delays) {
  return origin(probe, label, async (id) => {
    await sleep(delays[id] ?? 0);
    return `${id}:${suffix}`;
  });
}

function recordingComparison(probe, answer = () => true) {
  return (oldValue, newValue) => {
    const id = idOfValue(oldValue);
    probe.note(id, 'comparison');
    assert.equal(idOfValue(newValue), id, 'the comparison compares values of one operation');
    return answer(id);
  };
}

/**
 * A migrator over a recording client and logger. Options: client (makeClient options), order,
 * originTimeout, ownerId (logger), readOld/readNew/writeOld/writeNew (origins), comparison.
 */
function build(probe, opts = {}) {
  const { client, events } = makeClient(probe, opts.client);
  const log = makeLogger(probe, opts.ownerId);
  const builder = new MigratorBuilder(opts.sharedClient ?? client, { logger: log.logger });
  if (opts.order) builder.readExecutionOrder(opts.order);
  if (opts.originTimeout !== undefined) builder.originTimeout(opts.originTimeout);
  const readOld = opts.readOld ?? delayed(probe, 'read:old', 'old', {});
  const readNew = opts.readNew ?? delayed(probe, 'read:new', 'new', {});
  const comparison = opts.comparison === undefined ? recordingComparison(probe) : opts.comparison;
  if (comparison) builder.read(readOld, readNew, comparison);
  else builder.read(readOld, readNew);
  builder.write(
    opts.writeOld ?? delayed(probe, 'write:old', 'old-written', {}),
    opts.writeNew ?? delayed(probe, 'write:new', 'new-written', {}),
  );
  return { migrator: builder.build(), events, log, client };
}

/** Starts `migrator.read` for every id at once, each inside `als.run(id, …)`. */
function readAll(migrator, ids) {
  return Promise.all(ids.map((id) => als.run(id, () => migrator.read(`flag-${id}`, ctxOf(id), 'off', id))));
}

function writeAll(migrator, ids) {
  return Promise.all(ids.map((id) => als.run(id, () => migrator.write(`flag-${id}`, ctxOf(id), 'off', id))));
}

const READ_CALLBACKS = ['migrationVariation', 'read:old', 'read:new', 'comparison', 'trackMigrationOp'];

// ---------- baseline ----------

test('a lone read with synchronous callbacks: every callback sees the caller\'s store', async () => {
  const probe = makeProbe(als);
  const sync = (label, suffix) => origin(probe, label, (id) => `${id}:${suffix}`);
  const { migrator } = build(probe, {
    client: { trackerFor: () => true },
    readOld: sync('read:old', 'old'),
    readNew: sync('read:new', 'new'),
  });
  const r = await als.run('solo', () => migrator.read('flag-solo', ctxOf('solo'), 'off', 'solo'));
  assert.equal(r.value, 'solo:old');
  assertSeen(probe, 'solo', [...READ_CALLBACKS, 'tracker.op', 'tracker.invoked', 'tracker.latency', 'tracker.consistency', 'tracker.createEvent']);
  assertAllInCallersContext(probe);
});

// ---------- reads, every execution order ----------

test('parallel reads interleaving: origins, comparison and trackMigrationOp run in each caller\'s context', async () => {
  const probe = makeProbe(als);
  const stages = { A: 'shadow', B: 'live', C: 'shadow' };
  const { migrator, events } = build(probe, {
    order: 'parallel',
    client: { stageOf: (id) => stages[id] },
    readOld: delayed(probe, 'read:old', 'old', { A: 30, B: 5, C: 15 }),
    readNew: delayed(probe, 'read:new', 'new', { A: 10, B: 25, C: 20 }),
  });
  const results = await readAll(migrator, ['A', 'B', 'C']);
  assert.deepEqual(results.map((r) => r.value), ['A:old', 'B:new', 'C:old']);
  assert.equal(events.length, 3);
  for (const id of ['A', 'B', 'C']) assertSeen(probe, id, READ_CALLBACKS);
  assertAllInCallersContext(probe);
});

test('serial reads interleaving: both origins (the second one too) run in each caller\'s context', async () => {
  const probe = makeProbe(als);
  const stages = { A: 'shadow', B: 'live', C: 'shadow', D: 'live' };
  const order = [];
  const step = (label, suffix, delays) =>
    origin(probe, label, async (id) => {
      order.push(`${id}:${suffix}`);
      await sleep(delays[id]);
      return `${id}:${suffix}`;
    });
  const { migrator } = build(probe, {
    order: 'serial',
    client: { stageOf: (id) => stages[id] },
    readOld: step('read:old', 'old', { A: 25, B: 5, C: 10, D: 15 }),
    readNew: step('read:new', 'new', { A: 5, B: 20, C: 15, D: 5 }),
  });
  const results = await readAll(migrator, ['A', 'B', 'C', 'D']);
  assert.deepEqual(results.map((r) => r.value), ['A:old', 'B:new', 'C:old', 'D:new']);
  // serial: the authoritative origin first (old for shadow, new for live)
  for (const [id, first] of [['A', 'old'], ['B', 'new'], ['C', 'old'], ['D', 'new']]) {
    const mine = order.filter((o) => o.startsWith(`${id}:`));
    assert.deepEqual(mine[0], `${id}:${first}`, `serial order for ${id}`);
  }
  for (const id of ['A', 'B', 'C', 'D']) assertSeen(probe, id, READ_CALLBACKS);
  assertAllInCallersContext(probe);
});

test('random-order reads interleaving: every callback runs in its caller\'s context', async () => {
  const probe = makeProbe(als);
  const ids = ['A', 'B', 'C', 'D', 'E', 'F'];
  const { migrator } = build(probe, {
    order: 'random',
    client: { stageOf: (id) => (id < 'D' ? 'shadow' : 'live') },
    readOld: delayed(probe, 'read:old', 'old', { A: 20, B: 5, C: 12, D: 3, E: 18, F: 8 }),
    readNew: delayed(probe, 'read:new', 'new', { A: 4, B: 16, C: 9, D: 20, E: 2, F: 11 }),
  });
  const results = await readAll(migrator, ids);
  assert.deepEqual(results.map((r) => r.value), ['A:old', 'B:old', 'C:old', 'D:new', 'E:new', 'F:new']);
  for (const id of ids) assertSeen(probe, id, READ_CALLBACKS);
  assertAllInCallersContext(probe);
});

test('an async migrationVariation settling out of order: the rest of each read stays in its caller\'s context', async () => {
  const probe = makeProbe(als);
  const { migrator } = build(probe, {
    client: { stageOf: () => 'shadow', variationDelay: (id) => ({ A: 30, B: 5, C: 15 })[id] },
    readOld: delayed(probe, 'read:old', 'old', { A: 5, B: 20, C: 10 }),
    readNew: delayed(probe, 'read:new', 'new', { A: 10, B: 5, C: 25 }),
  });
  const results = await readAll(migrator, ['A', 'B', 'C']);
  assert.deepEqual(results.map((r) => r.value), ['A:old', 'B:old', 'C:old']);
  for (const id of ['A', 'B', 'C']) assertSeen(probe, id, READ_CALLBACKS);
  assertAllInCallersContext(probe);
});

test('external tracker: op, invoked, latency, error, consistency (and its check), createEvent run in the caller\'s context', async () => {
  const probe = makeProbe(als);
  const stages = { A: 'shadow', B: 'live', C: 'shadow' };
  const { migrator, events } = build(probe, {
    client: { stageOf: (id) => stages[id], trackerFor: () => true, variationDelay: (id) => ({ A: 2, B: 10, C: 6 })[id] },
    readOld: delayed(probe, 'read:old', 'old', { A: 25, B: 5, C: 12 }),
    readNew: origin(probe, 'read:new', async (id) => {
      await sleep({ A: 8, B: 20, C: 3 }[id]);
      if (id === 'B') throw new Error('B new failed');
      return `${id}:new`;
    }),
  });
  const results = await readAll(migrator, ['A', 'B', 'C']);
  assert.equal(results[0].value, 'A:old');
  assert.equal(results[1].success, false);
  assert.equal(results[2].value, 'C:old');
  assert.deepEqual(events.map((e) => e.trackerEventOf).sort(), ['A', 'B', 'C'], 'trackMigrationOp receives createEvent()');
  const common = ['migrationVariation', 'read:old', 'read:new', 'tracker.op', 'tracker.invoked', 'tracker.latency', 'tracker.createEvent', 'trackMigrationOp'];
  assertSeen(probe, 'A', [...common, 'tracker.consistency', 'comparison']);
  assertSeen(probe, 'B', [...common, 'tracker.error']);
  assertSeen(probe, 'C', [...common, 'tracker.consistency', 'comparison']);
  assertAllInCallersContext(probe);
});

test('logger: a throwing comparison is logged at error level in the caller\'s context', async () => {
  const probe = makeProbe(als);
  const { migrator, log } = build(probe, {
    readOld: delayed(probe, 'read:old', 'old', { A: 20, B: 5, C: 10 }),
    readNew: delayed(probe, 'read:new', 'new', { A: 5, B: 15, C: 25 }),
    comparison: recordingComparison(probe, (id) => {
      throw new Error(`comparison of ${id} broke`);
    }),
  });
  const results = await readAll(migrator, ['A', 'B', 'C']);
  assert.deepEqual(results.map((r) => r.success), [true, true, true], 'a throwing comparison never fails the read');
  for (const id of ['A', 'B', 'C']) {
    assert.ok(log.has('error', `comparison of ${id} broke`), JSON.stringify(log.calls));
    assertSeen(probe, id, [...READ_CALLBACKS, 'log.error']);
  }
  assertAllInCallersContext(probe);
});

// ---------- writes ----------

test('interleaving writes: both origins and trackMigrationOp run in each caller\'s context', async () => {
  const probe = makeProbe(als);
  const stages = { A: 'dualwrite', B: 'live', C: 'shadow', D: 'rampdown' };
  const { migrator, events } = build(probe, {
    client: { stageOf: (id) => stages[id], variationDelay: (id) => ({ A: 10, B: 2, C: 6, D: 0 })[id] },
    writeOld: delayed(probe, 'write:old', 'old-written', { A: 25, B: 5, C: 10, D: 15 }),
    writeNew: delayed(probe, 'write:new', 'new-written', { A: 5, B: 20, C: 15, D: 3 }),
  });
  const results = await writeAll(migrator, ['A', 'B', 'C', 'D']);
  assert.deepEqual(
    results.map((w) => [w.authoritative.value, w.nonAuthoritative?.value]),
    [
      ['A:old-written', 'A:new-written'],
      ['B:new-written', 'B:old-written'],
      ['C:old-written', 'C:new-written'],
      ['D:new-written', 'D:old-written'],
    ],
  );
  assert.equal(events.length, 4);
  for (const id of ['A', 'B', 'C', 'D']) assertSeen(probe, id, ['migrationVariation', 'write:old', 'write:new', 'trackMigrationOp']);
  assertAllInCallersContext(probe);
});

// ---------- origin timeout ----------

test('originTimeout: after a slow origin times out, the tracker and trackMigrationOp run in the caller\'s context; stats count it', async () => {
  const probe = makeProbe(als);
  const { migrator, events } = build(probe, {
    originTimeout: 40,
    client: { stageOf: () => 'shadow', trackerFor: (id) => id === 'B' },
    readOld: delayed(probe, 'read:old', 'old', { A: 5, B: 25, C: 15, D: 10 }),
    readNew: origin(probe, 'read:new', (id, signal) => abortableSleep(1000, signal).then(() => `${id}:new`)),
  });
  const start = (id) => als.run(id, () => migrator.read(`flag-${id}`, ctxOf(id), 'off', id));
  // A, B and C start together; D starts while their timeouts are pending
  const pending = [start('A'), start('B'), start('C')];
  await sleep(20);
  pending.push(start('D'));
  const results = await Promise.all(pending);
  assert.deepEqual(results.map((r) => r.value), ['A:old', 'B:old', 'C:old', 'D:old']);
  assert.equal(events.length, 4);
  const s = migrator.stats().read;
  assert.equal(s.count, 4);
  assert.equal(s.new.timeouts, 4);
  assert.equal(s.new.errors, 4);
  for (const id of ['A', 'B', 'C', 'D']) assertSeen(probe, id, ['migrationVariation', 'read:old', 'read:new', 'trackMigrationOp']);
  assertSeen(probe, 'B', ['tracker.error', 'tracker.latency', 'tracker.createEvent']);
  assertAllInCallersContext(probe);
});

// ---------- abort ----------

test('a write aborted by its caller: the cancel warning and trackMigrationOp run in the caller\'s context', async () => {
  const probe = makeProbe(als);
  const ids = ['A', 'B', 'C'];
  const abortAt = { A: 45, B: 30, C: 60 };
  const newSignals = {};
  const runs = ids.map((id) => {
    // one migrator (and logger) per operation: the warning line names no flag
    const { migrator, events, log } = build(probe, {
      ownerId: id,
      client: { stageOf: () => 'dualwrite', trackerFor: (x) => x === 'C' },
      writeOld: delayed(probe, 'write:old', 'old-written', { A: 5, B: 15, C: 10 }),
      writeNew: origin(probe, 'write:new', (x, signal) => {
        newSignals[x] = signal;
        return abortableSleep(1000, signal);
      }),
    });
    const ac = new AbortController();
    const reason = new Error(`abort ${id}`);
    // the abort comes from somewhere else entirely
    setTimeout(() => als.run('aborter', () => ac.abort(reason)), abortAt[id]);
    const promise = als.run(id, () => migrator.write(`flag-${id}`, ctxOf(id), 'off', id, { signal: ac.signal }));
    // handled at once: the operations reject at different times
    const outcome = promise.then((w) => ({ resolved: w }), (error) => ({ error }));
    return { id, outcome, reason, events, log };
  });
  for (const run of runs) {
    const outcome = await run.outcome;
    assert.ok(outcome.error === run.reason, `write ${run.id} rejects with its abort reason (got ${JSON.stringify(outcome)})`);
  }
  for (const run of runs) {
    assert.ok(run.log.has('warn', 'Migration write was cancelled before completion'), JSON.stringify(run.log.calls));
    assert.equal(run.events.length, 1, `the event of the completed origin of ${run.id} is sent`);
    assert.equal(newSignals[run.id].aborted, true);
    assertSeen(probe, run.id, ['migrationVariation', 'write:old', 'write:new', 'log.warn', 'trackMigrationOp']);
  }
  assertSeen(probe, 'C', ['tracker.invoked', 'tracker.createEvent']);
  assertAllInCallersContext(probe);
});

// ---------- nesting ----------

test('nested: an origin runs another migrator\'s read in als.run(inner); each operation keeps its own context', async () => {
  const probe = makeProbe(als);
  const stages = { A: 'shadow', B: 'live', 'inner-A': 'shadow', 'inner-B': 'live' };
  const { client, events } = makeClient(probe, { stageOf: (id) => stages[id], trackerFor: (id) => id === 'inner-B' });
  const inner = build(probe, {
    sharedClient: client,
    readOld: delayed(probe, 'read:old', 'old', { 'inner-A': 15, 'inner-B': 5 }),
    readNew: delayed(probe, 'read:new', 'new', { 'inner-A': 5, 'inner-B': 20 }),
  }).migrator;
  const innerResults = {};
  const outer = build(probe, {
    sharedClient: client,
    order: 'serial',
    // the outer old origin does a whole read of the inner migrator in another context
    readOld: origin(probe, 'read:old', async (id) => {
      await sleep({ A: 5, B: 12 }[id]);
      const innerId = `inner-${id}`;
      innerResults[id] = await als.run(innerId, () => inner.read(`flag-${innerId}`, ctxOf(innerId), 'off', innerId));
      probe.note(id, 'read:old:after-inner');
      return `${id}:old`;
    }),
    readNew: delayed(probe, 'read:new', 'new', { A: 10, B: 3 }),
  }).migrator;
  const results = await readAll(outer, ['A', 'B']);
  assert.deepEqual(results.map((r) => r.value), ['A:old', 'B:new']);
  assert.equal(innerResults.A.value, 'inner-A:old');
  assert.equal(innerResults.B.value, 'inner-B:new');
  assert.equal(events.length, 4);
  for (const id of ['A', 'B']) assertSeen(probe, id, [...READ_CALLBACKS, 'read:old:after-inner']);
  for (const id of ['inner-A', 'inner-B']) assertSeen(probe, id, READ_CALLBACKS);
  assertSeen(probe, 'inner-B', ['tracker.op', 'tracker.consistency', 'tracker.createEvent']);
  assertAllInCallersContext(probe);
});
