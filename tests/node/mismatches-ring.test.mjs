// mismatches(), what is kept (issue 22; API.md §1 "Differences"): the last `keep` mismatches
// (default 20, `keep: 0` none), oldest first, as a fresh array; each with the flag key, stage,
// the caller's very context object, `at`, and the compared values by reference. Nothing is
// explained for a consistent check, for a check that did not run, or without mismatches().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mmSetup, counted } from './helpers/mismatches.mjs';

test('a mismatch carries flagKey, stage, the caller’s context object, at, and the values by reference', async () => {
  const { migrator, read } = mmSetup({ mismatches: true });
  const context = { kind: 'user', key: 'ctx-1', name: 'Ada', extra: { deep: [1] } };
  const oldValue = { id: 1, v: 'a' };
  const newValue = { id: 1, v: 'b' };
  const before = Date.now();
  await read(oldValue, newValue, context, 'flag-a');
  const after = Date.now();
  const [m] = migrator.mismatches();
  assert.equal(m.flagKey, 'flag-a');
  assert.equal(m.stage, 'shadow');
  assert.equal(m.context, context, 'context is the caller’s own object');
  assert.equal(m.old, oldValue, 'old is the old origin’s value itself');
  assert.equal(m.new, newValue, 'new is the new origin’s value itself');
  assert.equal(typeof m.at, 'number');
  assert.ok(m.at >= before - 1 && m.at <= after + 1, `at ${m.at} within [${before}, ${after}]`);
  assert.equal(typeof m.truncated, 'boolean');
  assert.ok(Array.isArray(m.differences));
  assert.deepEqual(
    Object.keys(m).sort(),
    ['at', 'context', 'differences', 'flagKey', 'new', 'old', 'stage', 'truncated'],
  );
  // The values were not copied: a later change to them shows through the kept mismatch.
  oldValue.v = 'changed later';
  assert.equal(migrator.mismatches()[0].old.v, 'changed later');
});

test('primitive values and a multi-kind context are kept as they are', async () => {
  const { migrator, read } = mmSetup({ mismatches: true });
  const context = { kind: 'multi', user: { key: 'u' }, org: { key: 'o' } };
  await read('old-string', 42, context);
  const [m] = migrator.mismatches();
  assert.equal(m.old, 'old-string');
  assert.equal(m.new, 42);
  assert.equal(m.context, context);
});

test('keep: the last N, oldest first', async () => {
  const { migrator, read } = mmSetup({ mismatches: { keep: 3 } });
  const values = [];
  for (let i = 0; i < 7; i++) {
    const pair = [{ i }, { i: -i - 1 }];
    values.push(pair);
    await read(...pair, { kind: 'user', key: `u${i}` });
  }
  const kept = migrator.mismatches();
  assert.equal(kept.length, 3);
  assert.deepEqual(kept.map((m) => m.context.key), ['u4', 'u5', 'u6']);
  for (const [j, m] of kept.entries()) {
    assert.equal(m.old, values[4 + j][0]);
    assert.equal(m.new, values[4 + j][1]);
  }
  assert.ok(kept[0].at <= kept[1].at && kept[1].at <= kept[2].at, 'at does not go backwards');
});

test('keep defaults to 20', async () => {
  const { migrator, read } = mmSetup({ mismatches: true });
  for (let i = 0; i < 25; i++) await read({ i }, { i: 'x' }, { kind: 'user', key: `u${i}` });
  const kept = migrator.mismatches();
  assert.equal(kept.length, 20);
  assert.equal(kept[0].context.key, 'u5');
  assert.equal(kept[19].context.key, 'u24');
});

test('keep: 1000 keeps a thousand', async () => {
  const { migrator, read } = mmSetup({ mismatches: { keep: 1000 } });
  for (let i = 0; i < 1005; i++) await read(i, -1);
  const kept = migrator.mismatches();
  assert.equal(kept.length, 1000);
  assert.equal(kept[0].old, 5);
  assert.equal(kept[999].old, 1004);
});

test('keep: 0 keeps none, but the paths are still counted and onMismatch still called', async () => {
  const told = [];
  const { migrator, read } = mmSetup({ mismatches: { keep: 0, onMismatch: (m) => told.push(m) } });
  await read({ a: 1 }, { a: 2 });
  await read({ a: 1 }, { a: 3 });
  assert.deepEqual(migrator.mismatches(), []);
  assert.deepEqual(migrator.stats().read.consistency.paths, { '/a': 2 });
  assert.equal(told.length, 2);
  assert.deepEqual(told[0].differences.map((d) => d.path), ['/a']);
});

test('mismatches() returns a fresh array each time', async () => {
  const { migrator, read } = mmSetup({ mismatches: true });
  await read(1, 2);
  const a = migrator.mismatches();
  const b = migrator.mismatches();
  assert.notEqual(a, b);
  assert.ok(Array.isArray(a));
  a.push('junk');
  a.length = 0;
  assert.equal(migrator.mismatches().length, 1, 'changing a returned array changes nothing kept');
});

test('resetStats() clears the paths table; the kept mismatches stay', async () => {
  const { migrator, read } = mmSetup({ mismatches: true });
  await read({ a: 1 }, { a: 2 });
  migrator.resetStats();
  assert.deepEqual(migrator.stats().read.consistency.paths, {});
  assert.equal(migrator.mismatches().length, 1);
});

test('nothing is explained for consistent checks: the values are not even walked', async () => {
  const a = counted(1);
  const b = counted(1);
  const { migrator, read } = mmSetup({ comparison: () => true, mismatches: true });
  await read(a.o, b.o);
  assert.deepEqual(migrator.mismatches(), []);
  assert.deepEqual(migrator.stats().read.consistency.paths, {});
  assert.equal(a.reads.n + b.reads.n, 0, 'no property of either value was read');
});

test('without mismatches(), a mismatch is not explained: the values are not walked, nothing is kept', async () => {
  const a = counted(1);
  const b = counted(2);
  const { migrator, read } = mmSetup({ comparison: () => false });
  await read(a.o, b.o);
  assert.equal(migrator.stats().read.consistency.checked, 1);
  assert.equal(migrator.stats().read.consistency.consistent, 0);
  assert.equal(a.reads.n + b.reads.n, 0, 'no property of either value was read');
  assert.deepEqual(migrator.mismatches(), []);
  assert.deepEqual(migrator.stats().read.consistency.paths, {});
  assert.deepEqual(migrator.stats().write.consistency.paths, {});

  // With mismatches() the same check is walked (so the count above means something).
  const w = mmSetup({ comparison: () => false, mismatches: true });
  await w.read(a.o, b.o);
  assert.ok(a.reads.n + b.reads.n > 0, 'the walk read the values');
  assert.deepEqual(w.migrator.mismatches()[0].differences.map((d) => [d.path, d.kind]), [['/key', 'changed']]);
});

test('no explanation when no check ran: one origin, a failed origin, checkRatio 0, no comparison', async () => {
  for (const stage of ['off', 'dualwrite', 'rampdown', 'complete']) {
    const { migrator, read } = mmSetup({ stage, mismatches: true });
    await read(1, 2);
    assert.deepEqual(migrator.mismatches(), [], stage);
  }
  const failing = mmSetup({
    mismatches: true,
    readNew: () => {
      throw new Error('new down');
    },
  });
  await failing.read(1, 2);
  assert.deepEqual(failing.migrator.mismatches(), [], 'a failed origin: no check');
  const unsampled = mmSetup({ evaluation: { value: 'shadow', checkRatio: 0 }, mismatches: true });
  await unsampled.read(1, 2);
  assert.deepEqual(unsampled.migrator.mismatches(), [], 'checkRatio 0: no check');
  const none = mmSetup({ comparison: null, mismatches: true });
  await none.read(1, 2);
  assert.deepEqual(none.migrator.mismatches(), [], 'no comparison: no check');
});

test('a throwing comparison is no mismatch: nothing explained, the read still succeeds', async () => {
  const { migrator, read } = mmSetup({
    comparison: () => {
      throw new Error('cmp broke');
    },
    mismatches: true,
  });
  const r = await read({ a: 1 }, { a: 2 });
  assert.equal(r.success, true);
  assert.deepEqual(migrator.mismatches(), []);
  assert.deepEqual(migrator.stats().read.consistency.paths, {});
});

test('a migrator without mismatches() still has mismatches(), answering []', async () => {
  const { migrator, read } = mmSetup({});
  assert.deepEqual(migrator.mismatches(), []);
  await read(1, 2);
  assert.deepEqual(migrator.mismatches(), []);
});
