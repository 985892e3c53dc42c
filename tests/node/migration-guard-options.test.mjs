// guard()'s options, Migrator#guard(flagKey) and stats().guard (issue 30, API.md §1
// "Guardrails"): every option checked when guard() is called (RangeError or TypeError naming it
// and what it got), unknown names as everywhere; guard(flagKey)'s answer for keys never seen; the
// shape of stats().guard, what resetStats() does to it, and the table of at most 100 flag keys,
// the least recently used dropped first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MigratorBuilder, createMigration, fixedStage } from 'cutover';
import { guardSetup, trip } from './helpers/guard.mjs';

const builder = () => new MigratorBuilder(fixedStage('live')).read(() => 1, () => 1).write(() => 1, () => 1);
const P = 'MigratorBuilder#guard: ';

const RANGE = [
  [{ maxErrorRate: 0 }, 'maxErrorRate must be a number greater than 0 and at most 1, got 0'],
  [{ maxErrorRate: 2 }, 'maxErrorRate must be a number greater than 0 and at most 1, got 2'],
  [{ maxErrorRate: NaN }, 'maxErrorRate must be a number greater than 0 and at most 1, got NaN'],
  [{ maxConsecutiveErrors: 0 }, 'maxConsecutiveErrors must be a positive integer, got 0'],
  [{ maxConsecutiveErrors: 1.5 }, 'maxConsecutiveErrors must be a positive integer, got 1.5'],
  [{ maxConsecutiveErrors: Infinity }, 'maxConsecutiveErrors must be a positive integer, got Infinity'],
  [{ maxLatencyRatio: 1 }, 'maxLatencyRatio must be a finite number greater than 1, got 1'],
  [{ maxLatencyRatio: Infinity }, 'maxLatencyRatio must be a finite number greater than 1, got Infinity'],
  [{ maxInconsistency: -0.1 }, 'maxInconsistency must be a number greater than 0 and at most 1, got -0.1'],
  [{ maxInconsistency: 1.01 }, 'maxInconsistency must be a number greater than 0 and at most 1, got 1.01'],
  [{ windowMs: 0 }, 'windowMs must be a positive, finite number of milliseconds, got 0'],
  [{ windowMs: Infinity }, 'windowMs must be a positive, finite number of milliseconds, got Infinity'],
  [{ minCalls: -1 }, 'minCalls must be a positive integer, got -1'],
  [{ minCalls: 2 ** 32 }, 'minCalls must be a positive integer, got 4294967296'],
  [{ cooldownMs: -5 }, 'cooldownMs must be a positive, finite number of milliseconds, got -5'],
  [{ cooldownMs: NaN }, 'cooldownMs must be a positive, finite number of milliseconds, got NaN'],
  [{ probeRatio: 0.5 }, 'probeRatio must be a positive integer, got 0.5'],
];

test('each option out of its range: a RangeError naming it and what it got', () => {
  for (const [options, message] of RANGE) {
    assert.throws(() => builder().guard(options), { name: 'RangeError', message: P + message }, JSON.stringify(options));
  }
});

test('each option of the wrong type: a TypeError naming it', () => {
  const numbers = ['maxErrorRate', 'maxConsecutiveErrors', 'maxLatencyRatio', 'maxInconsistency', 'windowMs', 'minCalls', 'cooldownMs', 'probeRatio'];
  for (const name of numbers) {
    for (const value of ['5', null, true, 5n, {}]) {
      assert.throws(
        () => builder().guard({ [name]: value }),
        (e) => e instanceof TypeError && e.message.startsWith(`${P}${name} must be a number, got `),
        `${name}: ${typeof value}`,
      );
    }
  }
  for (const value of [5, 'fn', null, {}]) {
    assert.throws(
      () => builder().guard({ onChange: value }),
      (e) => e instanceof TypeError && e.message.startsWith(`${P}onChange must be a function, got `),
      String(value),
    );
  }
});

test('options that are not an object, and unknown names', () => {
  assert.throws(() => builder().guard(null), { name: 'TypeError', message: `${P}options must be an object, got null` });
  assert.throws(() => builder().guard(5), { name: 'TypeError', message: `${P}options must be an object, got number 5` });
  assert.throws(() => builder().guard('fast'), { name: 'TypeError', message: /^MigratorBuilder#guard: options must be an object, got string/ });
  assert.throws(() => builder().guard({ maxErorRate: 0.5 }), {
    name: 'TypeError',
    message: 'maxErorRate is not an option of MigratorBuilder#guard; did you mean maxErrorRate?',
  });
  assert.throws(() => builder().guard({ cooldown: 5 }), { name: 'TypeError', message: /^cooldown is not an option of MigratorBuilder#guard/ });
});

test('valid options at their bounds are accepted and return the builder; explicit undefined is the default', async () => {
  const b = builder();
  assert.equal(b.guard(), b);
  assert.equal(b.guard(undefined), b);
  assert.equal(b.guard({ maxErrorRate: undefined, onChange: undefined }), b);
  const edges = { maxErrorRate: 1, maxConsecutiveErrors: 1, maxLatencyRatio: 1.001, maxInconsistency: 1, windowMs: 1, minCalls: 1, cooldownMs: 0.5, probeRatio: 1, onChange() {} };
  assert.equal(b.guard(edges), b);
  const m = b.build();
  assert.equal((await m.read('f', { key: 'u' }, 'off')).value, 1);
});

test('createMigration’s guard option: true, false, options; anything else refused', () => {
  const ld = { migrationVariation: async () => ({ value: 'live' }), trackMigration() {} };
  const ok = async () => ({ success: true, result: 1 });
  const config = (guard) => ({ readOld: ok, readNew: ok, writeOld: ok, writeNew: ok, guard });
  for (const guard of [true, false, undefined, {}, { maxConsecutiveErrors: 3 }]) {
    const migration = createMigration(ld, config(guard));
    assert.equal(migration.guard('k').state, 'closed');
    assert.equal(migration.stats().guard === null, guard === false || guard === undefined, `stats().guard with guard: ${guard}`);
  }
  assert.throws(() => createMigration(ld, config(5)), { name: 'TypeError', message: 'createMigration: options.guard must be true, false or guard options, got number 5' });
  assert.throws(() => createMigration(ld, config({ maxErrorRate: 0 })), { name: 'RangeError', message: `${P}maxErrorRate must be a number greater than 0 and at most 1, got 0` });
  assert.throws(() => createMigration(ld, config({ minCals: 5 })), { name: 'TypeError', message: /^minCals is not an option of MigratorBuilder#guard; did you mean minCalls\?/ });
});

test('Migrator#guard(flagKey): closed for a key never seen (and without guard()); a non-string is a TypeError', () => {
  const built = Date.now();
  const m = builder().guard().build();
  const unseen = m.guard('never-seen');
  assert.deepEqual(Object.keys(unseen).sort(), ['reason', 'since', 'state']);
  assert.deepEqual([unseen.state, unseen.reason], ['closed', null]);
  assert.ok(unseen.since >= built - 1 && unseen.since <= Date.now(), `since ${unseen.since}`);
  assert.deepEqual(m.guard(''), m.guard('never-seen'));
  assert.deepEqual(m.stats().guard.flags, {}, 'asking does not add a key');
  for (const key of [undefined, null, 5, {}, Symbol('k')]) {
    assert.throws(() => m.guard(key), (e) => e instanceof TypeError && e.message.startsWith('Migrator#guard: flagKey must be a string, got '), String(key));
  }
  const plain = builder().build();
  assert.equal(plain.guard('any').state, 'closed');
  assert.equal(plain.guard('any').reason, null);
  assert.equal(plain.stats().guard, null, 'stats().guard is null without guard()');
});

test('stats().guard: its shape, a fresh object each time; resetStats() zeroes the counts, the states stay', async () => {
  const g = guardSetup({ guard: { maxConsecutiveErrors: 2 } });
  assert.deepEqual(g.migrator.stats().guard, { trips: 0, recoveries: 0, fallbacks: { read: 0, write: 0 }, flags: {} });
  await trip(g, 2);
  await g.reads(3);
  await g.run('write');
  const s = g.migrator.stats().guard;
  const since = g.migrator.guard(g.flag).since;
  assert.deepEqual(s, {
    trips: 1,
    recoveries: 0,
    fallbacks: { read: 3, write: 1 },
    flags: { guarded: { state: 'tripped', since, reason: '2 consecutive errors' } },
  });
  s.flags.guarded.state = 'closed';
  s.fallbacks.read = 99;
  assert.equal(g.migrator.stats().guard.flags.guarded.state, 'tripped', 'a fresh object');
  assert.equal(g.migrator.stats().guard.fallbacks.read, 3);
  g.migrator.resetStats();
  assert.deepEqual(g.migrator.stats().guard, {
    trips: 0,
    recoveries: 0,
    fallbacks: { read: 0, write: 0 },
    flags: { guarded: { state: 'tripped', since, reason: '2 consecutive errors' } },
  });
  assert.deepEqual((await g.run('read')).called, ['old'], 'still tripped after resetStats()');
});

test('at most 100 flag keys, the least recently used dropped first; a dropped key starts closed again', async () => {
  const g = guardSetup({ guard: { maxConsecutiveErrors: 1 } });
  await trip(g, 1, 'hot');
  await trip(g, 1, 'cold');
  for (let i = 0; i < 150; i++) {
    await g.migrator.read(`k${i}`, { key: 'u' }, 'off');
    if (i % 20 === 0) await g.migrator.read('hot', { key: 'u' }, 'off');
  }
  const flags = g.migrator.stats().guard.flags;
  const keys = Object.keys(flags);
  assert.equal(keys.length, 100);
  assert.equal(flags.hot?.state, 'tripped', 'a key used recently is kept');
  assert.ok(!('cold' in flags), 'the least recently used tripped key was dropped');
  assert.equal(g.state('cold'), 'closed', 'a dropped key is closed again');
  const expected = ['hot', ...Array.from({ length: 99 }, (_, i) => `k${i + 51}`)];
  assert.deepEqual(keys.sort(), expected.sort());
  assert.deepEqual((await g.run('read', 'cold')).called, ['new', 'old'], 'the dropped key runs as staged');
  assert.deepEqual((await g.run('read', 'hot')).called, ['old']);
  assert.equal(Object.keys(g.migrator.stats().guard.flags).length, 100);
  assert.ok(!('k51' in g.migrator.stats().guard.flags), 'cold came back in place of the least recent key');
});
