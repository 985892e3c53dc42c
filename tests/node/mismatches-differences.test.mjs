// mismatches(), what a mismatch says (issue 22; API.md §1 "Differences"): a consistency check
// whose comparison returned false — a user function or sameStructure() — is explained by the
// structural walk: JSON Pointer paths (`~0`, `~1`), kinds changed/added/removed/type with the two
// sides by reference, document order (the old value's keys, then the keys only the new one has;
// indices ascending, depth first), at most maxDifferences with `truncated`, and sameStructure's
// own `ignore` used for its explanation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sameStructure } from 'cutover';
import { assertSides, mmSetup, pathsAndKinds } from './helpers/mismatches.mjs';

/** Reads once with (oldValue, newValue) and returns the one mismatch it made. */
async function explain(oldValue, newValue, opts = {}) {
  const { migrator, read } = mmSetup({ mismatches: opts.mismatches ?? { maxDifferences: 100 }, ...opts });
  const r = await read(oldValue, newValue);
  assert.equal(r.success, true);
  const kept = migrator.mismatches();
  assert.equal(kept.length, 1, 'one mismatch kept');
  return kept[0];
}

test('a changed value at a nested key: path, kind, and both sides by reference', async () => {
  const m = await explain({ user: { name: 'Ada', age: 36 } }, { user: { name: 'Ada', age: 37 } });
  assert.deepEqual(pathsAndKinds(m), [['/user/age', 'changed']]);
  assertSides(m.differences[0], 36, 37);
  assert.equal(m.truncated, false);
});

test('added and removed keys: the side that is there, the other absent', async () => {
  const extra = { deep: true };
  const gone = ['x'];
  const m = await explain({ a: 1, gone }, { a: 1, extra });
  assert.deepEqual(pathsAndKinds(m), [
    ['/gone', 'removed'],
    ['/extra', 'added'],
  ]);
  assertSides(m.differences[0], gone, undefined);
  assertSides(m.differences[1], undefined, extra);
  assert.equal(m.differences[0].old, gone, 'the removed value is the caller’s own array');
  assert.equal(m.differences[1].new, extra, 'the added value is the caller’s own object');
});

test('type differences: values of different kinds, at a key and at the root', async () => {
  const arr = [];
  const obj = {};
  const m = await explain(
    { n: 1, s: '1', nul: null, und: undefined, o: obj, b: true },
    { n: '1', s: 1, nul: undefined, und: null, o: arr, b: 1 },
  );
  assert.deepEqual(pathsAndKinds(m), [
    ['/n', 'type'],
    ['/s', 'type'],
    ['/nul', 'type'],
    ['/und', 'type'],
    ['/o', 'type'],
    ['/b', 'type'],
  ]);
  assertSides(m.differences[4], obj, arr);
  assertSides(m.differences[0], 1, '1');

  const root = await explain(5, 'five');
  assert.deepEqual(pathsAndKinds(root), [['', 'type']], "the root's path is ''");
  assertSides(root.differences[0], 5, 'five');
});

test('changed primitives, Dates by time, other objects by identity', async () => {
  const d1 = new Date(1000);
  const d2 = new Date(2000);
  const f1 = () => 1;
  const f2 = () => 1;
  class Thing {
    constructor() {
      this.v = 1;
    }
  }
  const t1 = new Thing();
  const t2 = new Thing();
  const m = await explain(
    { s: 'a', n: 1, b: true, d: d1, f: f1, t: t1, same: new Date(5), m: new Map() },
    { s: 'b', n: 2, b: false, d: d2, f: f2, t: t2, same: new Date(5), m: new Map() },
  );
  assert.deepEqual(pathsAndKinds(m), [
    ['/s', 'changed'],
    ['/n', 'changed'],
    ['/b', 'changed'],
    ['/d', 'changed'],
    ['/f', 'changed'],
    ['/t', 'changed'],
    ['/m', 'changed'],
  ]);
  assertSides(m.differences[3], d1, d2);
  assertSides(m.differences[4], f1, f2);
  assertSides(m.differences[5], t1, t2);
});

test('NaN equals NaN and +0 equals -0 inside an explained mismatch', async () => {
  const m = await explain({ a: NaN, z: 0, x: 1 }, { a: NaN, z: -0, x: 2 });
  assert.deepEqual(pathsAndKinds(m), [['/x', 'changed']]);
});

test('keys with "/" and "~" are escaped as ~1 and ~0; the empty key is "/"', async () => {
  const m = await explain(
    { 'a/b': 1, 'm~n': 1, '~1': 1, '/~': 1, '': 1, nested: { 'x/y': { '~': 1 } } },
    { 'a/b': 2, 'm~n': 2, '~1': 2, '/~': 2, '': 2, nested: { 'x/y': { '~': 2 } } },
  );
  assert.deepEqual(
    m.differences.map((d) => d.path),
    ['/a~1b', '/m~0n', '/~01', '/~1~0', '/', '/nested/x~1y/~0'],
  );
});

test('document order: the old value’s keys in its order, then the keys only the new one has', async () => {
  const m = await explain({ c: 1, a: 1, b: 1, d: 1 }, { e: 1, d: 2, b: 2, f: 1, a: 1 });
  assert.deepEqual(pathsAndKinds(m), [
    ['/c', 'removed'],
    ['/b', 'changed'],
    ['/d', 'changed'],
    ['/e', 'added'],
    ['/f', 'added'],
  ]);
});

test('document order: depth first, array indices ascending, extra elements added or removed', async () => {
  const m = await explain(
    { x: { p: 1, q: [1, 2, 3] }, y: [{ v: 1 }, { v: 2 }, 'tail'], z: 1 },
    { x: { p: 2, q: [1, 9], r: 0 }, y: [{ v: 1 }, { v: 3, w: 0 }], z: 2 },
  );
  assert.deepEqual(pathsAndKinds(m), [
    ['/x/p', 'changed'],
    ['/x/q/1', 'changed'],
    ['/x/q/2', 'removed'],
    ['/x/r', 'added'],
    ['/y/1/v', 'changed'],
    ['/y/1/w', 'added'],
    ['/y/2', 'removed'],
    ['/z', 'changed'],
  ]);
  const longer = await explain([1], [1, 'b', 'c']);
  assert.deepEqual(pathsAndKinds(longer), [
    ['/1', 'added'],
    ['/2', 'added'],
  ]);
  assertSides(longer.differences[1], undefined, 'c');
});

test('maxDifferences: the first ones in document order, truncated when there were more', async () => {
  const old = { a: 1, b: 1, c: 1, d: 1 };
  const neu = { a: 2, b: 2, c: 2, d: 2 };
  const two = await explain(old, neu, { mismatches: { maxDifferences: 2 } });
  assert.deepEqual(two.differences.map((d) => d.path), ['/a', '/b']);
  assert.equal(two.truncated, true);
  const four = await explain(old, neu, { mismatches: { maxDifferences: 4 } });
  assert.deepEqual(four.differences.map((d) => d.path), ['/a', '/b', '/c', '/d']);
  assert.equal(four.truncated, false, 'exactly maxDifferences differences is not truncated');
  const one = await explain(old, neu, { mismatches: { maxDifferences: 1 } });
  assert.deepEqual(one.differences.map((d) => d.path), ['/a']);
  assert.equal(one.truncated, true);
});

test('maxDifferences defaults to 16', async () => {
  const old = {};
  const neu = {};
  for (let i = 0; i < 20; i++) {
    old[`k${i}`] = i;
    neu[`k${i}`] = -i - 1;
  }
  const m = await explain(old, neu, { mismatches: true });
  assert.equal(m.differences.length, 16);
  assert.deepEqual(m.differences.map((d) => d.path), Array.from({ length: 16 }, (_, i) => `/k${i}`));
  assert.equal(m.truncated, true);
});

test('a user comparison that returns false for structurally equal values: differences []', async () => {
  const m = await explain({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] });
  assert.deepEqual(m.differences, []);
  assert.equal(m.truncated, false);
  const same = {};
  const m2 = await explain(same, same);
  assert.deepEqual(m2.differences, [], 'the same reference: nothing to list');
});

test('sameStructure() as the comparison: a mismatch is explained like a user function’s', async () => {
  const { migrator, read } = mmSetup({ comparison: sameStructure(), mismatches: true });
  await read({ items: [{ price: 1 }] }, { items: [{ price: 2 }] });
  await read({ items: [{ price: 1 }] }, { items: [{ price: 1 }] }); // consistent: not a mismatch
  const kept = migrator.mismatches();
  assert.equal(kept.length, 1);
  assert.deepEqual(pathsAndKinds(kept[0]), [['/items/0/price', 'changed']]);
  assert.deepEqual(
    { checked: migrator.stats().read.consistency.checked, consistent: migrator.stats().read.consistency.consistent },
    { checked: 2, consistent: 1 },
  );
});

test('sameStructure({ ignore }): its explanation skips the same patterns (a subtree, and * for one segment)', async () => {
  const ignore = ['/updatedAt', '/items/*/etag', '/meta'];
  const old = { id: 1, updatedAt: 1, meta: { a: 1, b: [1] }, items: [{ etag: 'x', price: 1 }, { etag: 'y', price: 5 }] };
  const neu = { id: 1, updatedAt: 2, meta: { a: 2, c: 0 }, items: [{ etag: 'z', price: 1 }, { etag: 'w', price: 6 }] };
  const { migrator, read } = mmSetup({ comparison: sameStructure({ ignore }), mismatches: true });
  await read(old, neu);
  const [m] = migrator.mismatches();
  assert.deepEqual(pathsAndKinds(m), [['/items/1/price', 'changed']]);
  assertSides(m.differences[0], 5, 6);

  // The same pair under a user function: every difference, nothing ignored.
  const all = await explain(old, neu);
  assert.deepEqual(pathsAndKinds(all), [
    ['/updatedAt', 'changed'],
    ['/meta/a', 'changed'],
    ['/meta/b', 'removed'],
    ['/meta/c', 'added'],
    ['/items/0/etag', 'changed'],
    ['/items/1/etag', 'changed'],
    ['/items/1/price', 'changed'],
  ]);

  // Differences only under ignored paths: consistent, nothing explained.
  const quiet = mmSetup({ comparison: sameStructure({ ignore }), mismatches: true });
  await quiet.read({ updatedAt: 1, items: [{ etag: 'a' }] }, { updatedAt: 2, items: [{ etag: 'b' }] });
  assert.deepEqual(quiet.migrator.mismatches(), []);
  assert.equal(quiet.migrator.stats().read.consistency.consistent, 1);
});

test('sameStructure({ ignore }) with escaped keys in its patterns', async () => {
  const { migrator, read } = mmSetup({ comparison: sameStructure({ ignore: ['/a~1b', '/m~0n/*'] }), mismatches: true });
  await read({ 'a/b': 1, 'm~n': { x: 1 }, k: 1 }, { 'a/b': 2, 'm~n': { x: 2 }, k: 2 });
  assert.deepEqual(pathsAndKinds(migrator.mismatches()[0]), [['/k', 'changed']]);
});

test('at live the comparison and the explanation still see (old, new) in that order', async () => {
  const oldValue = { v: 'o', only: 1 };
  const newValue = { v: 'n' };
  const m = await explain(oldValue, newValue, { stage: 'live' });
  assert.equal(m.stage, 'live');
  assert.equal(m.old, oldValue);
  assert.equal(m.new, newValue);
  assert.deepEqual(pathsAndKinds(m), [
    ['/v', 'changed'],
    ['/only', 'removed'],
  ]);
  assertSides(m.differences[0], 'o', 'n');
});

// A sameStructure comparison explains a mismatch on the tape it compared (one flattening): its
// strings' ids are made canonical only then. Equal strings at different string positions must
// still be equal in the explanation, and different ones different.
test('sameStructure explains on its own tape: equal strings at shifted positions are not differences', async () => {
  const comparison = sameStructure();
  let m = await explain(['t', 't'], [1, 't'], { comparison });
  assert.deepEqual(pathsAndKinds(m), [['/0', 'type']]);
  m = await explain({ a: 'x', b: ['y', 'x'] }, { a: 'x', b: ['x', 'x'] }, { comparison });
  assert.deepEqual(pathsAndKinds(m), [['/b/0', 'changed']]);
  assertSides(m.differences[0], 'y', 'x');
  m = await explain({ n: 1, s: 'same', t: ['p', 'q'] }, { n: 2, s: 'same', t: ['p', 'q'] }, { comparison });
  assert.deepEqual(pathsAndKinds(m), [['/n', 'changed']], 'strings all at their places, a number differs');
});

test('sameStructure with mismatches(): one mismatch after another, each explained on its own tape', async () => {
  const comparison = sameStructure({ ignore: ['/at'] });
  const { migrator, read } = mmSetup({ mismatches: { maxDifferences: 100 }, comparison });
  const pairs = [
    [{ at: 1, v: ['a', 'b'] }, { at: 2, v: ['a', 'c'] }, [['/v/1', 'changed']]],
    [{ at: 1, v: 'same' }, { at: 3, v: 'same' }, null],
    [{ k: 'one', w: 'two' }, { k: 'two', w: 'two' }, [['/k', 'changed']]],
    [['x', 'y', 'x'], ['x', 'x'], [['/1', 'changed'], ['/2', 'removed']]],
  ];
  let expected = 0;
  for (const [oldValue, newValue, differences] of pairs) {
    await read(oldValue, newValue);
    if (differences === null) continue;
    expected++;
    const kept = migrator.mismatches();
    assert.equal(kept.length, expected);
    assert.deepEqual(pathsAndKinds(kept.at(-1)), differences);
  }
});
