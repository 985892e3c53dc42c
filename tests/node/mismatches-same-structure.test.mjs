// sameStructure() called directly, and hostile values through mismatches() (issue 22; API.md §1
// "Differences"): NaN equals NaN, ±0 equal, Dates by time, other objects by identity, key order
// does not matter, cycles are safe; `ignore` patterns with `*` for one segment, covering their
// subtree; values whose getters throw, proxies and 10,000-deep or 10,000-key trees give an answer
// (a boolean) and never fail a read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sameStructure } from 'cutover';
import { mmSetup } from './helpers/mismatches.mjs';

const same = sameStructure();

test('primitives, NaN and ±0', () => {
  assert.equal(same(1, 1), true);
  assert.equal(same(1, 2), false);
  assert.equal(same('a', 'a'), true);
  assert.equal(same('a', 'b'), false);
  assert.equal(same(NaN, NaN), true);
  assert.equal(same(0, -0), true);
  assert.equal(same([-0, { z: 0 }], [0, { z: -0 }]), true);
  assert.equal(same(null, undefined), false);
  assert.equal(same(1, '1'), false);
  assert.equal(same(true, 1), false);
  assert.equal(same(undefined, undefined), true);
  assert.equal(same(1n, 1n), true);
});

test('strings that differ only in lone surrogates are different', () => {
  assert.equal(same('\uD800', '\uDBFF'), false);
  assert.equal(same({ s: 'a\uDC00' }, { s: 'a\uDC01' }), false);
  assert.equal(same({ '\uD800': 1 }, { '\uDBFF': 1 }), false, 'keys too');
  assert.equal(same('é\uD800', 'é\uD800'), true);
});

test('plain objects and arrays by structure; key order does not matter; arrays by index', () => {
  assert.equal(same({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }), true);
  assert.equal(same({ a: 1 }, { a: 1, b: 2 }), false);
  assert.equal(same([1, 2], [2, 1]), false);
  assert.equal(same([1, 2], [1, 2, 3]), false);
  assert.equal(same({}, []), false);
  assert.equal(same(Object.assign(Object.create(null), { a: 1 }), Object.assign(Object.create(null), { a: 1 })), true);
});

test('Dates by time; other objects by identity', () => {
  assert.equal(same(new Date(5), new Date(5)), true);
  assert.equal(same(new Date(5), new Date(6)), false);
  assert.equal(same({ at: new Date(5) }, { at: new Date(5) }), true);
  assert.equal(same(new Date(5), 5), false);
  const f = () => 1;
  assert.equal(same(f, f), true);
  assert.equal(same(f, () => 1), false);
  class Thing {
    constructor() {
      this.v = 1;
    }
  }
  const t = new Thing();
  assert.equal(same({ t }, { t }), true);
  assert.equal(same(new Thing(), new Thing()), false);
  assert.equal(same(new Map(), new Map()), false);
  const s = Symbol('s');
  assert.equal(same({ s }, { s }), true);
  assert.equal(same(Symbol('s'), Symbol('s')), false);
});

test('cycles are safe: an answer, no hang', () => {
  const a = { n: 1 };
  a.self = a;
  const b = { n: 1 };
  b.self = b;
  const c = { n: 2 };
  c.self = c;
  assert.equal(same(a, a), true);
  assert.equal(typeof same(a, b), 'boolean');
  assert.equal(same(a, c), false);
  const x = { name: 'x' };
  const y = { name: 'y', x };
  x.y = y;
  assert.equal(typeof same(x, y), 'boolean');
  assert.equal(same(x, y), false);
  const arr = [1];
  arr.push(arr);
  assert.equal(same(arr, arr), true);
  assert.equal(same(arr, [1, [1]]), false);
});

test('ignore: a pattern covers its subtree; * matches exactly one segment', () => {
  const old = { id: 1, meta: { at: 1, by: 'a' }, items: [{ etag: 'x', n: 1 }, { etag: 'y', n: 2 }] };
  const neu = { id: 1, meta: { at: 2, by: 'b', extra: 0 }, items: [{ etag: 'z', n: 1 }, { etag: 'w', n: 2 }] };
  assert.equal(same(old, neu), false);
  assert.equal(sameStructure({ ignore: ['/meta', '/items/*/etag'] })(old, neu), true);
  assert.equal(sameStructure({ ignore: ['/meta'] })(old, neu), false, 'the etags still differ');
  assert.equal(sameStructure({ ignore: ['/meta', '/items/0/etag'] })(old, neu), false, '/items/1/etag still differs');
  assert.equal(sameStructure({ ignore: ['/meta', '/*/etag'] })(old, neu), false, '* is one segment, not two');
  assert.equal(sameStructure({ ignore: ['/meta', '/items/*'] })(old, neu), true);
  assert.equal(sameStructure({ ignore: [''] })(1, 'one'), true, "'' is the root: everything");
  assert.equal(sameStructure({ ignore: ['/a~1b', '/c~0'] })({ 'a/b': 1, 'c~': 1 }, { 'a/b': 2, 'c~': 2 }), true);
  assert.equal(sameStructure({ ignore: ['/extra'] })({ a: 1 }, { a: 1, extra: 1 }), true, 'an added key under a pattern');
  assert.equal(sameStructure({ ignore: ['/gone'] })({ a: 1, gone: 1 }, { a: 1 }), true, 'a removed key under a pattern');
});

/** Hostile values as an origin's answer: read succeeds, the check is counted, a mismatch is kept. */
const hostile = {
  'a getter that throws': () => Object.defineProperty({ a: 1 }, 'b', { enumerable: true, get: () => { throw new Error('getter'); } }),
  'a getter that throws a string': () => Object.defineProperty({ a: 1 }, 'b', { enumerable: true, get: () => { throw 'nope'; } }),
  'a proxy whose traps all throw': () =>
    new Proxy({ a: 1 }, Object.fromEntries(['get', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'has'].map((t) => [t, () => { throw new Error(t); }]))),
  'a revoked proxy': () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  },
  'a 10,000-deep chain': () => {
    let v = { leaf: 1 };
    for (let i = 0; i < 10000; i++) v = { a: v };
    return v;
  },
  'a 10,000-key object': () => Object.fromEntries(Array.from({ length: 10000 }, (_, i) => [`k${i}`, i])),
  'a 10,000-element sparse array': () => {
    const a = [];
    a[9999] = 1;
    return a;
  },
  'a mutually cyclic pair': () => {
    const a = { n: 'a' };
    a.b = { n: 'b', a };
    return a;
  },
};

for (const [label, make] of Object.entries(hostile)) {
  for (const comparison of ['sameStructure', 'false']) {
    test(`${label}, under mismatches() with ${comparison === 'false' ? 'a comparison saying false' : 'sameStructure()'}: the read succeeds`, async () => {
      const cmp = comparison === 'false' ? () => false : sameStructure();
      const { migrator, read } = mmSetup({ comparison: cmp, mismatches: { maxDifferences: 5 } });
      const oldValue = make();
      const newValue = make();
      const t0 = performance.now();
      const direct = sameStructure()(oldValue, newValue);
      assert.equal(typeof direct, 'boolean');
      const r = await read(oldValue, newValue);
      const ms = performance.now() - t0;
      assert.ok(ms < 2000, `${Math.round(ms)} ms`);
      assert.equal(r.success, true);
      assert.equal(r.value, oldValue);
      const s = migrator.stats().read.consistency;
      assert.equal(s.checked, 1, 'the check was counted');
      const kept = migrator.mismatches();
      const expected = comparison === 'false' || !direct ? 1 : 0;
      assert.equal(kept.length, expected);
      if (expected) {
        assert.equal(kept[0].old, oldValue);
        assert.equal(kept[0].new, newValue);
        assert.ok(kept[0].differences.length <= 5);
        for (const d of kept[0].differences) assert.ok(['changed', 'added', 'removed', 'type'].includes(d.kind), d.kind);
      }
    });
  }
}

test('a getter that throws: its position is a difference of the explanation', async () => {
  const { migrator, read } = mmSetup({ mismatches: true });
  const make = () => Object.defineProperty({ a: 1, c: 1 }, 'b', { enumerable: true, get: () => { throw new Error('getter'); } });
  await read(make(), { a: 1, b: 2, c: 2 });
  const paths = migrator.mismatches()[0].differences.map((d) => d.path);
  assert.ok(paths.includes('/b'), `the unreadable /b is listed: ${paths.join(' ')}`);
  assert.ok(paths.includes('/c'), `and the walk went on to /c: ${paths.join(' ')}`);
});

test('equal strings under reordered keys are equal, and are not listed as changed', async () => {
  assert.equal(same({ a: 'x', b: 'x' }, { b: 'x', a: 'x' }), true);
  assert.equal(same([{ a: '', b: '' }], [{ b: '', a: '' }]), true);
  assert.equal(same({ a: 'x', b: 'y', c: 'x' }, { c: 'x', b: 'y', a: 'x' }), true);
  const { migrator, read } = mmSetup({ mismatches: true });
  await read({ p: '', q: '' }, { p: 0, q: '' });
  assert.deepEqual(
    migrator.mismatches()[0].differences.map((d) => [d.path, d.kind]),
    [['/p', 'type']],
  );
});
