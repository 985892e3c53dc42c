// guard() under the fuzz (issue 30, shared/API.md §1 "Guardrails"). Two properties, run by
// fuzz/run.mjs (`--guard`: only these), fuzz/replay.mjs and tests/hardening/fuzz.test.mjs:
//
// - 'guard() options': random option objects, valid and not (out of range, wrong types, NaN,
//   ±Infinity, 2^32, BigInts, hostile values, unknown names) and non-objects. Refused: a
//   RangeError or TypeError whose message starts with `MigratorBuilder#guard: <option>` (unknown
//   names: `<name> is not an option of MigratorBuilder#guard`); accepted: the builder returned,
//   and the migrator it builds reads.
// - 'guard outcome streams': a guarded migrator (small random bounds, maybe background(), maybe
//   originTimeout) over a client serving each operation's random stage, driven by a stream of
//   reads and writes on 1–3 flag keys, one at a time or in bursts, whose origins return, throw,
//   reject, fail(), time out or hang until the caller aborts, with pauses past the cooldown; and a
//   hostile onChange that records, throws (Errors and other values), calls back into the
//   migrator (read, write, guard(), stats(), resetStats()), returns a rejecting promise (marked
//   handled, as hostile.mjs's `act` does: a listener's return value is ignored by contract), a
//   promise that never settles, or a thenable whose `then` throws. Checked beyond the harness's
//   oracle: every operation settles (an aborted one with its signal's reason), the changes of each
//   key form a chain of allowed moves (closed → tripped → probing → closed | tripped) starting
//   closed, guard(key) shows the last one, one warning per change, stats().guard agrees (trips,
//   recoveries, at most 100 keys, counts that are non-negative integers) unless resetStats() ran,
//   and, one operation at a time with a long cooldown, a tripped key's reads never call the new
//   origin at the stages that write the old one.
import fc from 'fast-check';

import { STAGES, anyValue, materialize } from './hostile.mjs';
import { isA, show } from './harness.mjs';

const OWNER = 'MigratorBuilder#guard';
const NUMBERS = ['maxErrorRate', 'maxConsecutiveErrors', 'maxLatencyRatio', 'maxInconsistency', 'windowMs', 'minCalls', 'cooldownMs', 'probeRatio'];
const SHARES = new Set(['maxErrorRate', 'maxInconsistency']);
const COUNTS = new Set(['maxConsecutiveErrors', 'minCalls', 'probeRatio']);
const DURATIONS = new Set(['windowMs', 'cooldownMs']);
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** What the stream property exercised, summed over a run (fuzz/run.mjs prints it). */
export const coverage = { cases: 0, ops: 0, aborted: 0, trips: 0, probes: 0, recoveries: 0, trippedReadsChecked: 0, reentries: 0 };

/** Whether `n` (a number) is a valid value of option `name`. */
function validNumber(name, n) {
  if (SHARES.has(name)) return n > 0 && n <= 1;
  if (COUNTS.has(name)) return Number.isInteger(n) && n >= 1 && n <= 2 ** 32 - 1;
  if (DURATIONS.has(name)) return Number.isFinite(n) && n > 0;
  return Number.isFinite(n) && n > 1; // maxLatencyRatio
}

// ---------------------------------------------------------------------------------------------
// guard() options

const numberValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(0.05, 0.1, 0.5, 1, 1.5, 2, 3, 10, 100, 1000, 60000, 2 ** 32 - 1) },
  { weight: 3, arbitrary: fc.constantFrom(0, -0, -1, 1.01, 2.5, NaN, Infinity, -Infinity, 2 ** 32, 2 ** 53, Number.MIN_VALUE, 1e21) },
  { weight: 1, arbitrary: fc.double() },
);
const optionValue = fc.oneof(
  { weight: 6, arbitrary: numberValue.map((v) => ({ k: 'v', v })) },
  { weight: 2, arbitrary: fc.constantFrom('5', '', null, true, undefined).map((v) => ({ k: 'v', v })) },
  { weight: 1, arbitrary: fc.constant({ k: 'bigint', v: 5n }) },
  { weight: 1, arbitrary: anyValue },
);
const onChangeValue = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ k: 'listener' }) },
  { weight: 2, arbitrary: fc.constantFrom(null, 0, 'onChange', true, undefined).map((v) => ({ k: 'v', v })) },
  { weight: 1, arbitrary: anyValue },
);
const EXTRA_KEYS = ['maxErorRate', 'maxerrorrate', 'cooldown', 'onchange', 'probe', 'window', 'timeout', '__proto__'];

const guardOptions = {
  name: 'guard() options',
  arbitrary: fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .record(
          {
            ...Object.fromEntries(NUMBERS.map((n) => [n, optionValue])),
            onChange: onChangeValue,
            extra: fc.constantFrom(...EXTRA_KEYS),
          },
          { requiredKeys: [] },
        )
        .map((r) => ({ k: 'opts', ...r })),
    },
    { weight: 1, arbitrary: fc.constant({ k: 'none' }) },
    { weight: 2, arbitrary: anyValue.map((o) => ({ k: 'any', o })) },
  ),
  async run(input, cx) {
    const { cutover, env } = cx;
    const builder = new cutover.MigratorBuilder({ migrationVariation: () => 'live' }, { logger: silent })
      .read(() => 1, async () => 2)
      .write(() => 1, () => 2);
    let options;
    const problems = []; // [{ ctor, prefix }]: one of them must be thrown
    let anything = false; // hostile values: any TypeError/RangeError or a passed-through throw
    if (input.k === 'opts') {
      options = {};
      for (const name of NUMBERS) {
        if (!(name in input)) continue;
        const value = materialize(input[name], env);
        options[name] = value;
        if (value === undefined) continue;
        if (typeof value !== 'number') {
          problems.push({ ctor: TypeError, prefix: `${OWNER}: ${name} must be a number` });
          if (input[name].k !== 'v' && input[name].k !== 'bigint') anything = true;
        } else if (!validNumber(name, value)) {
          problems.push({ ctor: RangeError, prefix: `${OWNER}: ${name} must be ` });
        }
      }
      if ('onChange' in input) {
        const f = input.onChange.k === 'listener' ? () => {} : materialize(input.onChange, env);
        options.onChange = f;
        if (f !== undefined && !env.isFunction(f)) {
          if (typeof f === 'function') anything = true; // a function-target proxy
          else problems.push({ ctor: TypeError, prefix: `${OWNER}: onChange must be a function` });
          if (input.onChange.k !== 'v' && input.onChange.k !== 'listener') anything = true;
        }
      }
      if ('extra' in input) {
        Object.defineProperty(options, input.extra, { value: 1, enumerable: true, configurable: true, writable: true });
        problems.push({ ctor: TypeError, prefix: `${input.extra} is not an option of ${OWNER}` });
      }
    } else if (input.k === 'any') {
      options = materialize(input.o, env);
      anything = true;
      if (options !== undefined && (options === null || (typeof options !== 'object' && typeof options !== 'function'))) {
        problems.push({ ctor: TypeError, prefix: `${OWNER}: options must be an object` });
        anything = false;
      }
    }
    const r = cx.call('MigratorBuilder#guard', () => (input.k === 'none' ? builder.guard() : builder.guard(options)));
    if (r.ok) {
      cx.expect(problems.length === 0 || anything, `guard(${show(options)}) accepted, expected ${problems.map((p) => `${p.ctor.name} '${p.prefix}…'`).join(' or ')}`);
      cx.expect(r.value === builder, 'guard() must return the builder');
      const migrator = builder.build();
      const out = await cx.settle('read (guarded)', migrator.read('flag', { key: 'k' }, 'off', undefined));
      cx.expect(out.status === 'fulfilled' && out.value.origin === 'new' && out.value.value === 2, `read → ${show(out.value ?? out.reason)}`);
      const g = migrator.stats().guard;
      cx.expect(g !== null && g.flags.flag?.state === 'closed', `stats().guard after one read: ${show(g)}`);
      return;
    }
    if (env.thrown.has(r.error)) return;
    const fits = problems.some((p) => isA(r.error, p.ctor) && String(r.error.message).startsWith(p.prefix));
    const typed = isA(r.error, TypeError) || isA(r.error, RangeError);
    if (problems.length === 0) cx.expect(anything && typed, `guard(${show(options)}) threw ${show(r.error)}`);
    else cx.expect(fits || (anything && typed), `guard(): expected ${problems.map((p) => `${p.ctor.name} '${p.prefix}…'`).join(' or ')}, got ${show(r.error)}`);
  },
};

// ---------------------------------------------------------------------------------------------
// Outcome streams

const OUTCOMES = ['ok', 'ok', 'ok', 'async', 'async', 'throw', 'reject', 'failure', 'hang'];
const step = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      t: fc.constant('op'),
      op: fc.constantFrom('read', 'read', 'write'),
      key: fc.integer({ min: 0, max: 2 }),
      stage: fc.constantFrom(...STAGES, 'live', 'live', 'shadow'),
      new: fc.constantFrom(...OUTCOMES),
      old: fc.constantFrom('ok', 'ok', 'ok', 'async', 'throw', 'failure'),
      abort: fc.constantFrom(null, null, null, 'pre', 0, 1, 3),
    }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('pause'), ms: fc.constantFrom(1, 3, 8) }) },
);

const onChangeRecipe = fc.constantFrom('record', 'throw', 'throwValue', 'reenter', 'rejects', 'never', 'thenable', 'none');
const REENTRY_BUDGET = 6;
const MOVES = new Set(['closed>tripped', 'tripped>probing', 'probing>closed', 'probing>tripped']);
const FALLS_BACK = new Set(['dualwrite', 'shadow', 'live', 'rampdown']);

const guardStreams = {
  name: 'guard outcome streams',
  deadlineMs: 6000,
  arbitrary: fc.record({
    guard: fc.record(
      {
        maxErrorRate: fc.constantFrom(0.1, 0.5, 1),
        maxConsecutiveErrors: fc.integer({ min: 1, max: 4 }),
        maxLatencyRatio: fc.constantFrom(1.5, 4),
        maxInconsistency: fc.constantFrom(0.2, 1),
        windowMs: fc.constantFrom(5, 50, 60000),
        minCalls: fc.integer({ min: 1, max: 5 }),
        cooldownMs: fc.constantFrom(1, 1, 4, 60000),
        probeRatio: fc.integer({ min: 1, max: 3 }),
      },
      { requiredKeys: ['cooldownMs'] },
    ),
    onChange: onChangeRecipe,
    background: fc.boolean(),
    originTimeout: fc.constantFrom(undefined, 4),
    order: fc.constantFrom('parallel', 'serial', 'random'),
    comparison: fc.constantFrom('equal', 'differ', 'throw', 'none'),
    burst: fc.boolean(),
    steps: fc.array(step, { minLength: 1, maxLength: 20 }),
  }),
  async run(input, cx) {
    const { cutover, env } = cx;
    const changes = [];
    const warnings = [];
    const logger = { ...silent, warn: (...a) => warnings.push(a.map(String).join(' ')) };
    let reentries = 0;
    let reset = false;
    const nested = [];
    const newCalledBy = new Set(); // the ids of the operations whose new origin ran
    const answer = (p, value, signal, origin) => {
      const outcome = p[origin];
      if (origin === 'new') newCalledBy.add(p.id);
      switch (outcome) {
        case 'ok':
          return value;
        case 'async':
          return Promise.resolve(value);
        case 'throw':
          throw new Error(`${origin} down`);
        case 'reject':
          return Promise.reject(new Error(`${origin} down`));
        case 'failure':
          return cutover.failure(new Error(`${origin} down`));
        default: // 'hang': until the signal aborts (originTimeout or the caller)
          return new Promise((resolve, reject) => {
            if (signal.aborted) return reject(signal.reason);
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          });
      }
    };
    let migrator;
    const reenter = (change) => {
      if (reentries++ >= REENTRY_BUDGET) return;
      migrator.guard(change.flagKey);
      migrator.stats();
      if (reentries % 3 === 0) {
        migrator.resetStats();
        reset = true;
      }
      const p = migrator[reentries % 2 ? 'read' : 'write'](change.flagKey, { kind: 'user', key: 'nested', stage: 'live' }, 'off', { id: -1, new: 'ok', old: 'ok' });
      nested.push(p);
    };
    const onChange = {
      record: (c) => changes.push(c),
      throw: (c) => {
        changes.push(c);
        throw new Error('onChange threw');
      },
      throwValue: (c) => {
        changes.push(c);
        throw env.thrown.add('onChange threw a string');
      },
      reenter: (c) => {
        changes.push(c);
        reenter(c);
      },
      rejects: (c) => {
        changes.push(c);
        const p = Promise.reject(env.thrown.add(new Error('onChange rejected')));
        p.catch(() => {}); // a listener's return value is ignored by contract
        return p;
      },
      never: (c) => {
        changes.push(c);
        return new Promise(() => {});
      },
      thenable: (c) => {
        changes.push(c);
        return {
          then() {
            throw env.thrown.add('onChange thenable threw');
          },
        };
      },
      none: undefined,
    }[input.onChange];
    const client = { migrationVariation: (key, context) => context.stage, trackMigrationOp() {} };
    const builder = new cutover.MigratorBuilder(client, { logger }).readExecutionOrder(input.order);
    if (input.background) builder.background();
    // A hanging origin needs a bound: without originTimeout, only an operation the caller aborts may hang.
    if (input.originTimeout !== undefined) builder.originTimeout(input.originTimeout);
    builder.guard({ ...input.guard, ...(onChange && { onChange }) });
    const comparison = { equal: (a, b) => a === b, differ: () => false, throw: () => { throw new Error('comparison threw'); }, none: undefined }[input.comparison];
    builder.read((p, s) => answer(p, 'v', s, 'old'), (p, s) => answer(p, 'v', s, 'new'), comparison);
    builder.write((p, s) => answer(p, 'w', s, 'old'), (p, s) => answer(p, 'w', s, 'new'));
    migrator = builder.build();
    const longCooldown = input.guard.cooldownMs >= 60000;

    const start = (s, i) => {
      // With no originTimeout a hang needs the caller's abort, and a background part (which the
      // caller's signal no longer bounds once the operation resolved) must not hang at all.
      if (s.new === 'hang' && input.originTimeout === undefined && input.background) s = { ...s, new: 'throw' };
      const hangs = s.new === 'hang' && input.originTimeout === undefined;
      const abort = hangs && s.abort === null ? 1 : s.abort; // a hang needs an abort
      let signal;
      let reason;
      if (abort !== null) {
        const controller = new AbortController();
        reason = new Error(`caller abort ${i}`);
        if (abort === 'pre') controller.abort(reason);
        else setTimeout(() => controller.abort(reason), abort);
        signal = controller.signal;
      }
      const key = `g${s.key}`;
      const promise = migrator[s.op](key, { kind: 'user', key: `u${i}`, stage: s.stage }, 'off', { id: i, new: s.new, old: s.old }, signal ? { signal } : undefined);
      return { s, key, promise, reason };
    };
    const check = async (run, i) => {
      const out = await cx.settle(`${run.s.op} ${i}`, run.promise, { ms: 400 });
      coverage.ops++;
      if (out.status === 'rejected') {
        coverage.aborted++;
        cx.expect(run.reason !== undefined && out.reason === run.reason, `${run.s.op} ${i} rejected with ${show(out.reason)}, not its abort reason`);
        return;
      }
      const r = run.s.op === 'read' ? out.value : out.value?.authoritative;
      cx.expect(r && (r.origin === 'old' || r.origin === 'new') && typeof r.success === 'boolean', `${run.s.op} ${i} → ${show(out.value)}`);
    };

    if (input.burst) {
      const runs = input.steps.filter((s) => s.t === 'op').map(start);
      await Promise.all(runs.map(check)); // each followed at once: an early rejection is handled
    } else {
      for (let i = 0; i < input.steps.length; i++) {
        const s = input.steps[i];
        if (s.t === 'pause') {
          await new Promise((r) => setTimeout(r, s.ms));
          continue;
        }
        const key = `g${s.key}`;
        const wasTripped = migrator.guard(key).state === 'tripped';
        await check(start(s, i), i);
        // One at a time, tripped, with no cooldown in reach: a read at a stage that writes the
        // old origin never calls the new one.
        if (wasTripped && longCooldown && s.op === 'read' && FALLS_BACK.has(s.stage)) {
          coverage.trippedReadsChecked++;
          cx.expect(!newCalledBy.has(i), `tripped ${key}: a read at ${s.stage} called the new origin`);
        }
      }
    }
    for (const [i, p] of nested.entries()) await cx.settle(`nested operation ${i}`, p, { ms: 400 });
    await cx.settle('settled()', migrator.settled(), { ms: 400 });

    coverage.cases++;
    coverage.reentries += Math.min(reentries, REENTRY_BUDGET);
    for (const c of changes) coverage[{ tripped: 'trips', probing: 'probes', closed: 'recoveries' }[c.to]]++;
    const stats = migrator.stats().guard;
    const isCount = (n) => Number.isInteger(n) && n >= 0;
    cx.expect(stats && isCount(stats.trips) && isCount(stats.recoveries) && isCount(stats.fallbacks.read) && isCount(stats.fallbacks.write), `stats().guard: ${JSON.stringify(stats)}`);
    cx.expect(Object.keys(stats.flags).length <= 100, 'at most 100 flag keys');
    for (const [key, view] of Object.entries(stats.flags)) {
      cx.expect(['closed', 'tripped', 'probing'].includes(view.state) && Number.isFinite(view.since), `flags.${key}: ${JSON.stringify(view)}`);
    }
    if (input.onChange === 'none') return;
    const warned = warnings.filter((w) => w.startsWith('migration guard of flag ')).length;
    cx.expect(warned === changes.length, `${warned} warnings for ${changes.length} changes`);
    const last = new Map();
    for (const c of changes) {
      const from = last.get(c.flagKey) ?? 'closed';
      cx.expect(c.from === from && MOVES.has(`${c.from}>${c.to}`), `${c.flagKey}: ${c.from} -> ${c.to} after ${from}`);
      cx.expect(typeof c.reason === 'string' && c.reason.length > 0 && Number.isFinite(c.at), `change ${JSON.stringify(c)}`);
      const w = c.window;
      cx.expect([w.newCalls, w.newErrors, w.checked, w.inconsistent].every(isCount) && w.newErrors <= w.newCalls && w.inconsistent <= w.checked, `window ${JSON.stringify(w)}`);
      last.set(c.flagKey, c.to);
    }
    for (const [key, to] of last) cx.expect(migrator.guard(key).state === to, `guard(${key}) is ${migrator.guard(key).state}, its last change went to ${to}`);
    if (!reset) {
      cx.expect(stats.trips === changes.filter((c) => c.to === 'tripped').length, `trips ${stats.trips} vs ${changes.length} changes`);
      cx.expect(stats.recoveries === changes.filter((c) => c.to === 'closed').length, `recoveries ${stats.recoveries}`);
    }
  },
};

export const GUARD_PROPERTIES = [
  { prop: guardOptions, share: 0.02 },
  { prop: guardStreams, share: 0.04 },
];
