// Helpers for the guard() suites (issue 30, API.md §1 "Guardrails"): a migrator over a fake
// client whose new origin's health the test switches (`health.read` / `health.write`), every
// origin call recorded, every change the guard reports collected; and a fake meter.
import assert from 'node:assert/strict';
import { MigratorBuilder, failure } from 'cutover';
import { abortableSleep, makeClient, makeLogger, makeRecorder, sleep } from './migration.mjs';

export { CTX, STAGES, makeClient, makeFakeTracker, makeLogger, measurement, sleep } from './migration.mjs';

/** The failures the guard counts, as a new origin brings them. */
export const FAILURE_KINDS = ['throw', 'reject', 'failure', 'timeout'];

/**
 * What an origin answers in `mode`: 'ok' → `value`; 'throw', 'reject', 'failure' → that failure;
 * 'hang' and 'timeout' → a promise that settles only when the origin's signal aborts (the
 * migrator's `originTimeout` or the caller's abort). 'slow:<ms>' → `value` after ms (not listening
 * to the signal: an operation that cannot be cancelled gets the one signal that never aborts);
 * 'spin:<ms>' → `value` after keeping the thread busy for ms (a duration no stall can shorten).
 */
export function answerIn(mode, value, signal) {
  if (mode === 'ok') return value;
  if (mode === 'throw') throw new Error(`${value} down (throw)`);
  if (mode === 'reject') return Promise.reject(new Error(`${value} down (reject)`));
  if (mode === 'failure') return failure(new Error(`${value} down (failure)`));
  if (mode === 'hang' || mode === 'timeout') return abortableSleep(60_000, signal);
  if (mode.startsWith('slow:')) return sleep(Number(mode.slice(5))).then(() => value);
  if (mode.startsWith('spin:')) {
    const until = performance.now() + Number(mode.slice(5));
    while (performance.now() < until);
    return value;
  }
  throw new Error(`unknown mode ${mode}`);
}

/**
 * A migrator with `guard(options.guard)` over a fake client serving `stage` (default 'live';
 * `client.evaluation` changes it). Origins are recorded (`rec.names()`); each answers as its
 * `health` entry says (`health.read`, `health.write`: the new origins; `health.oldRead`,
 * `health.oldWrite`: the old ones; all 'ok' at first). Options: stage/evaluation, guard (the
 * options; `null`: no guard()), onChange (default: pushed to `changes`; `false`: none),
 * originTimeout, order, comparison, background, meter, logger.
 */
export function guardSetup(opts = {}) {
  const client = makeClient(opts.evaluation ?? opts.stage ?? 'live');
  const log = makeLogger();
  const rec = makeRecorder();
  const changes = [];
  const health = { read: 'ok', write: 'ok', oldRead: 'ok', oldWrite: 'ok' };
  const builder = new MigratorBuilder(client.client, { logger: opts.logger ?? log.logger });
  if (opts.order) builder.readExecutionOrder(opts.order);
  if (opts.originTimeout !== undefined) builder.originTimeout(opts.originTimeout);
  if (opts.meter) builder.meter(opts.meter);
  if (opts.background) builder.background(opts.background === true ? undefined : opts.background);
  if (opts.guard !== null) {
    const onChange = opts.onChange === undefined ? (change) => changes.push(change) : opts.onChange;
    assert.equal(builder.guard({ ...opts.guard, ...(onChange && { onChange }) }), builder, 'guard() returns the builder');
  }
  const origin = (name, value, key) => rec.origin(name, (payload, signal) => answerIn(health[key], value, signal));
  const readOld = origin('old', 'old-value', 'oldRead');
  const readNew = origin('new', 'new-value', 'read');
  if (opts.comparison) builder.read(readOld, readNew, opts.comparison);
  else builder.read(readOld, readNew);
  builder.write(origin('old', 'old-written', 'oldWrite'), origin('new', 'new-written', 'write'));
  const migrator = builder.build();
  const flag = opts.flagKey ?? 'guarded';
  return {
    migrator,
    client,
    events: client.events,
    log,
    rec,
    health,
    changes,
    flag,
    /** Reads `n` times in a row (flag `key`), the results. */
    async reads(n, key = flag, context = { kind: 'user', key: 'u1' }) {
      const results = [];
      for (let i = 0; i < n; i++) results.push(await migrator.read(key, context, 'off'));
      return results;
    },
    /** One read or write; the origins it called, in call order, and its result. */
    async run(op, key = flag) {
      const mark = rec.calls.length;
      const result = await migrator[op](key, { kind: 'user', key: 'u1' }, 'off');
      return { result, called: rec.calls.slice(mark).map((c) => c.name) };
    },
    state: (key = flag) => migrator.guard(key).state,
  };
}

/**
 * Trips the guard of `g.flag` from the reads of a failing new origin at 'live' (`n`: the
 * options' maxConsecutiveErrors); the stage and the health are put back as they were.
 */
export async function trip(g, n = 10, key = g.flag) {
  const { evaluation } = g.client;
  const was = g.health.read;
  g.client.evaluation = 'live';
  g.health.read = 'throw';
  await g.reads(n, key);
  g.health.read = was;
  g.client.evaluation = evaluation;
  assert.equal(g.state(key), 'tripped', `tripped after ${n} failures`);
}

/** The change objects' `[from, to]` pairs. */
export const moves = (changes) => changes.map((c) => [c.from, c.to]);

/**
 * A fake OpenTelemetry meter: `adds` (name, value, attributes) of every counter, the observable
 * gauges' callbacks by name (`observe(name)`: what they report now, as [value, attributes]).
 * `gauges: false` leaves createObservableGauge out.
 */
export function fakeMeter({ gauges = true } = {}) {
  const adds = [];
  const callbacks = new Map();
  const meter = {
    createCounter: (name) => ({ add: (value, attributes) => adds.push({ name, value, attributes: { ...attributes } }) }),
    createHistogram: () => ({ record() {} }),
  };
  if (gauges) {
    meter.createObservableGauge = (name) => {
      if (!callbacks.has(name)) callbacks.set(name, new Set());
      return { addCallback: (cb) => callbacks.get(name).add(cb), removeCallback: (cb) => callbacks.get(name).delete(cb) };
    };
  }
  return {
    meter,
    adds,
    callbacks,
    counted: (name) => adds.filter((a) => a.name === name).map((a) => [a.value, a.attributes]),
    observe(name) {
      const seen = [];
      for (const cb of callbacks.get(name) ?? []) cb({ observe: (value, attributes) => seen.push([value, { ...attributes }]) });
      return seen;
    },
  };
}
