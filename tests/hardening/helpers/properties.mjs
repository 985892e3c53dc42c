// The fuzz properties: one per area of the public surface. Each is
// `{ name, arbitrary, run(input, cx), deadlineMs? }`; `run` gets the cutover module as
// `cx.cutover` (never imported here) and checks the oracle with `cx.call`/`cx.settle`, and the
// documented contract (API.md) where it is precise enough to check.
import fc from 'fast-check';

import {
  ORDERS,
  ORIGINS,
  OPERATIONS,
  STAGES,
  act,
  anyValue,
  behavior,
  contextIsHuge,
  contextRecipe,
  evaluationRecipe,
  loggerRecipe,
  materialize,
  materializeEvaluation,
  materializeLogger,
  mayNeverSettle,
  thrownValue,
} from './hostile.mjs';
import { HASH_VECTORS, Violation, isA, nodeHash, show } from './harness.mjs';
import { BACKGROUND_PROPERTIES } from './background.mjs';
import { DIFFERENCES_PROPERTIES } from './differences.mjs';

const v = (value) => ({ k: 'v', v: value });
/** `o[key]`, or undefined when a hostile object throws. */
const safeGet = (o, key) => {
  try {
    return o?.[key];
  } catch {
    return undefined;
  }
};
const isObj = (x) => x !== null && typeof x === 'object';
const A5 = [
  'operation not provided',
  'migration operation cannot contain an empty key',
  'no origins were invoked',
  'provided context was invalid',
  "provided latency for origin 'old' without recording invocation",
  "provided latency for origin 'new' without recording invocation",
  "provided error for origin 'old' without recording invocation",
  "provided error for origin 'new' without recording invocation",
  'provided consistency without recording both invocations',
];

function expectKind(cx, r, ctor, where) {
  cx.expect(!r.ok, `${where}: expected a ${ctor.name}, but it returned`);
  if (cx.env.thrown.has(r.error)) return;
  cx.expect(isA(r.error, ctor), `${where}: expected a ${ctor.name}, got ${show(r.error)}`);
}

// ---------------------------------------------------------------------------------------------
// Value-level functions

const hashContextKey = {
  name: 'hashContextKey',
  arbitrary: fc.oneof(
    anyValue,
    fc.string({ unit: 'binary', maxLength: 40 }).map(v),
    fc.string({ unit: 'grapheme', maxLength: 20 }).map(v),
    fc.constantFrom(...Object.keys(HASH_VECTORS)).map(v),
  ),
  run(input, cx) {
    const key = materialize(input, cx.env);
    const r = cx.call('hashContextKey', () => cx.cutover.hashContextKey(key));
    if (typeof key === 'string') {
      cx.expect(r.ok, `hashContextKey(string) threw ${r.error}`);
      cx.expect(r.value === nodeHash(key), `hashContextKey(${JSON.stringify(key.slice(0, 40))}) = ${r.value}, Node says ${nodeHash(key)}`);
      if (Object.hasOwn(HASH_VECTORS, key)) cx.expect(r.value === HASH_VECTORS[key], 'hash vector mismatch');
    } else {
      expectKind(cx, r, TypeError, 'hashContextKey(non-string)');
    }
  },
};

const bigSegmentRef = {
  name: 'bigSegmentRef',
  arbitrary: fc.tuple(
    fc.oneof(anyValue, fc.string({ maxLength: 10 }).map(v)),
    fc.oneof(anyValue, fc.nat().map(v), fc.constantFrom(0, -0, 1, 2 ** 53 - 1, 2 ** 53, -1, 1.5, NaN).map(v)),
  ),
  run([keyR, genR], cx) {
    const key = materialize(keyR, cx.env);
    const gen = materialize(genR, cx.env);
    const r = cx.call('bigSegmentRef', () => cx.cutover.bigSegmentRef(key, gen));
    if (typeof key !== 'string' || typeof gen !== 'number') return expectKind(cx, r, TypeError, 'bigSegmentRef(bad types)');
    if (!(Number.isSafeInteger(gen) && gen >= 0)) return expectKind(cx, r, RangeError, `bigSegmentRef(_, ${gen})`);
    // Strings cross into Rust as UTF-8: a lone surrogate becomes U+FFFD (as in hashContextKey).
    cx.expect(r.ok && r.value === `${key.toWellFormed()}.g${gen}`, `bigSegmentRef → ${show(r.value)}`);
  },
};

const failureAndFixedStage = {
  name: 'failure/fixedStage',
  arbitrary: fc.tuple(anyValue, fc.oneof(anyValue, fc.constantFrom(...STAGES).map(v))),
  async run([errR, stageR], cx) {
    const err = materialize(errR, cx.env);
    const f = cx.call('failure', () => cx.cutover.failure(err));
    cx.expect(f.ok && Object.isFrozen(f.value) && Object.is(f.value.error, err), 'failure(e) is frozen and carries e');
    const stage = materialize(stageR, cx.env);
    const r = cx.call('fixedStage', () => cx.cutover.fixedStage(stage));
    if (!STAGES.includes(stage)) return expectKind(cx, r, TypeError, 'fixedStage(invalid)');
    cx.expect(r.ok, 'fixedStage(valid) threw');
    const served = cx.call('fixedStage().migrationVariation', () => r.value.migrationVariation('f', { key: 'k' }, 'off'));
    cx.expect(served.ok && served.value === stage, 'fixedStage serves its stage');
  },
};

// ---------------------------------------------------------------------------------------------
// MigratorBuilder: constructor and every method with arbitrary arguments

const clientRecipe = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      answer: fc.oneof(
        { weight: 3, arbitrary: evaluationRecipe.map((ev) => ({ m: 'evaluation', ev })) },
        { weight: 2, arbitrary: evaluationRecipe.map((ev) => ({ m: 'resolveEvaluation', ev })) },
        { weight: 2, arbitrary: behavior },
      ),
      track: fc.oneof(fc.constant('capture'), fc.constant(null), behavior.map((b) => ({ k: 'fn', b })), anyValue),
    }).map((c) => ({ k: 'client', ...c })),
  },
  // A well-behaved flag system without a tracker of its own, with and without trackMigrationOp:
  // every operation goes through cutover's own OpTracker and event path, context included.
  {
    weight: 2,
    arbitrary: fc
      .record({ stage: fc.constantFrom(...STAGES), track: fc.constantFrom('capture', null) })
      .map(({ stage, track }) => ({ k: 'client', answer: { m: 'evaluation', ev: v(stage) }, track })),
  },
  { weight: 1, arbitrary: anyValue },
);

function materializeClient(r, cx, events) {
  if (r.k !== 'client') return materialize(r, cx.env);
  const client = {
    migrationVariation(...args) {
      if (r.answer.m === 'evaluation') return materializeEvaluation(r.answer.ev, cx.env);
      if (r.answer.m === 'resolveEvaluation') return Promise.resolve(materializeEvaluation(r.answer.ev, cx.env));
      return act(r.answer, cx.env, args);
    },
  };
  if (r.track === 'capture') client.trackMigrationOp = (e) => void events.push(e);
  else if (r.track !== null) client.trackMigrationOp = materialize(r.track, cx.env);
  return client;
}

/** Can this client leave migrationVariation pending forever? */
const clientMayHang = (r) => r.k !== 'client' || mayNeverSettle(r.answer);

const BUILDER_METHODS = ['readExecutionOrder', 'trackLatency', 'trackErrors', 'originTimeout', 'read', 'write', 'build'];

const builderCalls = {
  name: 'MigratorBuilder methods',
  arbitrary: fc.record({
    client: clientRecipe,
    options: fc.oneof(fc.constant(v(undefined)), loggerRecipe.map((l) => ({ k: 'opts', logger: l })), anyValue),
    calls: fc.array(
      fc.record({
        method: fc.constantFrom(...BUILDER_METHODS),
        args: fc.array(
          fc.oneof(
            anyValue,
            fc.constantFrom(...ORDERS, true, false, 1, 5).map(v),
            behavior.map((b) => ({ k: 'fn', b })),
          ),
          { maxLength: 3 },
        ),
      }),
      { maxLength: 8 },
    ),
  }),
  run(input, cx) {
    const { cutover, env } = cx;
    const client = materializeClient(input.client, cx, []);
    const options =
      input.options.k === 'opts' ? { logger: materializeLogger(input.options.logger, env, []) } : materialize(input.options, env);
    const made = cx.call('new MigratorBuilder', () => new cutover.MigratorBuilder(client, options));
    if (!made.ok) return;
    const builder = made.value;
    let hasRead = false;
    let hasWrite = false;
    for (const { method, args } of input.calls) {
      const vals = args.map((a) => materialize(a, env));
      const r = cx.call(`MigratorBuilder#${method}`, () => builder[method](...vals));
      const [a0, a1, a2] = vals;
      if (method === 'build') {
        if (hasRead && hasWrite) {
          cx.expect(r.ok && typeof r.value.read === 'function', 'build() with both configs must succeed');
        } else {
          cx.expect(!r.ok && isA(r.error, cutover.MigratorConfigError), 'build() without config must throw MigratorConfigError');
          cx.expect(
            r.error.message === (hasRead ? 'write configuration not provided' : 'read configuration not provided'),
            `build() message: ${r.error.message}`,
          );
        }
        continue;
      }
      if (r.ok) cx.expect(r.value === builder, `${method} must return this`);
      else if (!env.thrown.has(r.error)) {
        cx.expect(isA(r.error, TypeError) || isA(r.error, RangeError), `${method} threw ${show(r.error)}`);
      }
      const fnOk = (x) => env.isFunction(x);
      switch (method) {
        case 'readExecutionOrder':
          cx.expect(r.ok === ORDERS.includes(a0), `readExecutionOrder(${show(a0)}) ok=${r.ok}`);
          break;
        case 'trackLatency':
        case 'trackErrors':
          cx.expect(r.ok === (typeof a0 === 'boolean'), `${method}(${typeof a0}) ok=${r.ok}`);
          break;
        case 'originTimeout':
          cx.expect(r.ok === (typeof a0 === 'number' && Number.isFinite(a0) && a0 > 0), `originTimeout(${show(a0)}) ok=${r.ok}`);
          break;
        case 'read':
          if (fnOk(a0) && fnOk(a1) && (a2 === undefined || fnOk(a2))) cx.expect(r.ok, 'read(fn, fn, fn?) threw');
          if (typeof a0 !== 'function' || typeof a1 !== 'function' || (a2 !== undefined && typeof a2 !== 'function')) {
            cx.expect(!r.ok, 'read() accepted a non-function');
          }
          if (r.ok) hasRead = true;
          break;
        case 'write':
          if (fnOk(a0) && fnOk(a1)) cx.expect(r.ok, 'write(fn, fn) threw');
          if (typeof a0 !== 'function' || typeof a1 !== 'function') cx.expect(!r.ok, 'write() accepted a non-function');
          if (r.ok) hasWrite = true;
          break;
        default:
      }
    }
  },
};

// ---------------------------------------------------------------------------------------------
// Migrator read/write/stats/resetStats

const originRecipe = fc.oneof(
  { weight: 6, arbitrary: behavior },
  { weight: 2, arbitrary: anyValue.map((e) => ({ m: 'failure', e })) },
  { weight: 1, arbitrary: fc.constant({ m: 'reenter' }) },
);

function materializeOrigin(b, cx, sideEffects, name) {
  return (payload, signal) => {
    sideEffects.push(name);
    if (b.m === 'failure') return cx.cutover.failure(materialize(b.e, cx.env));
    if (b.m === 'reenter') {
      // Calls back into cutover synchronously (API.md §3 re-entrancy).
      cx.cutover.hashContextKey('x');
      return cx.cutover.OpTracker ? 're-entered' : 'x';
    }
    return act(b, cx.env, [payload, signal]);
  };
}

const signalOption = fc.oneof(
  fc.constant({ k: 'sig', after: -1 }), // already aborted
  fc.constantFrom(0, 1, 2, 4).map((after) => ({ k: 'sig', after })),
  fc.constant({ k: 'sig', after: null }), // never aborts
);

const migratorOps = {
  name: 'Migrator read/write/stats',
  deadlineMs: 4000,
  arbitrary: fc.record({
    client: clientRecipe,
    logger: fc.option(loggerRecipe, { nil: undefined }),
    order: fc.option(fc.constantFrom(...ORDERS), { nil: undefined }),
    trackLatency: fc.option(fc.boolean(), { nil: undefined }),
    trackErrors: fc.option(fc.boolean(), { nil: undefined }),
    originTimeout: fc.option(fc.constantFrom(1, 2, 5), { nil: undefined }),
    readOld: originRecipe,
    readNew: originRecipe,
    writeOld: originRecipe,
    writeNew: originRecipe,
    comparison: fc.option(behavior, { nil: undefined }),
    ops: fc.array(
      fc.record({
        op: fc.constantFrom('read', 'write'),
        flagKey: fc.oneof({ weight: 8, arbitrary: fc.constant(v('flag')) }, { weight: 1, arbitrary: anyValue }),
        context: contextRecipe,
        defaultStage: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...STAGES).map(v) }, { weight: 1, arbitrary: anyValue }),
        payload: anyValue,
        options: fc.oneof(
          { weight: 5, arbitrary: fc.constant(v(undefined)) },
          { weight: 3, arbitrary: signalOption },
          { weight: 1, arbitrary: anyValue },
          { weight: 1, arbitrary: anyValue.map((s) => ({ k: 'plain', entries: [['signal', s]] })) },
        ),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  async run(input, cx) {
    const { cutover, env } = cx;
    const events = [];
    const lines = [];
    const client = materializeClient(input.client, cx, events);
    const logger = input.logger === undefined ? undefined : materializeLogger(input.logger, env, lines);
    const made = cx.call('new MigratorBuilder', () => new cutover.MigratorBuilder(client, { logger }));
    if (!made.ok) {
      cx.expect(input.client.k !== 'client' || (input.logger && input.logger.k !== 'logger'), 'a valid client/logger was refused');
      return;
    }
    const b = made.value;
    const effects = [];
    if (input.order) b.readExecutionOrder(input.order);
    if (input.trackLatency !== undefined) b.trackLatency(input.trackLatency);
    if (input.trackErrors !== undefined) b.trackErrors(input.trackErrors);
    if (input.originTimeout) b.originTimeout(input.originTimeout);
    const comparison = input.comparison === undefined ? undefined : (a, c) => act(input.comparison, env, [a, c]);
    b.read(
      materializeOrigin(input.readOld, cx, effects, 'read-old'),
      materializeOrigin(input.readNew, cx, effects, 'read-new'),
      comparison,
    );
    b.write(materializeOrigin(input.writeOld, cx, effects, 'write-old'), materializeOrigin(input.writeNew, cx, effects, 'write-new'));
    const migrator = b.build();

    const originsMayHang = [input.readOld, input.readNew, input.writeOld, input.writeNew].some((o) => mayNeverSettle(o));
    const pending = input.ops.map((op) => {
      const flagKey = materialize(op.flagKey, env);
      const context = materialize(op.context, env);
      const defaultStage = materialize(op.defaultStage, env);
      const payload = materialize(op.payload, env);
      let options;
      let bounded = false;
      if (op.options.k === 'sig') {
        const c = new AbortController();
        env.controllers.push(c);
        if (op.options.after === -1) c.abort();
        else if (op.options.after !== null) env.timers.push(setTimeout(() => c.abort(), op.options.after));
        bounded = op.options.after !== null;
        options = { signal: c.signal };
      } else {
        options = materialize(op.options, env);
      }
      const r = cx.call(`Migrator#${op.op}`, () => migrator[op.op](flagKey, context, defaultStage, payload, options));
      if (r.ok && isA(r.value, Promise)) r.value.catch(() => {}); // awaited below, maybe after it rejects
      cx.expect(r.ok, `Migrator#${op.op} threw synchronously (${show(r.error)}); it must return a promise`);
      const misuse = typeof flagKey !== 'string';
      const mayHang = !bounded && (clientMayHang(input.client) || (originsMayHang && !input.originTimeout));
      return { op, promise: r.value, misuse, mayHang, bounded, options };
    });
    // A 10 000-attribute or 100 000-item context takes time to copy (builds that copy it into the
    // event took ~60 ms a context): give it time.
    const settleMs = input.ops.some((op) => contextIsHuge(op.context)) ? 1500 : 150;
    for (const p of pending) {
      const out = await cx.settle(`Migrator#${p.op.op}`, p.promise, { ms: settleMs, mayHang: p.mayHang });
      if (p.misuse) {
        cx.expect(out.status === 'rejected' && isA(out.reason, TypeError), `${p.op.op} with a non-string flag key must reject with TypeError`);
        continue;
      }
      if (out.status === 'rejected') {
        // Allowed: a caller abort, or a bad options/signal (TypeError).
        const signal = safeGet(p.options, 'signal');
        const aborted = isA(signal, AbortSignal) && signal.aborted;
        cx.expect(aborted || isA(out.reason, TypeError), `${p.op.op} rejected without abort or misuse: ${show(out.reason)}`);
        if (aborted && !(isA(out.reason, TypeError))) cx.expect(Object.is(out.reason, signal.reason), `${p.op.op} rejected with something other than the abort reason`);
      }
      if (out.status === 'fulfilled') {
        const res = out.value;
        const checkResult = (x, what) => {
          cx.expect(isObj(x) && ORIGINS.includes(x.origin) && typeof x.success === 'boolean', `${what}: bad OperationResult`);
          cx.expect(x.success ? 'value' in x : 'error' in x, `${what}: value/error missing`);
        };
        if (p.op.op === 'read') checkResult(res, 'read');
        else {
          checkResult(res.authoritative, 'write.authoritative');
          if (!res.authoritative.success) cx.expect(!('nonAuthoritative' in res), 'nonAuthoritative ran after a failed authoritative write');
          if ('nonAuthoritative' in res) {
            checkResult(res.nonAuthoritative, 'write.nonAuthoritative');
            cx.expect(res.nonAuthoritative.origin !== res.authoritative.origin, 'both writes on one origin');
          }
        }
      }
    }
    const stats = cx.call('Migrator#stats', () => migrator.stats());
    cx.expect(stats.ok, 'stats() threw');
    for (const op of OPERATIONS) {
      const s = stats.value[op];
      cx.expect(isObj(s) && Number.isInteger(s.count) && s.count >= 0, `stats.${op}.count`);
      for (const o of ORIGINS) {
        const os = s[o];
        cx.expect(os.invoked >= os.errors && os.errors >= os.timeouts && os.timeouts >= 0, `stats.${op}.${o} counts`);
        if (os.latencyMs !== null) {
          const l = os.latencyMs;
          cx.expect([l.count, l.mean, l.p50, l.p90, l.p99, l.max].every(Number.isFinite), `stats.${op}.${o}.latencyMs not finite`);
        }
      }
      cx.expect(s.consistency.checked >= s.consistency.consistent, 'consistency counts');
    }
    cx.call('Migrator#resetStats', () => migrator.resetStats());
    for (const e of events) {
      // An external tracker's createEvent() result is passed on as it is (it may be hostile).
      if (isObj(e) && safeGet(e, 'kind') === 'migration_op') cx.expect(Array.isArray(safeGet(e, 'measurements')), 'event without measurements');
    }
  },
};

// ---------------------------------------------------------------------------------------------
// OpTracker

const OPTRACKER_METHODS = ['operation', 'invoked', 'error', 'latency', 'consistent', 'build'];

const opTracker = {
  name: 'OpTracker',
  arbitrary: fc.record({
    flagKey: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('flag', '').map(v) }, { weight: 1, arbitrary: anyValue }),
    context: contextRecipe,
    evaluation: fc.oneof({ weight: 3, arbitrary: evaluationRecipe }, { weight: 1, arbitrary: anyValue }),
    defaultStage: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...STAGES).map(v) }, { weight: 1, arbitrary: anyValue }),
    calls: fc.array(
      fc.record({
        method: fc.constantFrom(...OPTRACKER_METHODS),
        args: fc.array(
          fc.oneof(
            fc.constantFrom(...ORIGINS, ...OPERATIONS, 0, -0, 1.5, -1, NaN, Infinity).map(v),
            anyValue,
            behavior.map((b) => ({ k: 'fn', b })),
          ),
          { maxLength: 2 },
        ),
      }),
      { maxLength: 10 },
    ),
  }),
  run(input, cx) {
    const { cutover, env } = cx;
    const flagKey = materialize(input.flagKey, env);
    const context = materialize(input.context, env);
    const evaluation = materializeEvaluation(input.evaluation, env);
    const def = materialize(input.defaultStage, env);
    const made = cx.call('new OpTracker', () => new cutover.OpTracker(flagKey, context, evaluation, def));
    if (!made.ok) {
      if (!env.thrown.has(made.error)) cx.expect(isA(made.error, TypeError), `OpTracker ctor threw ${show(made.error)}`);
      return;
    }
    cx.expect(typeof flagKey === 'string' && STAGES.includes(def), 'OpTracker accepted a bad flag key or default stage');
    const t = made.value;
    let opSet = false;
    for (const { method, args } of input.calls) {
      const vals = args.map((a) => materialize(a, env));
      const r = cx.call(`OpTracker#${method}`, () => t[method](...vals));
      const [a0, a1] = vals;
      switch (method) {
        case 'operation':
          cx.expect(r.ok === OPERATIONS.includes(a0), `operation(${show(a0)}) ok=${r.ok}`);
          if (r.ok) opSet = true;
          break;
        case 'invoked':
        case 'error':
          cx.expect(r.ok === ORIGINS.includes(a0), `${method}(${show(a0)}) ok=${r.ok}`);
          break;
        case 'latency':
          cx.expect(r.ok === (ORIGINS.includes(a0) && typeof a1 === 'number' && Number.isFinite(a1) && a1 >= 0), `latency(${show(a0)}, ${show(a1)}) ok=${r.ok}`);
          break;
        case 'consistent':
          if (env.isFunction(a0)) cx.expect(r.ok, `consistent(fn) threw ${show(r.error)}`);
          if (typeof a0 !== 'function') cx.expect(!r.ok && isA(r.error, TypeError), 'consistent(non-function) must throw TypeError');
          break;
        case 'build':
          if (r.ok) {
            const e = r.value;
            cx.expect(opSet && isObj(e) && e.kind === 'migration_op' && e.evaluation.key === flagKey, 'build() event shape');
            cx.expect(Array.isArray(e.measurements) && e.measurements.length > 0, 'build() measurements');
          } else {
            cx.expect(isA(r.error, Error) && A5.includes(r.error.message), `build() threw ${show(r.error)}`);
            if (!opSet) cx.expect(r.error.message === 'operation not provided', 'first check: operation not provided');
          }
          break;
        default:
      }
      if (method !== 'build' && r.ok) cx.expect(r.value === t, `${method} must return this`);
      if (!r.ok && method !== 'build' && !env.thrown.has(r.error)) {
        cx.expect(isA(r.error, TypeError) || isA(r.error, RangeError), `${method} threw ${show(r.error)}`);
      }
    }
  },
};

// ---------------------------------------------------------------------------------------------
// migrationVariation and launchDarklyClient

const migrationVariationProp = {
  name: 'migrationVariation',
  arbitrary: fc.tuple(
    clientRecipe,
    fc.oneof({ weight: 3, arbitrary: fc.constant(v('flag')) }, { weight: 1, arbitrary: anyValue }),
    contextRecipe,
    fc.oneof(fc.constantFrom(...STAGES).map(v), anyValue),
  ),
  async run([clientR, keyR, ctxR, defR], cx) {
    const { cutover, env } = cx;
    const client = materializeClient(clientR, cx, []);
    const key = materialize(keyR, env);
    const r = cx.call('migrationVariation', () => cutover.migrationVariation(client, key, materialize(ctxR, env), materialize(defR, env)));
    cx.expect(r.ok, 'migrationVariation threw synchronously; it is async');
    const ms = contextIsHuge(ctxR) ? 1500 : 150;
    const out = await cx.settle('migrationVariation', r.value, { ms, mayHang: clientMayHang(clientR) });
    if (out.status === 'rejected') {
      cx.expect(isA(out.reason, TypeError), `migrationVariation rejected with ${show(out.reason)}`);
      cx.expect(clientR.k !== 'client' || typeof key !== 'string', 'migrationVariation rejected a valid call');
    }
    if (out.status === 'fulfilled') {
      cx.expect(typeof key === 'string', 'migrationVariation accepted a non-string flag key');
      cx.expect(STAGES.includes(out.value.stage), `stage ${String(out.value.stage)}`);
      const t = out.value.tracker;
      if (isA(t, cutover.OpTracker)) {
        const built = cx.call('tracker.build', () => t.operation('read').invoked('old').latency('old', 1).build());
        if (built.ok) cx.expect(built.value.kind === 'migration_op', 'tracker event');
        else cx.expect(A5.includes(built.error?.message), `tracker.build threw ${show(built.error)}`);
      }
    }
  },
};

const ldClientRecipe = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .record({
        migrationVariation: fc.oneof(
          behavior,
          fc.tuple(fc.oneof(fc.constantFrom(...STAGES).map(v), anyValue), fc.oneof(anyValue, fc.constant(null))).map(([value, tracker]) => ({
            m: 'ld',
            value,
            tracker,
          })),
        ),
        trackMigration: fc.oneof(behavior, fc.constant({ m: 'return', v: v(undefined) })),
      })
      .map((r) => ({ k: 'ld', ...r })),
  },
  { weight: 1, arbitrary: anyValue },
);

const launchDarklyClientProp = {
  name: 'launchDarklyClient',
  arbitrary: fc.tuple(ldClientRecipe, fc.constantFrom('read', 'write'), contextRecipe),
  async run([ldR, op, ctxR], cx) {
    const { cutover, env } = cx;
    let ld;
    if (ldR.k === 'ld') {
      ld = {
        migrationVariation: (...args) =>
          ldR.migrationVariation.m === 'ld'
            ? Promise.resolve({ value: materialize(ldR.migrationVariation.value, env), tracker: materialize(ldR.migrationVariation.tracker, env) })
            : act(ldR.migrationVariation, env, args),
        trackMigration: (...args) => act(ldR.trackMigration, env, args),
      };
    } else ld = materialize(ldR, env);
    const r = cx.call('launchDarklyClient', () => cutover.launchDarklyClient(ld));
    if (!r.ok) {
      if (!env.thrown.has(r.error)) cx.expect(isA(r.error, TypeError), 'launchDarklyClient must throw TypeError');
      return;
    }
    const migrator = new cutover.MigratorBuilder(r.value, { logger: materializeLogger({ k: 'logger', mode: 'capture' }, env, []) })
      .read(() => 1, () => 2, (a, b) => a === b)
      .write(() => 1, () => 2)
      .build();
    const c = new AbortController();
    env.timers.push(setTimeout(() => c.abort(), 5));
    const context = materialize(ctxR, env);
    const out = await cx.settle(`${op} via launchDarklyClient`, migrator[op]('flag', context, 'off', undefined, { signal: c.signal }), {
      ms: contextIsHuge(ctxR) ? 1500 : 150,
    });
    if (out.status === 'rejected') cx.expect(c.signal.aborted, `rejected without abort: ${out.reason}`);
  },
};

// ---------------------------------------------------------------------------------------------
// Big Segments: BigSegmentStoreManager and its status provider

export const membershipRecipe = fc.oneof(
  anyValue,
  fc.array(fc.tuple(fc.constantFrom('seg.g1', 'seg.g2', '__proto__', 'constructor', 'prototype', 'toString', 'x'), fc.oneof(fc.boolean().map(v), anyValue)), { maxLength: 5 }).map((entries) => ({ k: 'plain', entries })),
  fc.constantFrom(10, 100000).map((n) => ({ k: 'wide', n })),
);

const storeRecipe = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({
        getMetadata: fc.oneof(
          fc.constantFrom(0, -60000, -200000, null).map((ago) => ({ m: 'meta', ago })),
          behavior,
          anyValue.map((lastUpToDate) => ({ m: 'resolve', v: { k: 'plain', entries: [['lastUpToDate', lastUpToDate]] } })),
        ),
        membershipName: fc.constantFrom('getMembership', 'getUserMembership'),
        getMembership: fc.oneof(membershipRecipe.map((m) => ({ m: 'resolve', v: m })), behavior),
        close: fc.option(behavior, { nil: null }),
      })
      .map((r) => ({ k: 'store', ...r })),
  },
  { weight: 1, arbitrary: anyValue },
);

function materializeStore(r, cx) {
  if (r.k !== 'store') return materialize(r, cx.env);
  const store = {
    getMetadata: (...args) =>
      r.getMetadata.m === 'meta'
        ? Promise.resolve(r.getMetadata.ago === null ? null : { lastUpToDate: Date.now() + r.getMetadata.ago })
        : act(r.getMetadata, cx.env, args),
    [r.membershipName]: (...args) => act(r.getMembership, cx.env, args),
  };
  if (r.close) store.close = (...args) => act(r.close, cx.env, args);
  return store;
}

/** An option value: mostly absent or valid, sometimes out of range, rarely anything at all. */
const mostlyValid = (valid, invalid) =>
  fc.oneof(
    { weight: 15, arbitrary: fc.constant(v(undefined)) },
    { weight: 30, arbitrary: valid.map(v) },
    { weight: 1, arbitrary: invalid.map(v) },
    { weight: 1, arbitrary: anyValue },
  );

const SEGMENT_ACTIONS = ['lookup', 'lookup', 'lookup', 'start', 'getStatus', 'lastStatus', 'addListener', 'removeListener', 'stats'];

const managerProp = {
  name: 'BigSegmentStoreManager',
  deadlineMs: 5000,
  arbitrary: fc.record({
    options: fc.oneof(
      {
        weight: 5,
        arbitrary: fc
          .record(
            {
              store: fc.oneof({ weight: 8, arbitrary: storeRecipe }, { weight: 1, arbitrary: fc.constant(v(null)) }),
              contextCacheSize: mostlyValid(fc.constantFrom(1, 2, 1000, 2 ** 53), fc.constantFrom(0, -1, 1.5, NaN, Infinity)),
              contextCacheTimeMs: mostlyValid(fc.constantFrom(0, 1, 5000), fc.constantFrom(-1, NaN, -Infinity)),
              statusPollIntervalMs: mostlyValid(fc.constantFrom(1, 5, 5000), fc.constantFrom(0, -5, Infinity)),
              staleAfterMs: mostlyValid(fc.constantFrom(1, 120000), fc.constantFrom(0, NaN)),
              queryTimeoutMs: mostlyValid(fc.constantFrom(1, 2, 5), fc.constantFrom(0, -1, NaN)),
              logger: loggerRecipe,
            },
            { requiredKeys: ['store', 'queryTimeoutMs', 'contextCacheSize', 'contextCacheTimeMs', 'statusPollIntervalMs', 'staleAfterMs'] },
          )
          .map((rec) => ({ k: 'mopts', rec })),
      },
      { weight: 1, arbitrary: anyValue },
    ),
    actions: fc.array(
      fc.record({
        a: fc.constantFrom(...SEGMENT_ACTIONS),
        arg: fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom('u1', 'u2', 'user-key', '', '__proto__').map(v) },
          { weight: 1, arbitrary: anyValue },
          { weight: 2, arbitrary: behavior.map((b) => ({ k: 'fn', b })) },
        ),
      }),
      { maxLength: 8 },
    ),
    closeTwice: fc.boolean(),
  }),
  async run(input, cx) {
    const { cutover, env } = cx;
    let options;
    const lines = [];
    if (input.options.k === 'mopts') {
      options = {};
      for (const [key, r] of Object.entries(input.options.rec)) {
        options[key] = key === 'store' ? materializeStore(r, cx) : key === 'logger' ? materializeLogger(r, env, lines) : materialize(r, env);
      }
    } else options = materialize(input.options, env);
    const made = cx.call('new BigSegmentStoreManager', () => new cutover.BigSegmentStoreManager(options));
    if (!made.ok) {
      if (!env.thrown.has(made.error)) {
        cx.expect(isA(made.error, TypeError) || isA(made.error, RangeError), `ctor threw ${show(made.error)}`);
      }
      return;
    }
    const mgr = made.value;
    const qt = safeGet(options, 'queryTimeoutMs');
    const bounded = typeof qt === 'number' && qt > 0 && qt <= 50;
    const storeR = input.options.k === 'mopts' ? input.options.rec.store : null;
    const mayHang = !bounded && storeR !== null && mayNeverSettle(storeR);
    const lookups = [];
    const listeners = [];
    for (const { a, arg } of input.actions) {
      const x = materialize(arg, env);
      switch (a) {
        case 'lookup': {
          const r = cx.call('getUserMembership', () => mgr.getUserMembership(x));
          cx.expect(r.ok, 'getUserMembership threw synchronously');
          if (isA(r.value, Promise)) r.value.catch(() => {}); // awaited below
          lookups.push({ key: x, promise: r.value });
          break;
        }
        case 'start':
          cx.expect(cx.call('start', () => mgr.start()).ok, 'start() threw');
          break;
        case 'getStatus': {
          const r = cx.call('statusProvider.getStatus', () => mgr.statusProvider.getStatus());
          cx.expect(r.ok, 'getStatus threw synchronously');
          if (isA(r.value, Promise)) r.value.catch(() => {}); // awaited below
          lookups.push({ status: true, promise: r.value });
          break;
        }
        case 'lastStatus': {
          const r = cx.call('statusProvider.lastStatus', () => mgr.statusProvider.lastStatus);
          cx.expect(r.ok && (r.value === undefined || (typeof r.value.available === 'boolean' && typeof r.value.stale === 'boolean')), 'lastStatus shape');
          break;
        }
        case 'addListener': {
          const r = cx.call('statusProvider.addListener', () => mgr.statusProvider.addListener(x));
          if (env.isFunction(x)) {
            cx.expect(r.ok, 'addListener(fn) threw');
            listeners.push(x);
          } else if (typeof x !== 'function') cx.expect(!r.ok && isA(r.error, TypeError), 'addListener(non-function) must throw TypeError');
          break;
        }
        case 'removeListener': {
          const target = listeners.length && typeof arg === 'object' && arg.k === 'v' ? listeners[0] : x;
          const r = cx.call('statusProvider.removeListener', () => mgr.statusProvider.removeListener(target));
          cx.expect(r.ok, `removeListener threw ${show(r.error)}`);
          break;
        }
        case 'stats': {
          const r = cx.call('stats', () => mgr.stats());
          cx.expect(r.ok && Object.values(r.value).every((n) => Number.isInteger(n) && n >= 0) && Object.keys(r.value).length === 8, 'stats shape');
          break;
        }
        default:
      }
    }
    const storeValue = safeGet(options, 'store');
    const hasStore = storeValue !== undefined && storeValue !== null;
    for (const l of lookups) {
      const out = await cx.settle(l.status ? 'getStatus' : 'getUserMembership', l.promise, { ms: 150, mayHang });
      if (out.status === 'pending') continue;
      if (l.status) {
        cx.expect(out.status === 'fulfilled' && typeof out.value.available === 'boolean' && typeof out.value.stale === 'boolean', 'getStatus shape');
        continue;
      }
      if (typeof l.key !== 'string') {
        cx.expect(out.status === 'rejected' && isA(out.reason, TypeError), 'getUserMembership(non-string) must reject with TypeError');
        continue;
      }
      cx.expect(out.status === 'fulfilled', `getUserMembership rejected: ${show(out.reason)}`);
      const { membership, status } = out.value;
      cx.expect(['HEALTHY', 'STALE', 'STORE_ERROR', 'NOT_CONFIGURED'].includes(status), `status ${status}`);
      if (!hasStore) cx.expect(status === 'NOT_CONFIGURED' && membership === null, 'no store → NOT_CONFIGURED');
      if (membership !== null) {
        cx.expect(Object.getPrototypeOf(membership) === null && Object.isFrozen(membership), 'membership must be frozen, null-prototype');
        cx.expect(Object.values(membership).every((b) => typeof b === 'boolean'), 'membership values must be booleans');
      }
    }
    // close() awaits store.close(): any close method may return a thenable that never settles.
    const closeMayHang = mayHang || storeR?.k !== 'store' || Boolean(storeR.close);
    const closing = cx.call('close', () => mgr.close());
    cx.expect(closing.ok, 'close threw synchronously');
    await cx.settle('close', closing.value, { mayHang: closeMayHang });
    if (input.closeTwice) await cx.settle('close (again)', mgr.close(), { mayHang: closeMayHang });
    const after = cx.call('getUserMembership after close', () => mgr.getUserMembership('u1'));
    cx.expect(after.ok, 'lookup after close threw synchronously');
    const late = await cx.settle('getUserMembership after close', after.value, { mayHang: false });
    if (hasStore) cx.expect(late.status === 'rejected' && isA(late.reason, Error), 'a lookup after close must reject with an Error');
  },
};

// ---------------------------------------------------------------------------------------------
// Redis store over fake hosts, and the three client adapters

export const replyRecipe = fc.oneof(
  { weight: 3, arbitrary: anyValue },
  { weight: 2, arbitrary: fc.array(fc.oneof(fc.string({ maxLength: 6 }).map(v), anyValue), { maxLength: 4 }).map((items) => ({ k: 'array', items })) },
  { weight: 1, arbitrary: fc.constantFrom('1700000000000', ' 42 ', '', 'abc', '1e3', '-5', '99999999999999999999').map(v) },
  { weight: 1, arbitrary: fc.constantFrom('array', 'object').map((shape) => ({ k: 'cyclic', shape })) },
  { weight: 1, arbitrary: fc.constantFrom(1000, 20000).map((depth) => ({ k: 'deep', shape: 'array', depth })) },
);

const replyBehavior = fc.oneof(
  { weight: 3, arbitrary: replyRecipe.map((r) => ({ m: 'resolve', v: r })) },
  { weight: 2, arbitrary: behavior },
);

const redisHostRecipe = fc.oneof(
  { weight: 2, arbitrary: replyBehavior.map((command) => ({ k: 'rhost', bare: true, command })) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        command: replyBehavior,
        pipeline: fc.option(
          fc.oneof(
            fc.tuple(replyRecipe, replyRecipe).map(([a, b]) => ({ m: 'resolve', v: { k: 'array', items: [a, b] } })),
            replyBehavior,
          ),
          { nil: null },
        ),
      })
      .map((r) => ({ k: 'rhost', bare: false, ...r })),
  },
  { weight: 1, arbitrary: anyValue },
);

function materializeRedisHost(r, cx) {
  if (r.k !== 'rhost') return materialize(r, cx.env);
  const command = (...args) => act(r.command, cx.env, args);
  if (r.bare) return command;
  const host = { command };
  if (r.pipeline) host.pipeline = (...args) => act(r.pipeline, cx.env, args);
  return host;
}

const redisStoreProp = {
  name: 'redisBigSegmentStore',
  arbitrary: fc.record({
    host: redisHostRecipe,
    options: fc.oneof(
      fc.constant(v(undefined)),
      fc.oneof(fc.constantFrom('', 'p', 'launchdarkly').map(v), anyValue).map((p) => ({ k: 'plain', entries: [['prefix', p]] })),
      anyValue,
    ),
    calls: fc.array(fc.oneof(fc.constant({ a: 'meta' }), fc.oneof(fc.constant(v('CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=')), anyValue).map((h) => ({ a: 'membership', h }))), { minLength: 1, maxLength: 3 }),
  }),
  async run(input, cx) {
    const { cutover, env } = cx;
    const host = materializeRedisHost(input.host, cx);
    const options = materialize(input.options, env);
    const made = cx.call('redisBigSegmentStore', () => cutover.redisBigSegmentStore(host, options));
    if (!made.ok) {
      if (!env.thrown.has(made.error)) cx.expect(isA(made.error, TypeError), `redisBigSegmentStore threw ${show(made.error)}`);
      return;
    }
    const store = made.value;
    const mayHang = mayNeverSettle(input.host);
    for (const c of input.calls) {
      if (c.a === 'meta') {
        const r = cx.call('getMetadata', () => store.getMetadata());
        cx.expect(r.ok, 'getMetadata threw synchronously');
        const out = await cx.settle('getMetadata', r.value, { mayHang });
        if (out.status === 'fulfilled') {
          const m = out.value;
          cx.expect(isObj(m) && (m.lastUpToDate === null || Number.isFinite(m.lastUpToDate)), `metadata ${JSON.stringify(m)}`);
        }
      } else {
        const hash = materialize(c.h, env);
        const r = cx.call('getMembership', () => store.getMembership(hash));
        cx.expect(r.ok, 'getMembership threw synchronously');
        const out = await cx.settle('getMembership', r.value, { mayHang: mayHang && typeof hash === 'string' });
        if (typeof hash !== 'string') {
          cx.expect(out.status === 'rejected' && isA(out.reason, TypeError), 'getMembership(non-string) must reject with TypeError');
        } else if (out.status === 'fulfilled' && out.value !== null) {
          cx.expect(Object.getPrototypeOf(out.value) === null, 'membership must be null-prototype');
          cx.expect(Object.values(out.value).every((b) => typeof b === 'boolean'), 'membership values must be booleans');
        }
      }
    }
    await cx.settle('close', Promise.resolve(store.close()));
  },
};

const ADAPTER_METHODS = {
  nodeRedisHost: ['sendCommand', 'multi'],
  ioredisHost: ['call', 'pipeline'],
  upstashHost: ['get', 'smembers', 'pipeline'],
};

const batchRecipe = fc.record({
  addCommand: behavior,
  exec: replyBehavior,
  execAsPipeline: fc.option(replyBehavior, { nil: null }),
  get: behavior,
  smembers: behavior,
});

const adaptersProp = {
  name: 'nodeRedisHost/ioredisHost/upstashHost',
  arbitrary: fc.record({
    adapter: fc.constantFrom(...Object.keys(ADAPTER_METHODS)),
    client: fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .record({ direct: replyBehavior, batch: fc.oneof(batchRecipe.map((b) => ({ k: 'batch', b })), anyValue), batchThrows: fc.option(thrownValue, { nil: null }) })
          .map((r) => ({ k: 'rclient', ...r })),
      },
      { weight: 1, arbitrary: anyValue },
    ),
    direct: fc.array(fc.oneof(anyValue, fc.constant({ k: 'array', items: [v('GET'), v('k')] }), fc.constant({ k: 'array', items: [v('DEL'), v('k')] })), { maxLength: 2 }),
    query: fc.constantFrom('meta', 'membership'),
  }),
  async run(input, cx) {
    const { cutover, env } = cx;
    let client;
    if (input.client.k === 'rclient') {
      const r = input.client;
      const batch = () => {
        if (r.batchThrows) throw env.thrown.add(materialize(r.batchThrows, env));
        if (r.batch.k !== 'batch') return materialize(r.batch, env);
        const b = {
          addCommand: (...a) => (act(r.batch.b.addCommand, env, a), b),
          exec: (...a) => {
            const out = act(r.batch.b.exec, env, a);
            // ioredis replies are [error, reply] pairs: the adapter throws the client's `error`.
            // (The harness's own bookkeeping must not throw on a hostile reply, e.g. a revoked
            // proxy, or it would leave an unhandled rejection of its own.)
            const register = (replies) => {
              try {
                if (Array.isArray(replies)) for (const p of replies) if (Array.isArray(p)) env.thrown.add(p[0]);
              } catch {
                // nothing the adapter could throw from here
              }
            };
            if (isA(out, Promise)) out.then(register, () => {});
            else register(out);
            return out;
          },
          get: (...a) => (act(r.batch.b.get, env, a), b),
          smembers: (...a) => (act(r.batch.b.smembers, env, a), b),
        };
        if (r.batch.b.execAsPipeline) b.execAsPipeline = (...a) => act(r.batch.b.execAsPipeline, env, a);
        return b;
      };
      const direct = (...a) => act(r.direct, env, a);
      client = { sendCommand: direct, call: direct, get: direct, smembers: direct, multi: batch, pipeline: batch };
    } else client = materialize(input.client, env);
    const made = cx.call(input.adapter, () => cutover[input.adapter](client));
    if (!made.ok) {
      if (!env.thrown.has(made.error)) cx.expect(isA(made.error, TypeError), `${input.adapter} must throw TypeError`);
      return;
    }
    const host = made.value;
    const mayHang = mayNeverSettle(input.client);
    for (const d of input.direct) {
      const args = materialize(d, env);
      const r = cx.call('host.command', () => host.command(args));
      if (r.ok && isA(r.value, Promise)) await cx.settle('host.command', r.value, { mayHang });
      const p = cx.call('host.pipeline', () => host.pipeline([args]));
      if (p.ok && isA(p.value, Promise)) await cx.settle('host.pipeline', p.value, { mayHang });
    }
    const store = cutover.redisBigSegmentStore(host);
    const q = input.query === 'meta' ? store.getMetadata() : store.getMembership('CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=');
    await cx.settle(`store.${input.query} via ${input.adapter}`, q, { mayHang });
  },
};

// ---------------------------------------------------------------------------------------------

/**
 * Every property, with its share of a run's case budget: the core ones sum to 1, background
 * mode's (helpers/background.mjs, names starting 'background' or 'Migrator background') come on
 * top with 0.22, and the structural walk's (helpers/differences.mjs: sameStructure,
 * mismatches() over hostile values, reordered keys) with 0.03.
 */
export const PROPERTIES = [
  { prop: hashContextKey, share: 0.12 },
  { prop: bigSegmentRef, share: 0.08 },
  { prop: failureAndFixedStage, share: 0.08 },
  { prop: builderCalls, share: 0.12 },
  { prop: migratorOps, share: 0.16 },
  { prop: opTracker, share: 0.1 },
  { prop: migrationVariationProp, share: 0.07 },
  { prop: launchDarklyClientProp, share: 0.04 },
  { prop: managerProp, share: 0.09 },
  { prop: redisStoreProp, share: 0.08 },
  { prop: adaptersProp, share: 0.06 },
  ...BACKGROUND_PROPERTIES,
  ...DIFFERENCES_PROPERTIES,
];

export { Violation };
