// The structural walk under the fuzz (issue 22; shared/API.md §1 "Differences"): `sameStructure()`
// called directly, and shadow reads with `mismatches()` whose comparison is `sameStructure()` or a
// user function answering false (so every check is explained). Three properties, in PROPERTIES
// with the others (properties.mjs) — the third, 'sameStructure reordered keys' (JSON values
// against copies with their keys in another order, and the explanations of those pairs), is
// `todo` while the bug it found is open (notes/d22-bugs.md) — and HOSTILE, every hostile value by
// name, which tests/hardening/differences.test.mjs also sweeps one by one.
//
// Values: random JSON (fast-check's jsonValue) paired with a copy, a copy changed at one position
// (a leaf replaced, a key dropped, a key added), or another random value; and hostile ones —
// getters that throw (Errors and not), proxies (transparent, over arrays, with traps that throw,
// that lie about their keys), revoked proxies, 10,000-deep chains, cyclic and mutually cyclic
// trees (short cycles and one longer than the walk's cycle window), 10,000-key objects and
// 10,000-element arrays, sparse arrays, symbols, BigInts, functions, class instances, Maps,
// typed arrays, Dates (invalid too), NaN, -0, lone surrogates, 1 MB strings — on either side, at
// the root or nested, paired with themselves, with a twin made the same way, or with a plain value.
//
// Checked, besides the harness's oracle (no trap, nothing uncaught or unhandled, the module still
// works afterwards):
// - sameStructure's comparison never throws and returns a boolean, in bounded time (no hang);
// - sameStructure(x, x) is true for every value the walk can read (`UNREADABLE` lists the ones
//   it cannot: proxies whose traps throw, revoked proxies — a failed read is never equal);
// - the pairs of `KNOWN_PAIRS` get their known answer, and two twins of plain data are equal;
// - for JSON values: sameStructure(a, b) === (JSON.stringify of both, keys sorted, are equal) —
//   the brief's "same key order" oracle, extended to any order — and it is symmetric; with an
//   `ignore` (patterns drawn from the value's own paths, `*` for some segments), it agrees with
//   a reference walk written here from the contract;
// - a read with mismatches() (origins answering synchronously, in background mode or not, at
//   shadow or live) never fails and resolves with the authoritative origin's value;
//   the check is counted; a comparison of false is explained: kept (unless keep is 0) with
//   old/new the compared values by reference, at most maxDifferences differences, paths that are
//   JSON Pointers, known kinds, added without an old side and removed without a new one, a
//   paths table of at most 33 entries of positive integers; onMismatch (maybe throwing) called
//   exactly once per mismatch, in the caller's async context; with sameStructure() as the
//   comparison, a mismatch exactly when sameStructure() called directly says false;
// - for JSON values, the explanation is exactly the reference walk's differences (document
//   order, kinds, escaped paths, both sides by identity), cut at maxDifferences with
//   `truncated`.
import fc from 'fast-check';
import { AsyncLocalStorage } from 'node:async_hooks';

import { Violation, show } from './harness.mjs';

/** Summed over a run (fuzz/run.mjs prints it). */
export const coverage = {
  comparisons: 0,
  jsonPairs: 0,
  hostilePairs: 0,
  reads: 0,
  explained: 0,
  differences: 0,
  truncated: 0,
  referenceChecked: 0,
  stringifyChecked: 0,
  slowestMs: 0,
  kinds: new Set(),
};

const KINDS = new Set(['changed', 'added', 'removed', 'type']);
/** One comparison or one read of a case slower than this is a hang. */
const SLOW_MS = 1000;
const isObj = (x) => x !== null && typeof x === 'object';
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

// One AsyncLocalStorage for the whole run (see background.mjs: one per case slows a run down).
const als = new AsyncLocalStorage();
let caseTag = 0;

// ---------------------------------------------------------------------------------------------
// Hostile values, by name. Each maker returns a fresh value (a twin is made by calling it again).

function thrower(v) {
  return () => {
    throw v;
  };
}
const ALL_TRAPS = ['get', 'set', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'defineProperty', 'deleteProperty', 'getPrototypeOf', 'setPrototypeOf', 'isExtensible', 'preventExtensions', 'apply', 'construct'];
function throwingProxy(target, v, traps = ALL_TRAPS) {
  const handler = {};
  for (const t of traps) handler[t] = thrower(v);
  return new Proxy(target, handler);
}
function chain(depth, kind) {
  let v = kind === 'array' ? [] : { leaf: true };
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : kind === 'mixed' ? (i % 2 ? [v] : { n: v }) : { a: v };
  return v;
}
function cycle(length) {
  const first = { i: 0 };
  let at = first;
  for (let i = 1; i < length; i++) {
    at.next = { i };
    at = at.next;
  }
  at.next = first;
  return first;
}
function wideObject(n, last = 0) {
  const o = {};
  for (let i = 0; i < n; i++) o[`k${i}`] = i;
  if (last) o[`k${n - 1}`] = last;
  return o;
}
class Thing {
  constructor() {
    this.v = 1;
  }
}
class Arrayish extends Array {}

export const HOSTILE = {
  getterThrowsError: () => Object.defineProperty({ a: 1 }, 'b', { enumerable: true, get: thrower(new Error('getter')) }),
  getterThrowsString: () => Object.defineProperty({ a: 1 }, 'b', { enumerable: true, get: thrower('not an Error') }),
  getterThrowsUndefined: () => Object.defineProperty({}, 'x', { enumerable: true, get: thrower(undefined) }),
  getterFresh: () => Object.defineProperty({}, 'x', { enumerable: true, get: () => ({ fresh: [] }) }),
  getterOnArray: () => Object.defineProperty([1, 2], '1', { get: thrower(new TypeError('element')) }),
  nonEnumerableThrows: () => Object.defineProperty({ a: 1 }, 'hidden', { enumerable: false, get: thrower(new Error('hidden')) }),
  proxyTransparent: () => new Proxy({ a: 1, b: [1, 2] }, {}),
  proxyArray: () => new Proxy([1, { x: 2 }], {}),
  proxyThrowsAll: () => throwingProxy({ a: 1 }, new Error('trap')),
  proxyThrowsAllFn: () => throwingProxy(function target() {}, 'trap value'),
  proxyThrowsArray: () => throwingProxy([1, 2], new RangeError('array trap')),
  proxyThrowsOwnKeys: () => throwingProxy({ a: 1 }, new Error('ownKeys'), ['ownKeys']),
  proxyThrowsGet: () => throwingProxy({ a: 1 }, Symbol('get'), ['get']),
  proxyThrowsDescriptor: () => throwingProxy({ a: 1 }, 7n, ['getOwnPropertyDescriptor']),
  proxyThrowsPrototype: () => throwingProxy({ a: 1 }, new Error('proto'), ['getPrototypeOf']),
  proxyArrayThrowsLength: () =>
    new Proxy([1, 2, 3], {
      get(t, p, r) {
        if (p === 'length') throw new Error('length');
        return Reflect.get(t, p, r);
      },
    }),
  proxyLyingKeys: () => new Proxy({ a: 1 }, { ownKeys: () => ['a', 'ghost', 'ghost2'] }),
  proxyHugeLength: () => new Proxy([], { get: (t, p, r) => (p === 'length' ? 2 ** 32 - 1 : Reflect.get(t, p, r)) }),
  revoked: () => {
    const { proxy, revoke } = Proxy.revocable({ a: 1 }, {});
    revoke();
    return proxy;
  },
  revokedArray: () => {
    const { proxy, revoke } = Proxy.revocable([1], {});
    revoke();
    return proxy;
  },
  revokedFn: () => {
    const { proxy, revoke } = Proxy.revocable(() => 1, {});
    revoke();
    return proxy;
  },
  deepObject: () => chain(10000, 'object'),
  deepArray: () => chain(10000, 'array'),
  deepMixed: () => chain(10000, 'mixed'),
  deep40: () => chain(40, 'mixed'),
  deep63: () => chain(63, 'object'),
  deep65: () => chain(65, 'object'),
  cyclicSelf: () => {
    const o = { a: 1 };
    o.self = o;
    return o;
  },
  cyclicArray: () => {
    const a = [1];
    a.push(a);
    return a;
  },
  mutual: () => {
    const a = { name: 'a' };
    const b = { name: 'b', a };
    a.b = b;
    return { a, b };
  },
  cycleOf3: () => cycle(3),
  cycleOf100: () => cycle(100),
  wide10k: () => wideObject(10000),
  wide10kLastDiffers: () => wideObject(10000, -1),
  wide20k: () => wideObject(20000),
  array10k: () => Array.from({ length: 10000 }, (_, i) => i),
  sparse: () => [, 1, , 3], // eslint-disable-line no-sparse-arrays
  sparseHuge: () => {
    const a = [];
    a[1e6] = 1;
    return a;
  },
  holeVsUndefined: () => [undefined, 1],
  symbol: () => Symbol('s'),
  symbolKeyed: () => ({ [Symbol('k')]: 1, a: 1 }),
  symbolValue: () => ({ s: Symbol.for('shared') }),
  bigint: () => 2n ** 70n,
  bigintInside: () => ({ n: 1n, m: [-(2n ** 64n)] }),
  fn: () => () => 1,
  classInstance: () => new Thing(),
  arraySubclass: () => Arrayish.from([1, 2]),
  nullProto: () => Object.assign(Object.create(null), { a: 1, b: { c: 2 } }),
  map: () => new Map([['a', 1]]),
  set: () => new Set([1]),
  weakMap: () => new WeakMap(),
  regexp: () => /x/g,
  uint8: () => new Uint8Array([1, 2, 3]),
  arrayBuffer: () => new ArrayBuffer(8),
  error: () => new Error('value'),
  boxedString: () => new String('s'), // eslint-disable-line no-new-wrappers
  date: () => new Date(1000),
  dateLater: () => new Date(2000),
  invalidDate: () => new Date(NaN),
  dateWithProps: () => Object.assign(new Date(1000), { extra: 1 }),
  nan: () => NaN,
  negZero: () => -0,
  infinity: () => -Infinity,
  undef: () => undefined,
  loneSurrogate: () => '\uD800',
  otherLoneSurrogate: () => '\uDBFF',
  surrogateInKey: () => ({ '\uD800': 1, '\uDC00x': 2 }),
  loneKeyA: () => ({ '\uD800': 1 }),
  loneKeyB: () => ({ '\uDBFF': 1 }),
  hugeString: () => 'é😀'.repeat(1 << 18),
  frozen: () => Object.freeze({ a: Object.freeze([1]) }),
  toJSONThrows: () => ({ a: 1, toJSON: thrower(new Error('toJSON')) }),
  valueOfThrows: () => ({ valueOf: thrower('valueOf'), toString: thrower('toString'), [Symbol.toPrimitive]: thrower('prim') }),
  protoIsThrowingProxy: () => Object.create(throwingProxy({}, new Error('proto trap'))),
  keysNamedLikeProto: () => JSON.parse('{"__proto__": {"a": 1}, "constructor": 1, "prototype": 2}'),
  keysWithEscapes: () => ({ '~': 1, '/': 2, '~1': 3, '': 4, '*': 5 }),
};
export const HOSTILE_NAMES = Object.keys(HOSTILE);
/** Hostile values that are plain acyclic data (sameStructure of two twins must be true). */
const PLAIN_TWINS = new Set(['deep40', 'holeVsUndefined', 'frozen', 'keysWithEscapes', 'loneKeyA', 'keysNamedLikeProto', 'date', 'nan', 'negZero', 'infinity', 'undef', 'loneSurrogate', 'hugeString', 'bigint', 'bigintInside', 'surrogateInKey', 'symbolValue', 'sparse']);
/**
 * Hostile values the walk cannot read at all (their shape or their keys): a failed read is never
 * taken for equal, and the binding reads a value's shape before it sees that both sides are one
 * reference, so `sameStructure(x, x)` of these is false. Not pinned down either way here.
 */
const UNREADABLE = new Set(['proxyThrowsAll', 'proxyThrowsArray', 'proxyThrowsOwnKeys', 'proxyThrowsDescriptor', 'proxyThrowsPrototype', 'proxyArrayThrowsLength', 'revoked', 'revokedArray']);
/** Values of pairs whose structural answer is known, [name, name, expected]. */
export const KNOWN_PAIRS = [
  ['loneSurrogate', 'otherLoneSurrogate', false],
  ['loneKeyA', 'loneKeyB', false],
  ['date', 'dateLater', false],
  ['nan', 'negZero', false],
  ['wide10k', 'wide10kLastDiffers', false],
  ['deep63', 'deep65', false],
  ['cyclicSelf', 'cyclicArray', false],
  ['classInstance', 'classInstance', false], // two instances: by identity
  ['fn', 'fn', false],
  ['map', 'map', false],
  ['symbol', 'symbol', false],
];

/** How a hostile value is placed in a pair. */
export const PLACEMENTS = ['same', 'twin', 'vsPlain', 'plainVs', 'nestedTwin', 'nestedVsPlain'];

/** A pair [old, new] of a hostile value placed as `placement`. */
export function hostilePair(name, placement) {
  const make = HOSTILE[name];
  switch (placement) {
    case 'same': {
      const x = make();
      return [x, x];
    }
    case 'twin':
      return [make(), make()];
    case 'vsPlain':
      return [make(), { a: 1 }];
    case 'plainVs':
      return [[1, 'x'], make()];
    case 'nestedTwin':
      return [{ id: 1, v: make(), tail: [1] }, { id: 1, v: make(), tail: [2] }];
    default: // nestedVsPlain
      return [{ id: 1, v: make() }, { id: 1, v: null, extra: make() }];
  }
}

// ---------------------------------------------------------------------------------------------
// JSON values: copies, changes, a reference walk

/** A deep copy of a JSON value, keys in the same order (own data properties, `__proto__` too). */
export function copy(v) {
  if (Array.isArray(v)) return v.map(copy);
  if (isObj(v)) {
    const o = {};
    for (const k of Object.keys(v)) Object.defineProperty(o, k, { value: copy(v[k]), enumerable: true, writable: true, configurable: true });
    return o;
  }
  return v;
}
const put = (o, k, value) => Object.defineProperty(o, k, { value, enumerable: true, writable: true, configurable: true });

/** Do the keys two JSON values share come in the same order, at every position both have? */
export function sameKeyOrder(a, b) {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (!sameKeyOrder(a[i], b[i])) return false;
    return true;
  }
  if (isObj(a) && isObj(b) && !Array.isArray(a) && !Array.isArray(b)) {
    const inB = new Set(Object.keys(b));
    const inA = new Set(Object.keys(a));
    const fromA = Object.keys(a).filter((k) => inB.has(k));
    const fromB = Object.keys(b).filter((k) => inA.has(k));
    return fromA.every((k, i) => k === fromB[i] && sameKeyOrder(a[k], b[k]));
  }
  return true;
}

/** A deep copy of a JSON value with every object's keys in another order (rotated by `turn`, reversed when odd). */
export function reordered(v, turn) {
  if (Array.isArray(v)) return v.map((x) => reordered(x, turn + 1));
  if (!isObj(v)) return v;
  let keys = Object.keys(v);
  if (keys.length > 1) {
    const r = turn % keys.length;
    keys = [...keys.slice(r), ...keys.slice(0, r)];
    if (turn % 2) keys.reverse();
  }
  const o = {};
  for (const k of keys) put(o, k, reordered(v[k], turn + 1));
  return o;
}

/** JSON text with every object's keys sorted: equal exactly when two JSON values are structurally equal. */
export function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObj(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

/** Every position of a JSON value as [parent, key] (the root's parent is null), document order. */
function positions(v, out = [[null, null]]) {
  if (Array.isArray(v)) v.forEach((x, i) => (out.push([v, i]), positions(x, out)));
  else if (isObj(v)) for (const k of Object.keys(v)) out.push([v, k]), positions(v[k], out);
  return out;
}

/** Applies one change recipe to a copy of `a`; `b` is the new value it needs. */
export function changed(a, change) {
  const root = { r: copy(a) };
  const all = positions(root.r).map(([parent, key]) => (parent === null ? [root, 'r'] : [parent, key]));
  const [parent, key] = all[change.at % all.length];
  switch (change.m) {
    case 'replace':
      put(parent, key, change.v);
      break;
    case 'drop':
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else if (parent === root) root.r = undefined;
      else delete parent[key];
      break;
    default: {
      // 'add': a key (or an element) next to the chosen position, or under it
      const target = isObj(parent[key]) ? parent[key] : parent;
      if (Array.isArray(target)) target.push(change.v);
      else put(target, change.key, change.v);
    }
  }
  return root.r;
}

const kindOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const sameLeaf = (a, b) => a === b || (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b));
const escape = (s) => String(s).replaceAll('~', '~0').replaceAll('/', '~1');

/** Does a pattern (segments, '*' any) cover the position with these raw segments? */
function ignored(patterns, segments) {
  return patterns.some((p) => p.length <= segments.length && p.every((s, i) => s === '*' || String(s) === String(segments[i])));
}

/**
 * The differences of two JSON values as the contract describes them: depth first, the old
 * value's keys in its order then the new value's own keys, indices ascending; `patterns` are
 * parsed ignore patterns. [{ path, kind, old, new, hasOld, hasNew }].
 */
export function referenceDifferences(a, b, patterns = []) {
  const out = [];
  const walk = (x, y, segments) => {
    if (ignored(patterns, segments)) return;
    const path = segments.map((s) => `/${escape(s)}`).join('');
    const kx = kindOf(x);
    const ky = kindOf(y);
    if (kx !== ky) return void out.push({ path, kind: 'type', old: x, new: y });
    if (kx === 'array') {
      const n = Math.max(x.length, y.length);
      for (let i = 0; i < n; i++) {
        if (i < x.length && i < y.length) walk(x[i], y[i], [...segments, i]);
        else if (!ignored(patterns, [...segments, i])) {
          const p = `${path}/${i}`;
          out.push(i < x.length ? { path: p, kind: 'removed', old: x[i], new: undefined } : { path: p, kind: 'added', old: undefined, new: y[i] });
        }
      }
      return;
    }
    if (kx === 'object') {
      const yKeys = new Set(Object.keys(y));
      const xKeys = Object.keys(x);
      for (const k of xKeys) {
        if (yKeys.has(k)) walk(x[k], y[k], [...segments, k]);
        else if (!ignored(patterns, [...segments, k])) out.push({ path: `${path}/${escape(k)}`, kind: 'removed', old: x[k], new: undefined });
      }
      const xSet = new Set(xKeys);
      for (const k of Object.keys(y)) {
        if (!xSet.has(k) && !ignored(patterns, [...segments, k])) out.push({ path: `${path}/${escape(k)}`, kind: 'added', old: undefined, new: y[k] });
      }
      return;
    }
    if (!sameLeaf(x, y)) out.push({ path, kind: 'changed', old: x, new: y });
  };
  walk(a, b, []);
  return out;
}

/** A pattern picked from `value`'s own paths: `picks` choose a child per level, `stars` make segments '*'. */
export function patternFrom(value, picks, stars) {
  const segments = [];
  try {
    let at = value;
    for (let i = 0; i < picks.length; i++) {
      // (hostile values: a proxy may claim any length, or throw from any trap)
      const keys = Array.isArray(at) ? Array.from({ length: Math.min(at.length, 100) }, (_, j) => j) : isObj(at) ? Object.keys(at).slice(0, 100) : [];
      if (keys.length === 0) break;
      const key = keys[picks[i] % keys.length];
      segments.push(stars[i] ? '*' : key);
      at = at[key];
    }
  } catch {
    if (segments.length === 0) segments.push('not-there');
  }
  return segments;
}
const pointer = (segments) => segments.map((s) => `/${s === '*' ? '*' : escape(s)}`).join('');

// ---------------------------------------------------------------------------------------------
// Recipes

const json = fc.jsonValue({ maxDepth: 4 });
const changeRecipe = fc.oneof(
  fc.record({ m: fc.constant('replace'), at: fc.nat(), v: json }),
  fc.record({ m: fc.constant('drop'), at: fc.nat() }),
  fc.record({ m: fc.constant('add'), at: fc.nat(), key: fc.constantFrom('added', '~', 'a/b', '', '0', '__proto__', 'x'), v: json }),
);
const jsonPair = fc
  .record({
    a: json,
    b: fc.oneof(
      { weight: 2, arbitrary: fc.constant({ m: 'copy' }) },
      { weight: 4, arbitrary: fc.array(changeRecipe, { minLength: 1, maxLength: 3 }).map((changes) => ({ m: 'change', changes })) },
      { weight: 1, arbitrary: json.map((v) => ({ m: 'other', v })) },
    ),
  })
  .map((r) => ({ k: 'json', ...r }));
const hostilePairRecipe = fc
  .record({ name: fc.constantFrom(...HOSTILE_NAMES), placement: fc.constantFrom(...PLACEMENTS), swap: fc.boolean() })
  .map((r) => ({ k: 'hostile', ...r }));
const knownPairRecipe = fc.nat({ max: KNOWN_PAIRS.length - 1 }).map((i) => ({ k: 'known', i }));
const pairRecipe = fc.oneof({ weight: 5, arbitrary: jsonPair }, { weight: 4, arbitrary: hostilePairRecipe }, { weight: 1, arbitrary: knownPairRecipe });
const ignoreRecipe = fc.option(
  fc.array(fc.record({ picks: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), stars: fc.array(fc.boolean(), { maxLength: 4 }) }), { minLength: 1, maxLength: 3 }),
  { nil: undefined, freq: 2 },
);

/** The live pair of a recipe: { a, b, json (both JSON values), known (expected answer) }. */
function materializePair(r) {
  if (r.k === 'json') {
    const a = r.a;
    let b;
    if (r.b.m === 'copy') b = copy(a);
    else if (r.b.m === 'other') b = r.b.v;
    else b = r.b.changes.reduce((v, c) => changed(v, c), a);
    return { a, b, json: b !== undefined };
  }
  if (r.k === 'known') {
    const [x, y, expected] = KNOWN_PAIRS[r.i];
    return { a: HOSTILE[x](), b: HOSTILE[y](), known: expected };
  }
  const [a, b] = hostilePair(r.name, r.placement);
  const twins = r.placement === 'twin' && PLAIN_TWINS.has(r.name);
  const unreadable = UNREADABLE.has(r.name);
  return r.swap ? { a: b, b: a, twins, unreadable } : { a, b, twins, unreadable };
}

/** Ignore patterns for a pair: parsed segments and the JSON Pointers handed to sameStructure. */
function materializeIgnore(r, value) {
  if (r === undefined) return undefined;
  const segments = r.map(({ picks, stars }) => patternFrom(value, picks, stars));
  return { segments, pointers: segments.map(pointer) };
}

// ---------------------------------------------------------------------------------------------
// Checks

/** Calls a comparison: it must return a boolean, not throw, and not take long. */
function compare(cx, cmp, a, b, where) {
  const t0 = performance.now();
  const r = cx.call(where, () => cmp(a, b));
  const ms = performance.now() - t0;
  coverage.comparisons++;
  if (ms > coverage.slowestMs) coverage.slowestMs = ms;
  cx.expect(r.ok, `${where} threw ${show(r.error)}`);
  cx.expect(typeof r.value === 'boolean', `${where} returned ${show(r.value)}, not a boolean`);
  if (ms > SLOW_MS) throw new Violation('hang', `${where} took ${Math.round(ms)} ms`);
  return r.value;
}

/** The checks on one pair with sameStructure called directly. */
export function checkSameStructure(cx, pair, ignore) {
  const { a, b } = pair;
  const plain = cx.cutover.sameStructure();
  const made = cx.call('sameStructure({ ignore })', () => cx.cutover.sameStructure(ignore ? { ignore: ignore.pointers } : undefined));
  cx.expect(made.ok && typeof made.value === 'function', `sameStructure(${ignore ? JSON.stringify(ignore.pointers) : ''}) → ${show(made.error ?? made.value)}`);
  const cmp = made.value;
  const ab = compare(cx, cmp, a, b, 'sameStructure(a, b)');
  const ba = compare(cx, cmp, b, a, 'sameStructure(b, a)');
  const aa = compare(cx, plain, a, a, 'sameStructure(a, a)');
  const bb = compare(cx, plain, b, b, 'sameStructure(b, b)');
  if (!pair.unreadable) cx.expect(aa && bb, `sameStructure(x, x) is false (a: ${aa}, b: ${bb})`);
  if (pair.json) {
    coverage.jsonPairs++;
    const equal = canonical(a) === canonical(b);
    const plainAb = ignore ? compare(cx, plain, a, b, 'sameStructure()(a, b)') : ab;
    cx.expect(plainAb === equal, `sameStructure()(a, b) is ${plainAb}, JSON with sorted keys says ${equal}: ${canonical(a).slice(0, 300)} vs ${canonical(b).slice(0, 300)}`);
    if (sameKeyOrder(a, b)) {
      // the keys both sides have, in the same order everywhere: JSON.stringify itself is the oracle
      cx.expect(plainAb === (JSON.stringify(a) === JSON.stringify(b)), `sameStructure()(a, b) is ${plainAb}, JSON.stringify says otherwise`);
      coverage.stringifyChecked++;
    }
    const expected = referenceDifferences(a, b, ignore?.segments ?? []).length === 0;
    cx.expect(ab === expected, `sameStructure({ ignore: ${JSON.stringify(ignore?.pointers)} })(a, b) is ${ab}, the reference walk says ${expected}`);
    cx.expect(ab === ba, `not symmetric: (a, b) ${ab}, (b, a) ${ba}`);
  } else {
    coverage.hostilePairs++;
    if (pair.known !== undefined && !ignore) cx.expect(ab === pair.known, `expected ${pair.known}, got ${ab}`);
    if (pair.twins && !ignore) cx.expect(ab === true, 'two twins of plain data are not equal');
  }
  return ab;
}

/** Checks one kept or told Mismatch against the read that made it. */
function checkMismatch(cx, m, { a, b, maxDifferences, flagKey, context, stage }) {
  cx.expect(isObj(m), `a mismatch that is not an object: ${show(m)}`);
  cx.expect(Object.is(m.old, a) && Object.is(m.new, b), 'mismatch.old/new are not the compared values by reference');
  cx.expect(m.flagKey === flagKey && m.stage === stage && m.context === context, `flagKey/stage/context: ${show(m.flagKey)} ${show(m.stage)}`);
  cx.expect(Number.isFinite(m.at), `at ${show(m.at)}`);
  cx.expect(typeof m.truncated === 'boolean', `truncated ${show(m.truncated)}`);
  cx.expect(Array.isArray(m.differences) && m.differences.length <= maxDifferences, `${m.differences?.length} differences, maxDifferences ${maxDifferences}`);
  for (const d of m.differences) {
    cx.expect(typeof d.path === 'string' && (d.path === '' || d.path.startsWith('/')), `path ${show(d.path)} is not a JSON Pointer`);
    cx.expect(!/~[^01]|~$/.test(d.path), `path ${JSON.stringify(d.path)} has a bad escape`);
    cx.expect(KINDS.has(d.kind), `kind ${show(d.kind)}`);
    coverage.kinds.add(d.kind);
    if (d.kind === 'added') cx.expect(d.old === undefined, 'an added difference with an old side');
    if (d.kind === 'removed') cx.expect(d.new === undefined, 'a removed difference with a new side');
  }
}

// ---------------------------------------------------------------------------------------------
// The properties

const sameStructureProp = {
  name: 'sameStructure hostile values',
  deadlineMs: 8000,
  arbitrary: fc.array(fc.record({ pair: pairRecipe, ignore: ignoreRecipe }), { minLength: 1, maxLength: 6 }),
  run(cases, cx) {
    for (const c of cases) {
      const pair = materializePair(c.pair);
      checkSameStructure(cx, pair, materializeIgnore(c.ignore, pair.a));
    }
  },
};

const mismatchesProp = {
  name: 'mismatches() hostile values',
  deadlineMs: 8000,
  arbitrary: fc.record({
    stage: fc.constantFrom('shadow', 'live'),
    background: fc.boolean(),
    order: fc.constantFrom('serial', 'random', 'parallel'),
    keep: fc.oneof(fc.constant(undefined), fc.constantFrom(0, 1, 2, 1000)),
    maxDifferences: fc.oneof(fc.constant(undefined), fc.integer({ min: 1, max: 40 })),
    onMismatch: fc.constantFrom('none', 'record', 'throw', 'throwString', 'reenter'),
    comparison: fc.constantFrom('false', 'sameStructure', 'sameStructureIgnore'),
    reads: fc.array(fc.record({ pair: pairRecipe, ignore: ignoreRecipe }), { minLength: 1, maxLength: 4 }),
  }),
  async run(input, cx) {
    const { cutover } = cx;
    const tag = ++caseTag;
    const maxDifferences = input.maxDifferences ?? 16;
    const keep = input.keep ?? 20;
    const told = [];
    let current = null; // the pair being read now
    const onMismatch = {
      none: undefined,
      record: (m) => void told.push({ m, store: als.getStore() }),
      throw: (m) => {
        told.push({ m, store: als.getStore() });
        throw new Error('onMismatch threw');
      },
      throwString: (m) => {
        told.push({ m, store: als.getStore() });
        throw cx.env.thrown.add('onMismatch string');
      },
      reenter: (m) => {
        told.push({ m, store: als.getStore() });
        migrator.stats();
        migrator.mismatches();
        cutover.sameStructure()(m.old, m.new);
      },
    }[input.onMismatch];
    // sameStructureIgnore: the first read's patterns (drawn from its old value) for every read
    const pairs = input.reads.map((r) => materializePair(r.pair));
    const firstIgnore = input.comparison === 'sameStructureIgnore' ? materializeIgnore(input.reads[0].ignore ?? [{ picks: [0], stars: [] }], pairs[0].a) : undefined;
    const direct =
      input.comparison === 'false' ? null : cutover.sameStructure(firstIgnore ? { ignore: firstIgnore.pointers } : undefined);
    const comparison = input.comparison === 'false' ? () => false : direct;
    const builder = new cutover.MigratorBuilder({ migrationVariation: () => input.stage }, { logger: silentLogger });
    if (input.background) builder.background();
    builder.readExecutionOrder(input.order);
    const opts = {};
    if (input.keep !== undefined) opts.keep = input.keep;
    if (input.maxDifferences !== undefined) opts.maxDifferences = input.maxDifferences;
    if (onMismatch) opts.onMismatch = onMismatch;
    builder.mismatches(opts);
    // Both origins answer synchronously: an async function answering a proxy whose `get` throws
    // rejects before cutover sees the value (the engine reads `then` to adopt it).
    builder.read(
      () => current.a,
      () => current.b,
      comparison,
    );
    builder.write(
      () => 1,
      () => 1,
    );
    const migrator = builder.build();
    let expectedMismatches = 0;
    for (let i = 0; i < pairs.length; i++) {
      const pair = pairs[i];
      current = pair;
      const context = { kind: 'user', key: `fuzz-${i}` };
      const before = told.length;
      const keptBefore = migrator.mismatches().length;
      const checkedBefore = migrator.stats().read.consistency.checked;
      const t0 = performance.now();
      const call = cx.call('Migrator#read', () => als.run({ tag, i }, () => migrator.read('fuzz-flag', context, 'off')));
      cx.expect(call.ok, `read threw ${show(call.error)}`);
      const out = await cx.settle('read', call.value, { ms: SLOW_MS });
      cx.expect(out.status === 'fulfilled', `read rejected: ${show(out.reason)}`);
      const auth = input.stage === 'shadow' ? pair.a : pair.b;
      cx.expect(out.value.success === true && Object.is(out.value.value, auth), `read → ${show(out.value.value)} (success ${out.value.success})`);
      if (input.background) {
        const s = await cx.settle('settled()', migrator.settled(), { ms: SLOW_MS });
        cx.expect(s.status === 'fulfilled', 'settled() did not resolve');
      }
      const ms = performance.now() - t0;
      if (ms > coverage.slowestMs) coverage.slowestMs = ms;
      coverage.reads++;
      const stats = migrator.stats().read.consistency;
      cx.expect(stats.checked === checkedBefore + 1, `the check was not counted (checked ${stats.checked})`);
      // Is this read a mismatch? `false` always; sameStructure when it says so called directly.
      const mismatch = direct === null ? true : !compare(cx, direct, pair.a, pair.b, 'sameStructure (direct)');
      if (mismatch) expectedMismatches++;
      const newTold = told.slice(before);
      cx.expect(newTold.length === (onMismatch && mismatch ? 1 : 0), `onMismatch called ${newTold.length} times for ${mismatch ? 'a mismatch' : 'a consistent check'}`);
      const kept = migrator.mismatches();
      cx.expect(Array.isArray(kept) && kept.length === Math.min(keep, expectedMismatches), `${kept.length} kept, keep ${keep}, ${expectedMismatches} mismatches`);
      const where = { a: pair.a, b: pair.b, maxDifferences, flagKey: 'fuzz-flag', context, stage: input.stage };
      for (const t of newTold) {
        checkMismatch(cx, t.m, where);
        cx.expect(t.store?.tag === tag && t.store?.i === i, `onMismatch outside the caller's async context (${show(t.store?.i)})`);
      }
      let m = newTold[0]?.m;
      if (mismatch && keep > 0) {
        m = kept.at(-1);
        checkMismatch(cx, m, where);
        cx.expect(keptBefore < keep ? kept.length === keptBefore + 1 : kept.length === keep, 'the ring did not take the mismatch');
      }
      if (mismatch && m) {
        coverage.explained++;
        coverage.differences += m.differences.length;
        if (m.truncated) coverage.truncated++;
        if (pair.json) {
          const ref = referenceDifferences(pair.a, pair.b, firstIgnore?.segments ?? []);
          const want = ref.slice(0, maxDifferences);
          const got = m.differences.map((d) => `${d.kind} ${JSON.stringify(d.path)}`);
          cx.expect(
            JSON.stringify(got) === JSON.stringify(want.map((d) => `${d.kind} ${JSON.stringify(d.path)}`)),
            `explanation ${JSON.stringify(got).slice(0, 400)}, the reference walk ${JSON.stringify(want.map((d) => `${d.kind} ${d.path}`)).slice(0, 400)}`,
          );
          for (const [j, d] of m.differences.entries()) {
            cx.expect(Object.is(d.old, want[j].old) && Object.is(d.new, want[j].new), `difference ${d.path}: old/new are not the values there`);
          }
          cx.expect(m.truncated === ref.length > maxDifferences, `truncated ${m.truncated}, ${ref.length} differences, maxDifferences ${maxDifferences}`);
          coverage.referenceChecked++;
        }
      }
      const paths = stats.paths;
      cx.expect(isObj(paths) && Object.getPrototypeOf(paths) === Object.prototype, 'paths is not a plain object');
      const entries = Object.entries(paths);
      cx.expect(entries.length <= 33, `${entries.length} entries in the paths table`);
      for (const [p, n] of entries) {
        cx.expect(Number.isInteger(n) && n > 0, `paths[${JSON.stringify(p)}] = ${show(n)}`);
        cx.expect(p === '_OTHER' || p === '' || p.startsWith('/'), `paths key ${JSON.stringify(p)}`);
      }
      if (m && mismatch) {
        for (const d of m.differences) {
          const normalised = pair.json ? normalise(pair.a, pair.b, d.path) : null;
          if (normalised !== null) cx.expect(normalised in paths || '_OTHER' in paths, `the paths table lacks ${normalised}`);
        }
      }
    }
  },
};

/** The normalised form of a JSON value's path (indices as '*'), found by walking both values. */
function normalise(a, b, path) {
  if (path === '') return '';
  const segments = path.slice(1).split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  let x = a;
  let y = b;
  const out = [];
  for (const s of segments) {
    const isIndex = Array.isArray(x) || Array.isArray(y);
    out.push(isIndex ? '*' : escape(s));
    x = isObj(x) ? x[s] : undefined;
    y = isObj(y) ? y[s] : undefined;
  }
  return out.map((s) => `/${s}`).join('');
}

/** An object of JSON values with repeated strings, so that reordering its keys moves equal strings. */
const repetitive = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e', '~', 'x/y'), fc.oneof(fc.constantFrom('', 'x', 'y'), fc.constantFrom(0, 1, null, true)), { maxKeys: 7 });

const reorderedProp = {
  name: 'sameStructure reordered keys',
  arbitrary: fc.array(
    fc.record({ a: fc.oneof(json, repetitive, fc.array(repetitive, { maxLength: 3 })), turn: fc.nat({ max: 6 }), change: fc.option(changeRecipe, { nil: undefined }) }),
    { minLength: 1, maxLength: 6 },
  ),
  async run(cases, cx) {
    const cmp = cx.cutover.sameStructure();
    const builder = new cx.cutover.MigratorBuilder({ migrationVariation: () => 'shadow' }, { logger: silentLogger });
    let current;
    const migrator = builder
      .mismatches({ keep: 1, maxDifferences: 1000 })
      .read(() => current[0], () => current[1], () => false)
      .write(() => 1, () => 1)
      .build();
    for (const c of cases) {
      let b = reordered(c.a, c.turn);
      if (c.change) b = changed(b, c.change);
      if (b === undefined) continue;
      const equal = canonical(c.a) === canonical(b);
      const ab = compare(cx, cmp, c.a, b, 'sameStructure(a, reordered a)');
      // (a fixed opening, longer than a failure's signature, so that one bug is one failure)
      cx.expect(ab === equal, `${equal ? 'equal JSON values, keys in another order,' : 'different JSON values'} compared ${ab ? 'equal' : 'unequal'} by sameStructure() (the same key set and values, or not, whatever the order of the keys): ${JSON.stringify(c.a).slice(0, 200)} vs ${JSON.stringify(b).slice(0, 200)}`);
      current = [c.a, b];
      const out = await cx.settle('read', migrator.read('fuzz-flag', { kind: 'user', key: 'k' }, 'off'), { ms: SLOW_MS });
      cx.expect(out.status === 'fulfilled' && out.value.success === true, 'read failed');
      const got = migrator.mismatches()[0].differences.map((d) => `${d.kind} ${d.path}`);
      const want = referenceDifferences(c.a, b).map((d) => `${d.kind} ${d.path}`);
      cx.expect(
        JSON.stringify(got) === JSON.stringify(want),
        `the explanation of a copy with its keys in another order is not the reference walk's: the same differences, in document order, with the same kinds and paths, are expected, equal values never listed: ${JSON.stringify(got).slice(0, 300)} vs ${JSON.stringify(want).slice(0, 300)}`,
      );
    }
  },
};

export { sameStructureProp as SAME_STRUCTURE_PROPERTY, mismatchesProp as MISMATCHES_PROPERTY };

/** In PROPERTIES (properties.mjs), on top of the others' shares: 30, 30 and 20 cases in `npm test`'s short run. */
export const DIFFERENCES_PROPERTIES = [
  { prop: sameStructureProp, share: 0.012 },
  { prop: mismatchesProp, share: 0.012 },
  // `todo` while the bug it found is open: fuzz.test.mjs reports it without failing `npm test`.
  { prop: reorderedProp, share: 0.006 },
];
