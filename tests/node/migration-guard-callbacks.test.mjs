// guard()'s onChange (issue 30, API.md §1 "Guardrails", §3 "Re-entrancy"): the change it gets,
// in the async context of the operation that caused it; one that throws is logged at error level
// and breaks nothing; one that calls back into the migrator (guard(), stats(), a read) works; its
// return value is not awaited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { MigratorBuilder } from 'cutover';
import { guardSetup, makeClient, makeLogger, sleep, trip } from './helpers/guard.mjs';
import { makeGates, turns, watch } from './helpers/background.mjs';

const als = new AsyncLocalStorage();

test('onChange gets { flagKey, from, to, reason, at, window } once per change, after the state changed', async () => {
  const seen = [];
  const g = guardSetup({ guard: { maxConsecutiveErrors: 2 }, onChange: (c) => seen.push({ c, now: g.migrator.guard(c.flagKey) }) });
  const before = Date.now();
  await trip(g, 2);
  assert.equal(seen.length, 1);
  const { c, now } = seen[0];
  assert.deepEqual(Object.keys(c).sort(), ['at', 'flagKey', 'from', 'reason', 'to', 'window']);
  assert.deepEqual(
    { ...c, at: 0 },
    {
      flagKey: 'guarded',
      from: 'closed',
      to: 'tripped',
      reason: '2 consecutive errors',
      at: 0,
      window: { newCalls: 2, newErrors: 2, oldP99: null, newP99: null, checked: 0, inconsistent: 0 },
    },
  );
  assert.ok(c.at >= before && c.at <= Date.now());
  assert.deepEqual(now, { state: 'tripped', since: c.at, reason: c.reason }, 'guard() inside onChange shows the new state');
});

test('onChange runs in the async context of the operation that caused the change', async () => {
  const seen = [];
  const reads = makeGates();
  const migrator = new MigratorBuilder(makeClient('live').client, { logger: makeLogger().logger })
    .guard({ maxConsecutiveErrors: 3, cooldownMs: 30, onChange: (c) => seen.push([c.to, als.getStore()]) })
    .read(reads.origin('old'), reads.origin('new'))
    .write(() => 'o', () => 'n')
    .build();
  const ops = ['a', 'b', 'c'].map((id) => watch(als.run(id, () => migrator.read('ctx', { key: id }, 'off'))));
  await turns();
  for (let i = 0; i < 3; i++) reads.resolve('old');
  // The failures end in the order b, c, a: the third (a's) trips the guard.
  const newCalls = reads.calls.filter((c) => c.name === 'new');
  for (const i of [1, 2, 0]) {
    newCalls[i].settled = true;
    newCalls[i].d.reject(new Error(`new down ${i}`));
    await turns();
  }
  await Promise.all(ops.map((o) => o.done));
  assert.deepEqual(seen, [['tripped', 'a']]);
  await sleep(40);
  const d = watch(als.run('d', () => migrator.read('ctx', { key: 'd' }, 'off')));
  await turns();
  assert.deepEqual(seen[1], ['probing', 'd'], 'the first operation after the cooldown turns it to probing');
  reads.resolve('old');
  reads.resolve('new');
  await d.done;
});

test('an onChange that throws is logged at error level; the operation and the change stand', async () => {
  for (const thrown of [new Error('listener exploded'), 'a string']) {
    const g = guardSetup({
      guard: { maxConsecutiveErrors: 2 },
      onChange: () => {
        throw thrown;
      },
    });
    g.health.read = 'throw';
    const results = await g.reads(2);
    assert.deepEqual([results[1].origin, results[1].success], ['new', false], 'the read that tripped it got its result');
    assert.equal(g.state(), 'tripped');
    const errors = g.log.texts('error');
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.ok(errors[0].startsWith('guard: onChange threw: '), errors[0]);
    assert.ok(errors[0].includes(thrown instanceof Error ? 'listener exploded' : 'a string'), errors[0]);
    assert.deepEqual(g.log.texts('warn'), ['migration guard of flag "guarded": closed -> tripped: 2 consecutive errors']);
    const after = await g.run('read');
    assert.deepEqual([after.called, after.result.value], [['old'], 'old-value']);
  }
});

test('a re-entrant onChange: guard(), stats() and a read() started from it work', async () => {
  const inside = [];
  const started = [];
  const g = guardSetup({
    guard: { maxConsecutiveErrors: 2, cooldownMs: 30, minCalls: 2, probeRatio: 1 },
    onChange: (c) => {
      const stats = g.migrator.stats();
      inside.push({ to: c.to, state: g.migrator.guard(c.flagKey).state, trips: stats.guard.trips, flag: stats.guard.flags[c.flagKey]?.state });
      started.push(g.migrator.read(c.flagKey, { key: 'from-onChange' }, 'off'));
    },
  });
  g.health.read = 'throw';
  await g.reads(2);
  assert.equal(started.length, 1);
  const nested = await started[0];
  assert.deepEqual([nested.origin, nested.value], ['old', 'old-value'], 'the read started in onChange runs as tripped');
  g.health.read = 'ok';
  await sleep(40);
  await g.reads(1); // → probing (onChange starts a probe read too)
  await Promise.all(started);
  await g.reads(1);
  await Promise.all(started);
  assert.deepEqual(
    inside.map(({ to, state, trips, flag }) => [to, state, trips, flag]),
    [
      ['tripped', 'tripped', 1, 'tripped'],
      ['probing', 'probing', 1, 'probing'],
      ['closed', 'closed', 1, 'closed'],
    ],
  );
  assert.equal(g.log.texts('error').length, 0, g.log.texts('error').join('\n'));
});

test('onChange’s return value is not awaited: a promise that never settles holds nothing up', async () => {
  const g = guardSetup({ guard: { maxConsecutiveErrors: 1 }, onChange: () => new Promise(() => {}) });
  g.health.read = 'throw';
  const r = await g.reads(1);
  assert.equal(r[0].success, false);
  assert.equal(g.state(), 'tripped');
  assert.equal((await g.run('read')).result.value, 'old-value');
});

test('onChange is optional; guard() with no options keeps working with the defaults', async () => {
  const g = guardSetup({ guard: undefined, onChange: false });
  await trip(g, 10);
  assert.equal(g.changes.length, 0);
  assert.equal(g.log.texts('warn').length, 1, 'the change is still logged');
});
