// Hostile values for fuzzing cutover's JavaScript surface.
//
// fast-check generates *recipes* (plain data, so counterexamples print readably and shrink),
// and `materialize(recipe, env)` turns a recipe into the live value at run time: proxies that
// throw on every trap, throwing getters and conversions, cyclic and very deep objects, 1 MB
// strings, symbols, BigInts, promises that never settle, thenables that misbehave, functions
// that throw non-Errors or return junk. Every value a hostile callback throws or rejects with is
// registered in `env.thrown`, so the oracle can tell "the caller's own value passed through"
// (allowed) from a non-Error made up by cutover (a bug).
//
// This module never imports cutover: whatever needs the package gets it as a parameter.
import fc from 'fast-check';

export const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];
export const ORIGINS = ['old', 'new'];
export const OPERATIONS = ['read', 'write'];
export const ORDERS = ['serial', 'random', 'parallel'];

const MB = 1 << 20;
let hugeAscii;
let hugeUnicode;
/** 1 MB strings, made once (ASCII, and a mix of BMP, astral and lone-surrogate code units). */
export function hugeString(unicode) {
  if (unicode) {
    hugeUnicode ??= 'é😀\uD800z'.repeat(MB / 5);
    return hugeUnicode;
  }
  hugeAscii ??= 'k'.repeat(MB);
  return hugeAscii;
}

/** Registry of the values hostile callbacks threw/rejected with, and bookkeeping for a case. */
export function makeEnv({ tame = false } = {}) {
  const objects = new WeakSet();
  const primitives = new Set();
  const proxies = new WeakSet();
  return {
    /**
     * Tame mode leaves out the inputs of the known bug families (throwing proxies and getters,
     * revoked proxies, errors with throwing accessors, cyclic and very deep values), so a run
     * can look for what hides behind them.
     */
    tame,
    /** Proxies made for the case (a function-target proxy is `typeof 'function'` but hostile). */
    proxies,
    isFunction: (v) => typeof v === 'function' && !proxies.has(v),
    thrown: {
      add(v) {
        if ((typeof v === 'object' && v !== null) || typeof v === 'function') objects.add(v);
        else primitives.add(v);
        return v;
      },
      has(v) {
        if ((typeof v === 'object' && v !== null) || typeof v === 'function') return objects.has(v);
        return primitives.has(v);
      },
    },
    /** Signals created for the case: aborted by `abortAll()` at the end so nothing lingers. */
    controllers: [],
    timers: [],
    cleanup() {
      for (const t of this.timers) clearTimeout(t);
      this.timers.length = 0;
      this.controllers.length = 0;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Recipes

const specialNumbers = fc.constantFrom(
  NaN, Infinity, -Infinity, -0, 0, 1, -1, 0.5, 1.5, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53, -(2 ** 53),
  9.0e15, 1e21, Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON, 1000, 5, 3,
);
const domainStrings = fc.constantFrom(
  ...STAGES, ...ORIGINS, ...OPERATIONS, ...ORDERS, '', ' ', '__proto__', 'constructor', 'prototype', 'multi', 'kind',
  'user', 'user-key', 'OFF', 'Shadow', 'shadow ', 'then', 'toString', 'GET', 'SMEMBERS', '\u0000', '\uD800', '😀', 'é',
  '12', ' 1700000000000 ', 'NaN', '-1', '1e3', 'seg.g1',
);

/** Primitive recipes: `{k:'v', v}` (JSON-able primitives and numbers fast-check prints fine). */
export const primitive = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(undefined, null, true, false).map((v) => ({ k: 'v', v })) },
  { weight: 3, arbitrary: specialNumbers.map((v) => ({ k: 'v', v })) },
  { weight: 1, arbitrary: fc.double().map((v) => ({ k: 'v', v })) },
  { weight: 1, arbitrary: fc.integer().map((v) => ({ k: 'v', v })) },
  { weight: 4, arbitrary: domainStrings.map((v) => ({ k: 'v', v })) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }).map((v) => ({ k: 'v', v })) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map((v) => ({ k: 'v', v })) },
  { weight: 1, arbitrary: fc.boolean().map((unicode) => ({ k: 'huge', unicode })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }).map((d) => ({ k: 'symbol', d })) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((v) => ({ k: 'bigint', v })) },
);

/** What a hostile callback throws: non-Errors mostly, sometimes an Error or a weird error. */
export const thrownValue = fc.oneof(
  fc.constantFrom(undefined, null, 0, 42, 'boom', '', NaN, true).map((v) => ({ k: 'v', v })),
  fc.constant({ k: 'symbol', d: 'thrown' }),
  fc.constant({ k: 'bigint', v: 7n }),
  fc.constant({ k: 'error', cls: 'Error' }),
  fc.constant({ k: 'error', cls: 'TypeError' }),
  fc.constant({ k: 'weirdError' }),
  fc.constant({ k: 'throwProxy', v: { k: 'v', v: 'proxy-thrown' } }),
  fc.constant({ k: 'plain', entries: [['message', { k: 'v', v: 'not an Error' }]] }),
);

const KEYS = fc.constantFrom(
  'key', 'kind', 'value', 'then', 'signal', 'logger', 'store', 'migrationVariation', 'trackMigrationOp', 'getMetadata',
  'getMembership', 'getUserMembership', 'close', 'command', 'pipeline', 'lastUpToDate', 'reason', 'tracker',
  'checkRatio', 'samplingRatio', 'flagVersion', 'variationIndex', 'contextCacheSize', 'contextCacheTimeMs',
  'statusPollIntervalMs', 'staleAfterMs', 'queryTimeoutMs', 'prefix', '__proto__', 'constructor', 'prototype',
  'seg.g1', 'seg.g2', 'x', 'user', 'org', 'message', 'name', 'error', 'op', 'createEvent',
);

/**
 * Any value, as a recipe. `depth` bounds nesting of generated containers (not the 'deep'
 * recipe, which builds thousands of levels on purpose).
 */
export const anyValue = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 10, arbitrary: primitive },
    { weight: 3, arbitrary: tie('container') },
    { weight: 3, arbitrary: tie('hostile') },
    { weight: 2, arbitrary: tie('fn') },
    { weight: 1, arbitrary: tie('promise') },
    { weight: 1, arbitrary: tie('builtin') },
  ),
  container: fc.oneof(
    { depthSize: 'small' },
    fc.array(fc.tuple(KEYS, tie('any')), { maxLength: 4 }).map((entries) => ({ k: 'plain', entries })),
    fc.array(fc.tuple(KEYS, tie('any')), { maxLength: 4 }).map((entries) => ({ k: 'nullproto', entries })),
    fc.array(tie('any'), { maxLength: 4 }).map((items) => ({ k: 'array', items })),
    tie('any').map((of) => ({ k: 'frozen', of })),
  ),
  hostile: fc.oneof(
    thrownValue.map((v) => ({ k: 'throwProxy', v })),
    fc.constant({ k: 'revoked' }),
    fc.tuple(fc.uniqueArray(KEYS, { minLength: 1, maxLength: 4 }), thrownValue).map(([keys, v]) => ({
      k: 'getters',
      keys,
      v,
    })),
    fc
      .tuple(fc.constantFrom('toString', 'valueOf', 'toPrimitive', 'all'), thrownValue)
      .map(([which, v]) => ({ k: 'convThrow', which, v })),
    fc.constantFrom('object', 'array', 'context').map((shape) => ({ k: 'cyclic', shape })),
    fc
      .tuple(fc.constantFrom('object', 'array', 'context'), fc.constantFrom(50, 1000, 20000))
      .map(([shape, depth]) => ({ k: 'deep', shape, depth })),
    fc.constantFrom(10, 1000, 100000).map((n) => ({ k: 'wide', n })),
  ),
  fn: fc.oneof(
    tie('behavior').map((b) => ({ k: 'fn', b })),
    fc.constant({ k: 'fn', b: { m: 'return', v: { k: 'v', v: undefined } } }),
  ),
  behavior: fc.oneof(
    { depthSize: 'small' },
    tie('any').map((v) => ({ m: 'return', v })),
    thrownValue.map((v) => ({ m: 'throw', v })),
    tie('any').map((v) => ({ m: 'resolve', v })),
    thrownValue.map((v) => ({ m: 'reject', v })),
    fc.constant({ m: 'never' }),
    fc.constantFrom('never', 'throw', 'twice', 'resolveThenThrow').map((t) => ({ m: 'thenable', t })),
  ),
  promise: fc.oneof(
    fc.constant({ k: 'never' }),
    thrownValue.map((v) => ({ k: 'rejected', v })),
    tie('any').map((v) => ({ k: 'resolved', v })),
    fc.constantFrom('never', 'throw', 'twice', 'resolveThenThrow').map((t) => ({ k: 'thenable', t })),
  ),
  builtin: fc.oneof(
    fc.constantFrom('map', 'set', 'date', 'badDate', 'regexp', 'uint8', 'arraybuffer', 'weakmap', 'class').map((t) => ({
      k: 'builtin',
      t,
    })),
    fc.tuple(fc.boolean(), thrownValue).map(([aborted, reason]) => ({ k: 'signal', aborted, reason })),
  ),
})).any;

/** Recipes of behaviours for callbacks (origins, store methods, hosts). */
export const behavior = fc.oneof(
  anyValue.map((v) => ({ m: 'return', v })),
  thrownValue.map((v) => ({ m: 'throw', v })),
  anyValue.map((v) => ({ m: 'resolve', v })),
  thrownValue.map((v) => ({ m: 'reject', v })),
  fc.constant({ m: 'never' }),
  fc.constantFrom('never', 'throw', 'twice', 'resolveThenThrow').map((t) => ({ m: 'thenable', t })),
  fc.tuple(fc.constantFrom(0, 1, 3), anyValue).map(([ms, v]) => ({ m: 'delay', ms, v })),
  fc.constant({ m: 'signal' }),
);

// ---------------------------------------------------------------------------------------------
// Materialization

function throwingHandler(v) {
  const t = () => {
    throw v;
  };
  return {
    get: t, set: t, has: t, ownKeys: t, getOwnPropertyDescriptor: t, defineProperty: t, deleteProperty: t,
    getPrototypeOf: t, setPrototypeOf: t, isExtensible: t, preventExtensions: t, apply: t, construct: t,
  };
}

function weirdError(env) {
  const e = new Error('weird');
  // 'stack' first: redefining it formats the (lazy) stack, which reads name and message.
  for (const key of ['stack', 'message', 'name']) {
    Object.defineProperty(e, key, {
      get() {
        throw env.thrown.add(`${key} getter`);
      },
    });
  }
  return e;
}

function deep(shape, depth) {
  let v = shape === 'array' ? [] : { key: 'leaf' };
  for (let i = 0; i < depth; i++) {
    v = shape === 'array' ? [v] : shape === 'context' ? { kind: 'user', key: `k${i}`, nested: v } : { a: v };
  }
  return v;
}

const wideCache = new Map();
function wide(n) {
  // Built once per size: a 100 000-entry object costs tens of ms to make.
  if (!wideCache.has(n)) {
    const o = {};
    for (let i = 0; i < n; i++) o[`seg${i}.g1`] = i % 3 === 0 ? 'yes' : i % 2 === 0;
    wideCache.set(n, Object.freeze(o));
  }
  return wideCache.get(n);
}

/**
 * Turns a behaviour recipe into the result of one call: returns, throws, or a promise. A promise
 * it returns is marked handled: whoever awaits it still sees the rejection, but a callback whose
 * return value is ignored by contract (tracker methods, listeners, trackMigrationOp, loggers)
 * does not count as an unhandled rejection of cutover's making.
 */
export function act(b, env, args = []) {
  const out = act0(b, env, args);
  if (out instanceof Promise) out.catch(() => {});
  return out;
}

function act0(b, env, args) {
  switch (b.m) {
    case 'signal': {
      // Settles only when the AbortSignal it was given aborts (then rejects with its reason).
      const signal = args[1];
      return new Promise((resolve, reject) => {
        if (!(signal instanceof AbortSignal)) return;
        if (signal.aborted) return reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    }
    case 'return':
      return materialize(b.v, env);
    case 'throw':
      throw env.thrown.add(materialize(b.v, env));
    case 'resolve':
      return Promise.resolve().then(() => materialize(b.v, env));
    case 'reject': {
      const v = env.thrown.add(materialize(b.v, env));
      return Promise.reject(v);
    }
    case 'never':
      return new Promise(() => {});
    case 'thenable':
      return thenable(b.t, env);
    case 'delay':
      return new Promise((resolve) => {
        env.timers.push(setTimeout(() => resolve(materialize(b.v, env)), b.ms));
      });
    default:
      throw new Error(`unknown behaviour ${b.m}`);
  }
}

function thenable(t, env) {
  return {
    then(resolve, reject) {
      switch (t) {
        case 'never':
          return;
        case 'throw':
          throw env.thrown.add('thenable threw');
        case 'twice':
          resolve('first');
          resolve('second');
          reject(env.thrown.add('late reject'));
          return;
        case 'resolveThenThrow':
          resolve('resolved');
          throw env.thrown.add('after resolve');
        default:
          return;
      }
    },
  };
}

const TAMED = new Set(['throwProxy', 'revoked', 'getters', 'weirdError', 'cyclic']);

/** Builds the live value a recipe describes. Fresh objects every call. */
export function materialize(r, env) {
  if (env.tame && TAMED.has(r.k)) return r.k === 'weirdError' ? new Error('tame') : { kind: 'user', key: `tame-${r.k}` };
  if (env.tame && r.k === 'deep') return deep(r.shape, 20);
  switch (r.k) {
    case 'v':
      return r.v;
    case 'huge':
      return hugeString(r.unicode);
    case 'symbol':
      return Symbol(r.d);
    case 'bigint':
      return r.v;
    case 'error':
      return new globalThis[r.cls]('thrown by a hostile callback');
    case 'weirdError':
      return weirdError(env);
    case 'plain': {
      const o = {};
      for (const [key, v] of r.entries) Object.defineProperty(o, key, { value: materialize(v, env), enumerable: true, writable: true, configurable: true });
      return o;
    }
    case 'nullproto': {
      const o = Object.create(null);
      for (const [key, v] of r.entries) o[key] = materialize(v, env);
      return o;
    }
    case 'array':
      return r.items.map((i) => materialize(i, env));
    case 'frozen':
      return deepFreeze(materialize(r.of, env));
    case 'throwProxy': {
      const v = env.thrown.add(materialize(r.v, env));
      const proxy = new Proxy(function target() {}, throwingHandler(v));
      env.proxies.add(proxy);
      return proxy;
    }
    case 'revoked': {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    }
    case 'getters': {
      const o = { kind: 'user', key: 'getter-key' };
      const v = env.thrown.add(materialize(r.v, env));
      for (const key of r.keys) {
        Object.defineProperty(o, key, {
          enumerable: true,
          configurable: true,
          get() {
            throw v;
          },
        });
      }
      return o;
    }
    case 'convThrow': {
      const v = env.thrown.add(materialize(r.v, env));
      const t = () => {
        throw v;
      };
      const o = {};
      if (r.which === 'toString' || r.which === 'all') o.toString = t;
      if (r.which === 'valueOf' || r.which === 'all') o.valueOf = t;
      if (r.which === 'toPrimitive' || r.which === 'all') o[Symbol.toPrimitive] = t;
      if (r.which === 'toString') o.valueOf = t;
      return o;
    }
    case 'cyclic': {
      if (r.shape === 'array') {
        const a = ['x'];
        a.push(a);
        return a;
      }
      const o = r.shape === 'context' ? { kind: 'user', key: 'cyclic' } : { a: 1 };
      o.self = o;
      return o;
    }
    case 'deep':
      return deep(r.shape, r.depth);
    case 'ctx':
    case 'mctx':
      return materializeContext(env.tame ? tameContext(r) : r, env);
    case 'wide':
      return wide(r.n);
    case 'fn':
      return function hostile(...args) {
        return act(r.b, env, args);
      };
    case 'never':
      return new Promise(() => {});
    case 'rejected': {
      const p = Promise.reject(env.thrown.add(materialize(r.v, env)));
      p.catch(() => {}); // handled: passing it around must not make it "unhandled"
      return p;
    }
    case 'resolved': {
      const p = Promise.resolve(materialize(r.v, env));
      p.catch(() => {}); // it may adopt a thenable that throws: still not "unhandled"
      return p;
    }
    case 'thenable':
      return thenable(r.t, env);
    case 'builtin':
      return builtin(r.t);
    case 'signal': {
      const c = new AbortController();
      env.controllers.push(c);
      if (r.aborted) c.abort(env.thrown.add(materialize(r.reason, env)));
      return c.signal;
    }
    default:
      throw new Error(`unknown recipe ${JSON.stringify(r)}`);
  }
}

function builtin(t) {
  switch (t) {
    case 'map':
      return new Map([['seg.g1', true], ['key', 'k']]);
    case 'set':
      return new Set(['seg.g1']);
    case 'date':
      return new Date(0);
    case 'badDate':
      return new Date(NaN);
    case 'regexp':
      return /x/g;
    case 'uint8':
      return new Uint8Array([0xff, 0xfe, 0x41]);
    case 'arraybuffer':
      return new ArrayBuffer(8);
    case 'weakmap':
      return new WeakMap();
    case 'class':
      return new (class Thing {
        constructor() {
          this.key = 'thing';
        }
      })();
    default:
      return undefined;
  }
}

function deepFreeze(v) {
  try {
    if ((typeof v === 'object' && v !== null) || typeof v === 'function') Object.freeze(v);
  } catch {
    // proxies that throw on preventExtensions stay as they are
  }
  return v;
}

/** Whether a recipe (or any part of it) has tag/mode `what` (e.g. 'never'). */
export function recipeHas(recipe, pred) {
  const seen = new Set();
  const walk = (x) => {
    if (x === null || typeof x !== 'object' || seen.has(x)) return false;
    seen.add(x);
    if (pred(x)) return true;
    for (const v of Array.isArray(x) ? x : Object.values(x)) if (walk(v)) return true;
    return false;
  };
  return walk(recipe);
}

/** May the value (or a callback made from it) leave a promise pending forever? */
export function mayNeverSettle(recipe) {
  return recipeHas(
    recipe,
    (x) =>
      x.k === 'never' ||
      x.m === 'never' ||
      x.m === 'signal' ||
      ((x.k === 'thenable' || x.m === 'thenable') && x.t === 'never') ||
      // an object with a `then` method is a thenable: awaited, it settles only if `then` says so
      ((x.k === 'plain' || x.k === 'nullproto') && x.entries.some(([key]) => key === 'then')),
  );
}

// ---------------------------------------------------------------------------------------------
// Domain recipes: plausible shapes with hostile parts mixed in

// Hostile contexts: built to trip up whatever reads, validates or copies a context on its way into
// a migration_op event. A single-kind (or legacy) context is `{k: 'ctx', base, parts, wrap}`:
// the plain `{kind: 'user', key}` (or `{key}`) with hazards applied in order —
//   attrs   n own attributes (10 000 at the top)            array   a `list` of n (100 000) items
//   deep    an attribute nested `depth` (5 000) levels      cyclic  ctx.self = ctx, cycles through arrays
//   getters throwing getters on kind, key or attributes     toJSON  a toJSON method that throws
// — and maybe wrapped in a Proxy: every trap throws ('throwAll'), every trap but get of kind/key
// throws ('onlyKindKey'), or a revoked proxy. A multi-kind one is `{k: 'mctx', nested, parts,
// wrap}` whose nested contexts are plain or hostile themselves.

const CONTEXT_ATTRS = ['kind', 'key', 'name', 'email', 'anonymous', '_meta', 'custom', 'toJSON'];
const NESTED_KINDS = ['user', 'org', 'device', 'service'];

/**
 * Hazards for one context. `huge` weighs the 10 000-attribute and 100 000-item ones against 32
 * for the rest (0 leaves them out); `getterAttrs` are the attributes getters may go on.
 */
function contextParts({ huge = 1, getterAttrs = CONTEXT_ATTRS } = {}) {
  const choices = [
    { weight: 4, arbitrary: fc.constant({ p: 'attrs', n: 100 }) },
    { weight: huge, arbitrary: fc.constant({ p: 'attrs', n: 10000 }) },
    { weight: 4, arbitrary: fc.constant({ p: 'array', n: 1000 }) },
    { weight: huge, arbitrary: fc.constant({ p: 'array', n: 100000 }) },
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom('object', 'array', 'context'), fc.constantFrom(100, 5000))
        .map(([via, depth]) => ({ p: 'deep', via, depth })),
    },
    { weight: 8, arbitrary: fc.constantFrom('self', 'array', 'arrayself', 'nested', 'meta').map((via) => ({ p: 'cyclic', via })) },
    {
      weight: 8,
      arbitrary: fc
        .tuple(fc.uniqueArray(fc.constantFrom(...getterAttrs), { minLength: 1, maxLength: 3 }), thrownValue)
        .map(([on, v]) => ({ p: 'getters', on, v })),
    },
    { weight: 2, arbitrary: thrownValue.map((v) => ({ p: 'toJSON', v })) },
  ];
  return fc.oneof(...choices.filter((c) => c.weight > 0));
}

const contextWrap = fc.oneof(
  { weight: 8, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: thrownValue.map((v) => ({ w: 'throwAll', v })) },
  { weight: 1, arbitrary: thrownValue.map((v) => ({ w: 'onlyKindKey', v })) },
  { weight: 1, arbitrary: fc.constant({ w: 'revoked' }) },
);

/** A hostile single-kind (or legacy) context recipe. `base` and `wrap` are arbitraries of those fields. */
export function singleContextRecipe({
  huge = 1,
  base = fc.constantFrom('user', 'legacy'),
  wrap = contextWrap,
  minParts = 1,
  getterAttrs = CONTEXT_ATTRS,
} = {}) {
  return fc
    .record({ base, parts: fc.array(contextParts({ huge, getterAttrs }), { minLength: minParts, maxLength: 3 }), wrap })
    .map((r) => ({ k: 'ctx', ...r }));
}

const plainNested = { k: 'plain', entries: [['key', { k: 'v', v: 'nested-key' }]] };

/** A multi-kind context recipe with plain and hostile nested contexts. */
export function multiContextRecipe({ huge = 1 } = {}) {
  return fc
    .record({
      nested: fc.uniqueArray(
        fc.tuple(
          fc.constantFrom(...NESTED_KINDS),
          fc.oneof(
            { weight: 1, arbitrary: fc.constant(plainNested) },
            { weight: 2, arbitrary: singleContextRecipe({ huge, base: fc.constantFrom('legacy', 'user'), minParts: 0 }) },
          ),
        ),
        { minLength: 1, maxLength: 3, selector: ([kind]) => kind },
      ),
      parts: fc.array(
        fc.oneof(
          fc.constantFrom('self', 'array').map((via) => ({ p: 'cyclic', via })),
          fc
            .tuple(fc.uniqueArray(fc.constantFrom('kind', ...NESTED_KINDS), { minLength: 1, maxLength: 2 }), thrownValue)
            .map(([on, v]) => ({ p: 'getters', on, v })),
        ),
        { maxLength: 2 },
      ),
      wrap: contextWrap,
    })
    .map((r) => ({ k: 'mctx', ...r }));
}

/** Any hostile context, single or multi-kind. */
export function hostileContextRecipe({ huge = 1 } = {}) {
  return fc.oneof({ weight: 3, arbitrary: singleContextRecipe({ huge }) }, { weight: 1, arbitrary: multiContextRecipe({ huge }) });
}

/**
 * Is the context's `kind` a plain, valid single kind and its `key` a plain non-empty string (own
 * data properties of an ordinary object, whatever its other attributes are)?
 */
export function plainKindAndKey(r) {
  return (
    r.k === 'ctx' &&
    r.base === 'user' &&
    r.wrap === null &&
    !r.parts.some((p) => p.p === 'getters' && (p.on.includes('kind') || p.on.includes('key')))
  );
}

/** Does the context recipe hold a 10 000-attribute object or a 100 000-item array? */
export const contextIsHuge = (r) => recipeHas(r, (x) => (x.p === 'attrs' && x.n >= 10000) || (x.p === 'array' && x.n >= 100000));

/** Tame mode: no proxies, getters or cycles, and no more than 20 levels. */
function tameContext(r) {
  const parts = r.parts
    .filter((p) => p.p !== 'getters' && p.p !== 'cyclic')
    .map((p) => (p.p === 'deep' ? { ...p, depth: Math.min(p.depth, 20) } : p));
  const nested = r.k === 'mctx' ? r.nested.map(([kind, n]) => [kind, n.k === 'ctx' ? tameContext(n) : n]) : undefined;
  return { ...r, parts, wrap: null, ...(nested && { nested }) };
}

function throwingObjectHandler(v, { exceptKindKey = false } = {}) {
  const handler = throwingHandler(v);
  delete handler.apply;
  delete handler.construct;
  if (exceptKindKey) {
    handler.get = (target, p, receiver) => {
      if (p === 'kind' || p === 'key') return Reflect.get(target, p, receiver);
      throw v;
    };
  }
  return handler;
}

function materializeContext(r, env) {
  let o;
  if (r.k === 'mctx') {
    o = { kind: 'multi' };
    for (const [kind, n] of r.nested) o[kind] = materialize(n, env);
  } else {
    o = r.base === 'legacy' ? { key: 'legacy-key' } : { kind: 'user', key: 'ctx-key' };
  }
  for (const part of r.parts) applyContextPart(o, part, env);
  if (r.wrap === null) return o;
  if (r.wrap.w === 'revoked') {
    const { proxy, revoke } = Proxy.revocable(o, {});
    revoke();
    return proxy;
  }
  const v = env.thrown.add(materialize(r.wrap.v, env));
  const proxy = new Proxy(o, throwingObjectHandler(v, { exceptKindKey: r.wrap.w === 'onlyKindKey' }));
  env.proxies.add(proxy);
  return proxy;
}

/** Sets an own data property, replacing a getter an earlier part put there. */
function put(o, key, value) {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

function applyContextPart(o, part, env) {
  switch (part.p) {
    case 'attrs':
      for (let i = 0; i < part.n; i++) {
        const m = i % 4;
        o[`attr${i}`] = m === 0 ? `value-${i}` : m === 1 ? i : m === 2 ? i % 8 === 2 : { i, tags: ['a', 'b'] };
      }
      return;
    case 'array':
      put(o, 'list', Array.from({ length: part.n }, (_, i) => (i % 2 ? i : `item-${i}`)));
      return;
    case 'deep':
      put(o, 'nested', deep(part.via, part.depth));
      return;
    case 'cyclic':
      switch (part.via) {
        case 'self':
          put(o, 'self', o);
          return;
        case 'array':
          put(o, 'list', [1, 'two', o]);
          return;
        case 'arrayself': {
          const a = ['x'];
          a.push(a);
          put(o, 'list', a);
          return;
        }
        case 'nested': {
          const inner = { name: 'inner', sub: {} };
          inner.sub.back = inner;
          inner.sub.top = o;
          put(o, 'custom', inner);
          return;
        }
        default: // 'meta'
          put(o, '_meta', { privateAttributes: ['email'], back: o });
          return;
      }
    case 'getters': {
      const v = env.thrown.add(materialize(part.v, env));
      for (const key of part.on) {
        Object.defineProperty(o, key, {
          enumerable: true,
          configurable: true,
          get() {
            throw v;
          },
        });
      }
      return;
    }
    case 'toJSON': {
      const v = env.thrown.add(materialize(part.v, env));
      put(o, 'toJSON', () => {
        throw v;
      });
      return;
    }
    default:
      throw new Error(`unknown context part ${JSON.stringify(part)}`);
  }
}

/** A context: mostly valid, sometimes junk, sometimes hostile (see above). */
export const contextRecipe = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ k: 'plain', entries: [['kind', { k: 'v', v: 'user' }], ['key', { k: 'v', v: 'ctx-key' }]] }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 8 }).map((key) => ({ k: 'plain', entries: [['key', { k: 'v', v: key }]] })) },
  {
    weight: 1,
    arbitrary: fc.constant({
      k: 'plain',
      entries: [
        ['kind', { k: 'v', v: 'multi' }],
        ['user', { k: 'plain', entries: [['key', { k: 'v', v: 'u' }]] }],
        ['org', { k: 'plain', entries: [['key', { k: 'v', v: 'o' }]] }],
      ],
    }),
  },
  { weight: 3, arbitrary: anyValue },
  { weight: 3, arbitrary: hostileContextRecipe() },
);

/** An ExternalTracker with each of the six methods hostile, missing or well-behaved. */
export const trackerRecipe = fc
  .record({
    op: fc.option(behavior, { nil: null }),
    invoked: fc.option(behavior, { nil: null }),
    latency: fc.option(behavior, { nil: null }),
    error: fc.option(behavior, { nil: null }),
    consistency: fc.oneof(fc.constant('call'), fc.constant('callLater'), fc.option(behavior, { nil: null })),
    createEvent: fc.option(behavior, { nil: null }),
  })
  .map((methods) => ({ k: 'tracker', methods }));

/** A StageEvaluation-ish answer from migrationVariation. */
export const evaluationRecipe = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...STAGES).map((v) => ({ k: 'v', v })) },
  {
    weight: 3,
    arbitrary: fc
      .record(
        {
          value: fc.oneof(fc.constantFrom(...STAGES).map((v) => ({ k: 'v', v })), anyValue),
          variationIndex: anyValue,
          reason: fc.oneof(fc.constant({ k: 'plain', entries: [['kind', { k: 'v', v: 'FALLTHROUGH' }]] }), anyValue),
          flagVersion: anyValue,
          checkRatio: fc.oneof(specialNumbers.map((v) => ({ k: 'v', v })), anyValue),
          samplingRatio: fc.oneof(specialNumbers.map((v) => ({ k: 'v', v })), anyValue),
          tracker: fc.oneof(fc.constant(null), anyValue, trackerRecipe, trackerRecipe),
        },
        { requiredKeys: ['value'] },
      )
      .map((rec) => ({ k: 'evaluation', rec })),
  },
  { weight: 2, arbitrary: anyValue },
);

export function materializeEvaluation(r, env) {
  if (r.k !== 'evaluation') return materialize(r, env);
  const o = {};
  for (const [key, v] of Object.entries(r.rec)) {
    if (key !== 'tracker') o[key] = materialize(v, env);
    else if (v !== null) o.tracker = v.k === 'tracker' ? materializeTracker(v, env) : materialize(v, env);
  }
  return o;
}

export function materializeTracker(r, env) {
  const t = {};
  for (const [name, b] of Object.entries(r.methods)) {
    if (b === null) continue;
    if (b === 'call') t[name] = (check) => check();
    else if (b === 'callLater') {
      t[name] = (check) => {
        queueMicrotask(() => {
          try {
            check();
          } catch {
            // a dropped check may throw; that is the tracker's problem, but it must be an Error
          }
        });
      };
    } else t[name] = () => act(b, env);
  }
  return t;
}

/** A logger: silent, capturing, hostile, or junk. */
export const loggerRecipe = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ k: 'logger', mode: 'capture' }) },
  { weight: 1, arbitrary: fc.constant({ k: 'logger', mode: 'throw' }) },
  { weight: 1, arbitrary: fc.constant({ k: 'logger', mode: 'partial' }) },
  { weight: 1, arbitrary: anyValue },
);

export function materializeLogger(r, env, lines) {
  if (r.k !== 'logger') return materialize(r, env);
  const rec = (level) => (...args) => {
    lines?.push({ level, text: args.map((a) => safeString(a)).join(' ') });
    if (r.mode === 'throw') throw env.thrown.add('logger threw');
  };
  if (r.mode === 'partial') return { error: rec('error') };
  return { debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error') };
}

export function safeString(v) {
  try {
    return String(v);
  } catch {
    return '<unprintable>';
  }
}
