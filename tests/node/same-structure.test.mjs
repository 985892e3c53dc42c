// sameStructure({ ignore }) — API.md §1 "Differences": the structural comparison computed by the
// core (src/diff), over values flattened once by js/bridge/tape.js. The rules, ignore patterns,
// cycles, hostile values (never a throw out of the comparison: false), bounds, bad options, and
// its use as a migrator's comparison.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { LDMigrationSuccess, MigratorBuilder, createMigration, fixedStage, sameStructure } from 'cutover';

const same = sameStructure();

function throwsExactly(run, message) {
  assert.throws(run, (error) => {
    assert.ok(error instanceof TypeError, `a TypeError, got ${error?.name}: ${error?.message}`);
    assert.equal(error.message, message);
    return true;
  });
}

/** A chain `{ next: { next: … } }` `depth` objects deep. */
function chain(depth, leaf = 1) {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}

/** An object of `n` keys `k0` … */
function wide(n, value = (i) => i) {
  const object = {};
  for (let i = 0; i < n; i++) object[`k${i}`] = value(i);
  return object;
}

/** About 1 KB of JSON: an order with a customer, items and totals. */
function order(seed = 0) {
  return {
    id: 'ord_8f14e45fceea167a5a36dedd4bea2543',
    status: 'shipped',
    updatedAt: `2024-05-02T08:00:0${seed}.000Z`,
    customer: { id: 'cus_42', name: 'Ada Lovelace', address: { city: 'London', zip: 'N1 9GU' } },
    items: [1, 2, 3].map((i) => ({ sku: `SKU-${i}`, qty: i, price: 9.99 + i, etag: `e${i}-${seed}`, tags: ['blue', `t${i}`] })),
    totals: { subtotal: 49.96, tax: 9.99, total: 64.45, currency: 'GBP' },
  };
}

// ---------------------------------------------------------------------------------------------
// The rules

test('primitives: by value, NaN equals NaN, +0 equals -0, bigints by value, symbols by identity', () => {
  assert.equal(same(1, 1), true);
  assert.equal(same(1, 2), false);
  assert.equal(same(NaN, NaN), true);
  assert.equal(same(0, -0), true);
  assert.equal(same(Infinity, -Infinity), false);
  assert.equal(same('text', 'text'), true);
  assert.equal(same('text', 'other'), false);
  assert.equal(same(true, true), true);
  assert.equal(same(true, false), false);
  assert.equal(same(null, null), true);
  assert.equal(same(undefined, undefined), true);
  assert.equal(same(null, undefined), false);
  assert.equal(same(0, '0'), false);
  assert.equal(same(10n, 10n), true);
  assert.equal(same(10n, 11n), false);
  const s = Symbol('s');
  assert.equal(same(s, s), true);
  assert.equal(same(Symbol('s'), Symbol('s')), false);
  assert.equal(same({ a: NaN, b: [-0] }, { a: NaN, b: [0] }), true);
});

test('plain objects: own enumerable string keys and values, in any order; an undefined value is still a key', () => {
  assert.equal(same({ a: 1, b: 'x' }, { a: 1, b: 'x' }), true);
  assert.equal(same({ a: 1, b: 'x' }, { b: 'x', a: 1 }), true);
  assert.equal(same({ a: 1 }, { a: 1, b: 2 }), false);
  assert.equal(same({ a: 1, b: 2 }, { a: 1 }), false);
  assert.equal(same({ a: undefined }, {}), false);
  assert.equal(same({}, { a: undefined }), false);
  assert.equal(same({ a: undefined }, { a: undefined }), true);
  const bare = Object.create(null);
  bare.a = 1;
  assert.equal(same(bare, { a: 1 }), true, 'a null prototype is a plain object');
  const hidden = { a: 1 };
  Object.defineProperty(hidden, 'secret', { value: 2, enumerable: false });
  hidden[Symbol('s')] = 3;
  assert.equal(same(hidden, { a: 1 }), true, 'non-enumerable and symbol keys are not looked at');
  assert.equal(same({ get a() { return 1; } }, { a: 1 }), true, 'a getter is read');
  assert.equal(same({ 2: 'b', 1: 'a', x: 1 }, { x: 1, 1: 'a', 2: 'b' }), true);
});

test('strings are compared by text wherever they sit, repeated or moved', () => {
  assert.equal(same(['x', 'y'], ['y', 'x']), false);
  assert.equal(same({ a: 'x', b: 'x' }, { b: 'x', a: 'x' }), true);
  assert.equal(same({ a: 'x', b: 'y', c: 'x' }, { c: 'x', b: 'y', a: 'x' }), true);
  assert.equal(same({ a: 'x', b: 'y', c: 'x' }, { c: 'y', b: 'y', a: 'x' }), false);
  assert.equal(same(['a', 'b', 'a'], ['a', 'b', 'b']), false);
  assert.equal(same({ p: ['u', 'v'], q: 'u' }, { q: 'u', p: ['u', 'v'] }), true);
  assert.equal(same(['long'.repeat(100), 'é'], ['long'.repeat(100), 'é']), true);
});

test('arrays: by index, a hole reads as undefined, other properties are not looked at', () => {
  assert.equal(same([1, 2, 3], [1, 2, 3]), true);
  assert.equal(same([1, 2, 3], [1, 3, 2]), false);
  assert.equal(same([1, 2], [1, 2, 3]), false);
  // eslint-disable-next-line no-sparse-arrays
  assert.equal(same([, 1], [undefined, 1]), true);
  assert.equal(same(Object.assign([1], { extra: true }), [1]), true);
  assert.equal(same([], {}), false);
  assert.equal(same([[]], [[]]), true);
});

test('Dates by time; class instances, functions, Maps and other objects by identity', () => {
  assert.equal(same(new Date(5), new Date(5)), true);
  assert.equal(same(new Date(5), new Date(6)), false);
  assert.equal(same(new Date(NaN), new Date(NaN)), true);
  assert.equal(same(new Date(5), 5), false);
  assert.equal(same({ at: new Date(7) }, { at: new Date(7) }), true);
  class Point {
    constructor(x) {
      this.x = x;
    }
  }
  const p = new Point(1);
  assert.equal(same(p, p), true);
  assert.equal(same(new Point(1), new Point(1)), false);
  assert.equal(same({ p }, { p }), true);
  const f = () => 1;
  assert.equal(same(f, f), true);
  assert.equal(same(() => 1, () => 1), false);
  const m = new Map();
  assert.equal(same([m, m], [m, m]), true);
  assert.equal(same([m], [new Map()]), false);
  assert.equal(same(new Point(1), { x: 1 }), false);
});

test('the same reference is equal, and shared references inside are compared', () => {
  const shared = { a: [1, 2] };
  assert.equal(same(shared, shared), true);
  assert.equal(same({ x: shared, y: shared }, { x: shared, y: { a: [1, 2] } }), true);
  assert.equal(same({ x: shared }, { x: { a: [1, 3] } }), false);
});

test('about 1 KB of JSON: equal copies, reordered copies, one changed field', () => {
  assert.equal(same(order(), order()), true);
  assert.equal(same(order(), structuredClone(order())), true);
  assert.equal(same(order(), JSON.parse(JSON.stringify(order()))), true);
  const reversed = (v) =>
    Array.isArray(v) ? v.map(reversed) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversed(x)])) : v;
  assert.equal(same(order(), reversed(order())), true);
  assert.equal(same(order(0), order(1)), false);
  const changed = order();
  changed.items[2].tags[1] = 'other';
  assert.equal(same(order(), changed), false);
  for (let i = 0; i < 50; i++) assert.equal(same(order(), order()), true, 'the same answer on every call');
});

test('keys are matched by text, escaped or odd keys included', () => {
  assert.equal(same({ 'a/b': 1, 'c~d': 2, '': 3, 'e\u0000f': 4 }, { 'e\u0000f': 4, '': 3, 'c~d': 2, 'a/b': 1 }), true);
  assert.equal(same({ 'a\u0000b': 1 }, { a: 1 }), false);
  const ignoreOdd = sameStructure({ ignore: ['/a~1b', '/c~0d', '/', '/e\u0000f'] });
  assert.equal(ignoreOdd({ 'a/b': 1, 'c~d': 2, '': 3, 'e\u0000f': 4, z: 0 }, { 'a/b': 9, 'c~d': 9, '': 9, 'e\u0000f': 9, z: 0 }), true);
  assert.equal(ignoreOdd({ z: 0 }, { z: 1 }), false);
});

test('keys come only from own enumerable properties even when Object.prototype has an enumerable one', () => {
  // eslint-disable-next-line no-extend-native
  Object.prototype.polluted = 1;
  try {
    assert.equal(same({ a: 1 }, { a: 1 }), true);
    assert.equal(same({ a: 1 }, { a: 1, polluted: 1 }), false);
    assert.equal(same({ a: { b: 2 } }, { a: { b: 3 } }), false);
  } finally {
    delete Object.prototype.polluted;
  }
  assert.equal(same({ a: 1 }, { a: 1 }), true);
});

// ---------------------------------------------------------------------------------------------
// ignore

test('ignore: a key, a subtree, a star for one segment of any kind, literal indices', () => {
  const noise = sameStructure({ ignore: ['/updatedAt', '/items/*/etag'] });
  assert.equal(noise(order(0), order(1)), true);
  assert.equal(same(order(0), order(1)), false);
  const changed = order(1);
  changed.items[1].qty = 7;
  assert.equal(noise(order(0), changed), false);

  const subtree = sameStructure({ ignore: ['/meta'] });
  assert.equal(subtree({ a: 1, meta: { x: [1] } }, { a: 1, meta: { x: [2], y: 1 } }), true);
  assert.equal(subtree({ a: 1 }, { a: 1, meta: { anything: true } }), true, 'an added key under an ignored path');
  assert.equal(subtree({ a: 1, meta: 1 }, { a: 1 }), true, 'a removed one');
  assert.equal(subtree({ a: 1 }, { a: 2 }), false);

  const star = sameStructure({ ignore: ['/*/id'] });
  assert.equal(star({ x: { id: 1, v: 1 }, y: { id: 2 } }, { x: { id: 9, v: 1 }, y: { id: 8 } }), true);
  assert.equal(star([{ id: 1 }], [{ id: 2 }]), true);
  assert.equal(star({ x: { id: 1, v: 1 } }, { x: { id: 1, v: 2 } }), false);

  const first = sameStructure({ ignore: ['/items/0'] });
  assert.equal(first({ items: [1, 2] }, { items: [9, 2] }), true);
  assert.equal(first({ items: [1, 2] }, { items: [1, 9] }), false);
  assert.equal(first({ items: { 0: 1 } }, { items: { 0: 2 } }), true, "a literal index is also the key '0'");

  const all = sameStructure({ ignore: [''] });
  assert.equal(all({ a: 1 }, [2]), true, "'' ignores the root");
  const children = sameStructure({ ignore: ['/*'] });
  assert.equal(children({ a: 1 }, { b: 2 }), true);
  assert.equal(children({ a: 1 }, [1]), false, 'an object and an array still differ');
});

test('ignore: an ignored key whose getter throws is never an answer', () => {
  const quiet = sameStructure({ ignore: ['/secret'] });
  const hostile = {
    a: 1,
    get secret() {
      throw new Error('no');
    },
  };
  assert.equal(quiet(hostile, { a: 1, secret: 2 }), true);
  assert.equal(same(hostile, { a: 1, secret: 2 }), false);
});

// ---------------------------------------------------------------------------------------------
// Cycles

test('cycles: the same shape is equal, a different one is not, and nothing hangs', () => {
  const a = { name: 'a' };
  a.self = a;
  const b = { name: 'a' };
  b.self = b;
  assert.equal(same(a, b), true);
  const c = { name: 'c' };
  c.self = c;
  assert.equal(same(a, c), false);
  const x = { v: 1 };
  const y = { v: 1, back: x };
  x.next = y;
  const x2 = { v: 1 };
  const y2 = { v: 1, back: x2 };
  x2.next = y2;
  assert.equal(same(x, x2), true, 'a cycle of two');
  const list = [1];
  list.push(list);
  const list2 = [1];
  list2.push(list2);
  assert.equal(same(list, list2), true);
  assert.equal(same(list, [1, [1, [1]]]), false, 'a cycle against a finite value');
  assert.equal(same(a, a), true);
});

// ---------------------------------------------------------------------------------------------
// Hostile values: never a throw out of the comparison, never equal

test('a getter that throws, a revoked proxy or a trap that throws answers false, never throws', () => {
  const throwing = {
    get a() {
      throw new Error('getter');
    },
  };
  assert.equal(same(throwing, { a: 1 }), false);
  assert.equal(same({ a: 1 }, throwing), false);
  assert.equal(same(throwing, throwing), true, 'the same reference, unread');
  assert.equal(same({ x: throwing }, { x: throwing }), true);
  const twin = {
    get a() {
      throw new Error('getter');
    },
  };
  assert.equal(same(throwing, twin), false, 'two values that cannot be read are not equal');
  assert.equal(same([throwing], [twin]), false);

  const { proxy, revoke } = Proxy.revocable({ a: 1 }, {});
  revoke();
  assert.equal(same(proxy, { a: 1 }), false);
  assert.equal(same({ p: proxy }, { p: { a: 1 } }), false);
  assert.equal(same([proxy], [proxy]), true, 'the same reference again');

  const keysThrow = new Proxy({ a: 1 }, {
    ownKeys() {
      throw new Error('ownKeys');
    },
  });
  assert.equal(same(keysThrow, { a: 1 }), false);
  assert.equal(same(keysThrow, keysThrow), true, 'the very same proxy');
  assert.equal(same({ p: keysThrow, q: 1 }, { p: keysThrow, q: 1 }), true);
  assert.equal(same({ p: keysThrow }, { p: new Proxy({ a: 1 }, { ownKeys() { throw new Error('again'); } }) }), false);
  const laterThrow = new Proxy({ a: 1, b: 2, c: 3 }, {
    getOwnPropertyDescriptor(target, key) {
      if (key === 'b') throw new Error('descriptor');
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
  });
  assert.equal(same({ v: laterThrow, w: 'after' }, { v: { a: 1, b: 2, c: 3 }, w: 'after' }), false);
  const protoThrows = new Proxy({}, {
    getPrototypeOf() {
      throw new Error('proto');
    },
  });
  assert.equal(same(protoThrows, {}), false);
  const array = new Proxy([1, 2], {
    get(target, key) {
      if (key === '1') throw new Error('element');
      return Reflect.get(target, key);
    },
  });
  assert.equal(same(array, [1, 2]), false);
  assert.equal(same(new Proxy({ a: 1 }, {}), { a: 1 }), true, 'a proxy that does not throw reads as its target');
});

test('a getter that runs a comparison gets its answer; the comparison around it still answers', () => {
  const inner = [];
  const reentrant = {
    get a() {
      inner.push(same({ x: 1, s: 'text' }, { x: 1, s: 'text' }), same({ x: 1 }, { x: 2 }));
      return 1;
    },
    b: ['one', 'two'],
  };
  assert.equal(same(reentrant, { a: 1, b: ['one', 'two'] }), true);
  assert.equal(same({ a: 1, b: ['one', 'two'] }, reentrant), true, 'on the new side too');
  assert.equal(same(reentrant, { a: 1, b: ['one', 'three'] }), false);
  assert.deepEqual(inner, [true, false, true, false, true, false], 'each nested comparison answered');
  assert.equal(same({ x: 1 }, { x: 1 }), true, 'and the next one runs');
});

test('a getter that throws after running a comparison, and a trap that runs one, leave the comparison around them right', () => {
  const answers = [];
  const throwing = {
    k: 'same',
    get a() {
      answers.push(same(['p', { q: 1 }], ['p', { q: 1 }]));
      throw new Error('no');
    },
  };
  assert.equal(same(throwing, { k: 'same', a: 1 }), false);
  const trapped = new Proxy({ k: 'v' }, {
    ownKeys(target) {
      answers.push(same({ t: 'x' }, { t: 'y' }));
      return Reflect.ownKeys(target);
    },
  });
  assert.equal(same({ o: trapped, s: 'z' }, { o: { k: 'v' }, s: 'z' }), true);
  assert.deepEqual(answers, [true, false]);
});

test('a getter whose comparison makes the tape\'s buffer grow leaves the comparison around it right', () => {
  // A nested tape is written after the slots of the one it interrupts: 9,000 keys a side before
  // the getter and two values of 9,990 keys in it take more slots than any single tape (the
  // buffer grows, and may move, while the interrupted tape is open).
  const nested = [];
  const value = (tail) => ({
    before: wide(9000),
    get g() {
      nested.push(same(wide(9990), wide(9990)), same(wide(9990), wide(9990, (i) => (i === 9989 ? -1 : i))));
      return 'g';
    },
    tail,
  });
  assert.equal(same(value([1, 'two', { three: 3 }]), value([1, 'two', { three: 3 }])), true);
  assert.equal(same(value([1, 'two', { three: 3 }]), value([1, 'two', { three: 4 }])), false);
  assert.deepEqual(nested, [true, false, true, false, true, false, true, false]);
});

// ---------------------------------------------------------------------------------------------
// Bounds: a 10,000-key object, a 10,000-deep chain

test('a 10,000-key object and a 10,000-deep chain answer false quickly, without throwing', () => {
  const t0 = performance.now();
  assert.equal(same(wide(10_000), wide(10_000)), false, 'more positions than the node bound');
  assert.equal(same(chain(10_000), chain(10_000)), false, 'deeper than the depth bound');
  assert.equal(same([chain(10_000)], [chain(10_000)]), false);
  const ms = performance.now() - t0;
  assert.ok(ms < 1000, `${ms} ms`);
  assert.equal(same(wide(5_000), wide(5_000)), true, 'within the bounds');
  assert.equal(same(wide(5_000), wide(5_000, (i) => (i === 4_999 ? -1 : i))), false);
  assert.equal(same(chain(64), chain(64)), true, 'the leaf 64 levels under the root: the depth bound');
  assert.equal(same(chain(65), chain(65)), false, 'one more level');
  assert.equal(same(chain(64, {}), chain(64, {})), true, 'an empty object at the bound has nothing deeper to compare');
  const long = Array.from({ length: 20_000 }, (_, i) => i);
  assert.equal(same(long, [...long]), false);
  const huge = [];
  huge.length = 2 ** 32 - 1;
  assert.equal(same(huge, huge.slice(0, 0)), false);
  assert.equal(same([huge], [[]]), false);
  const ignored = sameStructure({ ignore: ['/big'] });
  assert.equal(ignored({ big: wide(20_000), a: 1 }, { big: {}, a: 1 }), false, 'the node bound counts what the tape reads');
  assert.equal(sameStructure({ ignore: ['/*'] })(wide(20_000), wide(20_001)), true, 'every child ignored: nothing to read');
});

// ---------------------------------------------------------------------------------------------
// Options

test('bad options throw a TypeError naming them', () => {
  throwsExactly(() => sameStructure(null), 'sameStructure: options must be an object, got null');
  throwsExactly(() => sameStructure('x'), 'sameStructure: options must be an object, got string "x"');
  throwsExactly(() => sameStructure({ ignor: [] }), 'ignor is not an option of sameStructure; did you mean ignore?');
  throwsExactly(() => sameStructure({ exclude: [] }), 'exclude is not an option of sameStructure');
  throwsExactly(() => sameStructure({ ignore: '/a' }), 'sameStructure: ignore must be an array of JSON Pointers, got string "/a"');
  throwsExactly(() => sameStructure({ ignore: null }), 'sameStructure: ignore must be an array of JSON Pointers, got null');
  throwsExactly(() => sameStructure({ ignore: ['/a', 1] }), 'sameStructure: ignore[1] must be a string (a JSON Pointer), got number 1');
  throwsExactly(
    () => sameStructure({ ignore: ['/a', 'items/price'] }),
    `sameStructure: ignore[1] must be a JSON Pointer ('' or starting with '/'), got "items/price"`,
  );
  throwsExactly(
    () => sameStructure({ ignore: ['/a~2'] }),
    `sameStructure: ignore[0] must be a JSON Pointer ('~' only as '~0' or '~1'), got "/a~2"`,
  );
  for (const fine of [undefined, {}, { ignore: undefined }, { ignore: [] }, { ignore: ['', '/a/*/b', '/~0~1'] }]) {
    assert.equal(typeof sameStructure(fine), 'function');
  }
});

// ---------------------------------------------------------------------------------------------
// As a migrator's comparison

async function shadowReads(comparison, pairs) {
  let at = 0;
  const oldFn = async () => pairs[at][0];
  const newFn = async () => pairs[at++][1];
  const migrator = new MigratorBuilder(fixedStage('shadow')).read(oldFn, newFn, comparison).write(oldFn, newFn).build();
  for (let i = 0; i < pairs.length; i++) await migrator.read('flag', { kind: 'user', key: 'u1' }, 'off');
  return migrator.stats().read.consistency;
}

test('MigratorBuilder#read runs a sameStructure comparison in the core: consistency counted in stats', async () => {
  const hostile = {
    get a() {
      throw new Error('no');
    },
  };
  const pairs = [
    [order(0), order(0)],
    [order(0), order(1)],
    [{ a: 1, b: [2] }, { b: [2], a: 1 }],
    [hostile, { a: 1 }],
    [wide(10_000), wide(10_000)],
    ['text', 'text'],
  ];
  const native = await shadowReads(sameStructure(), pairs);
  assert.deepEqual(native, { checked: 6, consistent: 3, paths: {} });
  const noise = sameStructure({ ignore: ['/updatedAt', '/items/*/etag'] });
  assert.deepEqual(await shadowReads(noise, pairs), { checked: 6, consistent: 4, paths: {} });
  const wrapped = await shadowReads((a, b) => noise(a, b), pairs);
  assert.deepEqual(wrapped, { checked: 6, consistent: 4, paths: {} }, 'the same answers through a JavaScript function');
});

test('a tracker that runs the check itself gets the same answers, and createMigration takes it as its check', async () => {
  const checks = [];
  const tracker = {
    op() {},
    invoked() {},
    latency() {},
    error() {},
    consistency(check) {
      checks.push(check());
    },
    createEvent() {
      return undefined;
    },
  };
  const client = { migrationVariation: () => ({ value: 'shadow', tracker }) };
  const values = [order(0), order(1)];
  let n = 0;
  const migrator = new MigratorBuilder(client)
    .read(async () => order(0), async () => values[n++ % 2], sameStructure())
    .write(async () => 1, async () => 1)
    .build();
  await migrator.read('flag', { kind: 'user', key: 'u1' }, 'off');
  await migrator.read('flag', { kind: 'user', key: 'u1' }, 'off');
  assert.deepEqual(checks, [true, false]);

  const events = [];
  const ldClient = {
    migrationVariation: async () => ({ value: 'shadow', tracker: { ...tracker, consistency: (check) => events.push(check()) } }),
    trackMigration() {},
  };
  const migration = createMigration(ldClient, {
    readOld: async () => LDMigrationSuccess(order(0)),
    readNew: async () => LDMigrationSuccess(order(1)),
    writeOld: async () => LDMigrationSuccess(1),
    writeNew: async () => LDMigrationSuccess(1),
    check: sameStructure({ ignore: ['/updatedAt', '/items/*/etag'] }),
  });
  const result = await migration.read('flag', { kind: 'user', key: 'u1' }, 'off');
  assert.equal(result.success, true);
  assert.deepEqual(events, [true]);
});

// ---------------------------------------------------------------------------------------------
// Against a reference: the rules written plainly, on seeded random pairs

/** The rules of API.md §1 for acyclic, readable values within the bounds. */
function reference(a, b) {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!reference(a[i], b[i])) return false;
    return true;
  }
  const plain = (v) => [Object.prototype, null].includes(Object.getPrototypeOf(v));
  if (!plain(a) || !plain(b)) {
    const time = (v) => (v instanceof Date ? v.getTime() : undefined);
    return time(a) !== undefined && time(b) !== undefined && reference(time(a), time(b));
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length || !keys.every((k) => Object.hasOwn(b, k))) return false;
  return keys.every((k) => reference(a[k], b[k]));
}

function random(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

test('on 3,000 seeded random pairs, sameStructure answers as the reference does', () => {
  const next = random(22);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const shared = [{ s: 1 }, ['x'], new Date(3)];
  const leaf = () => pick(['a', 'b', 'a', '', 'long text here', 0, -0, 1, 2.5, NaN, true, false, null, undefined, () => pick(shared), () => new Date(pick([1, 2, NaN]))]);
  const value = (depth) => {
    const r = next();
    if (depth > 3 || r < 0.45) {
      const v = leaf();
      return typeof v === 'function' ? v() : v;
    }
    if (r < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const o = {};
    for (let i = Math.floor(next() * 4); i > 0; i--) o[pick(['a', 'b', 'c', 'd', '1'])] = value(depth + 1);
    return o;
  };
  const copy = (v) => {
    if (Array.isArray(v)) return v.map(copy);
    if (v === null || typeof v !== 'object' || shared.includes(v)) return v;
    if (v instanceof Date) return new Date(v.getTime());
    const entries = Object.entries(v).map(([k, x]) => [k, copy(x)]);
    if (next() < 0.3) entries.reverse();
    return Object.fromEntries(entries);
  };
  const mutate = (v) => {
    if (Array.isArray(v) && v.length && next() < 0.5) {
      const w = [...v];
      w[Math.floor(next() * w.length)] = value(3);
      return w;
    }
    if (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) && !shared.includes(v)) {
      const keys = Object.keys(v);
      if (keys.length && next() < 0.6) {
        const w = { ...v };
        const k = pick(keys);
        if (next() < 0.5) delete w[k];
        else w[k] = mutate(w[k]);
        return w;
      }
      return { ...v, [pick(['a', 'e'])]: value(3) };
    }
    return value(3);
  };
  const noise = sameStructure({ ignore: ['/a', '/*/b'] });
  let equal = 0;
  for (let i = 0; i < 3000; i++) {
    const a = value(0);
    const r = next();
    const b = r < 0.4 ? copy(a) : r < 0.7 ? mutate(copy(a)) : r < 0.8 ? a : value(0);
    const expected = reference(a, b);
    if (expected) equal++;
    assert.equal(same(a, b), expected, `pair ${i}: ${inspect([a, b], { depth: 9 })}`);
    assert.equal(same(b, a), expected, `pair ${i} the other way: ${inspect([a, b], { depth: 9 })}`);
    if (expected) assert.equal(noise(a, b), true, `pair ${i} with ignore: ${inspect([a, b], { depth: 9 })}`);
  }
  assert.ok(equal > 1000 && equal < 2800, `${equal} equal pairs`);
});

test('on 1,000 seeded random pairs with getters that run comparisons, two deep, every comparison answers as the reference does', () => {
  const next = random(23);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const value = (depth) => {
    const r = next();
    if (depth > 3 || r < 0.4) return pick(['a', 'b', '', 'long text here', 0, 1, 2.5, NaN, true, null, undefined]);
    if (r < 0.65) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const o = {};
    for (let i = Math.floor(next() * 4); i > 0; i--) o[pick(['a', 'b', 'c', 'd', '1'])] = value(depth + 1);
    return o;
  };
  const copy = (v) => (v !== null && typeof v === 'object' ? (Array.isArray(v) ? v.map(copy) : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copy(x)]))) : v);
  const containers = (v, out = []) => {
    if (v !== null && typeof v === 'object') {
      out.push(v);
      for (const x of Object.values(v)) containers(x, out);
    }
    return out;
  };
  /** A getter on one member of `v` (when it has any) that runs `run` whenever it is read. */
  const hook = (v, run) => {
    const holders = containers(v).filter((c) => Object.keys(c).length > 0);
    if (holders.length === 0) return;
    const holder = pick(holders);
    const key = pick(Object.keys(holder));
    const held = holder[key];
    Object.defineProperty(holder, key, { enumerable: true, configurable: true, get: () => (run(), held) });
  };
  const explained = sameStructure({ ignore: ['/c'] });
  const wrong = [];
  let checks = 0;
  for (let i = 0; i < 1000; i++) {
    const pair = () => {
      const a = value(0);
      const b = next() < 0.5 ? copy(a) : value(0);
      return [a, b, reference(a, b)];
    };
    const [a, b, expected] = pair();
    const [c, d, innerExpected] = pair();
    const [e, f, deepestExpected] = pair();
    hook(c, () => {
      checks++;
      if (same(e, f) !== deepestExpected) wrong.push(`pair ${i}, two deep: ${inspect([e, f], { depth: 9 })}`);
    });
    hook(next() < 0.5 ? a : b, () => {
      checks++;
      if (same(c, d) !== innerExpected) wrong.push(`pair ${i}, nested: ${inspect([c, d], { depth: 9 })}`);
      if (innerExpected && !explained(c, d)) wrong.push(`pair ${i}, nested, with ignore`);
    });
    assert.equal(same(a, b), expected, `pair ${i}: ${inspect([a, b], { depth: 9 })}`);
  }
  assert.deepEqual(wrong, []);
  assert.ok(checks > 600, `${checks} nested comparisons ran`);
});

test('a migrator that explains mismatches explains the same paths when a getter of its values runs comparisons', async () => {
  const quiet = { logger: { debug() {}, info() {}, warn() {}, error() {} } };
  const run = async (withGetters) => {
    const oldValue = { id: 'x', items: [{ price: 1, name: 'a' }, { price: 2, name: 'b' }], tag: 'same' };
    const newValue = { id: 'x', items: [{ price: 1, name: 'a' }, { price: 3, name: 'b' }], tag: 'other' };
    if (withGetters) {
      for (const item of [...oldValue.items, ...newValue.items]) {
        const name = item.name;
        Object.defineProperty(item, 'name', { enumerable: true, get: () => (same({ n: name, m: [name] }, { n: name, m: ['x'] }), name) });
      }
    }
    const migrator = new MigratorBuilder(fixedStage('shadow'), quiet)
      .mismatches()
      .read(() => oldValue, () => newValue, sameStructure())
      .write(() => 1, () => 1)
      .build();
    await migrator.read('mig', { kind: 'user', key: 'k' }, 'off');
    return migrator.mismatches().map((m) => m.differences.map((d) => [d.path, d.kind]));
  };
  const plain = await run(false);
  assert.deepEqual(plain, [[['/items/1/price', 'changed'], ['/tag', 'changed']]]);
  assert.deepEqual(await run(true), plain);
});

test('comparisons with getters that compare, started at every depth of a nearly full stack, leave later ones right', () => {
  const reentrant = () => ({
    s: 'text',
    get g() {
      same({ n: [1, 'x'] }, { n: [1, 'x'] });
      return [1, 2, 3];
    },
  });
  // Near the stack's end some of these run out of stack inside the writer (then false, never a
  // throw), some while a nested tape is open.
  let answered = 0;
  const descend = (n) => {
    try {
      descend(n + 1);
    } catch {
      // the bottom of the stack
    }
    if (n % 4 === 0) {
      same(reentrant(), reentrant());
      answered++;
    }
  };
  descend(0);
  assert.ok(answered > 100, `${answered} comparisons near the stack's end`);
  assert.equal(same(reentrant(), reentrant()), true);
  assert.equal(same({ a: reentrant(), b: 'x' }, { a: reentrant(), b: 'y' }), false);
  assert.equal(same({ a: ['p', { q: 'r' }] }, { a: ['p', { q: 'r' }] }), true);
  assert.equal(same({ a: ['p', { q: 'r' }] }, { a: ['p', { q: 's' }] }), false);
});
