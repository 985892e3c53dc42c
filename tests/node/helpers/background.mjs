// Helpers for the background-mode suites (issue 21, API.md §1 "Shadowing in production"):
// origins that settle only when a test releases them, a way to let pending work run without
// waiting on a clock, and a migrator factory with or without `background()`.
import assert from 'node:assert/strict';
import { MigratorBuilder } from 'cutover';
import { makeClient, makeLogger } from './migration.mjs';

export { CTX, makeClient, makeLogger, measurement, normalizeEvent } from './migration.mjs';

/** A promise with its resolve and reject functions. */
export function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Lets the event loop go round `n` times (check phase, no timers): enough for every microtask,
 * promise chain and immediate that is ready to run. Used to show that something did NOT happen
 * while an origin is still held back, never to wait for a duration.
 */
export async function turns(n = 10) {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Follows a promise: `w.settled`, `w.fulfilled`, `w.value`, `w.error`; `w.done` never rejects. */
export function watch(promise) {
  const w = { settled: false, fulfilled: false, rejected: false, value: undefined, error: undefined };
  w.done = Promise.resolve(promise).then(
    (value) => {
      Object.assign(w, { settled: true, fulfilled: true, value });
      return w;
    },
    (error) => {
      Object.assign(w, { settled: true, rejected: true, error });
      return w;
    },
  );
  return w;
}

/**
 * Origins held back until the test releases them. `gates.origin(name)` makes an origin; each
 * call is recorded (`calls`: name, payload, signal, settled) and answers a promise that settles
 * when the test calls `gates.resolve(name, value)` / `gates.reject(name, error)` (the oldest
 * unsettled call of that name). `log` has `start <name>` at each call and `settle <name>` when
 * the test releases it, in that order.
 */
export function makeGates() {
  const calls = [];
  const log = [];
  function pending(name) {
    const call = calls.find((c) => c.name === name && !c.settled);
    assert.ok(call, `an unsettled call of origin ${name} (calls: ${calls.map((c) => c.name).join(', ') || 'none'})`);
    return call;
  }
  return {
    calls,
    log,
    origin(name) {
      return (payload, signal) => {
        const d = deferred();
        calls.push({ name, payload, signal, settled: false, d });
        log.push(`start ${name}`);
        return d.promise;
      };
    },
    names() {
      return calls.map((c) => c.name);
    },
    count(name) {
      return calls.filter((c) => c.name === name).length;
    },
    isPending(name) {
      return calls.some((c) => c.name === name && !c.settled);
    },
    signalOf(name) {
      const all = calls.filter((c) => c.name === name);
      return all[all.length - 1]?.signal;
    },
    resolve(name, value = `${name}-value`) {
      const call = pending(name);
      call.settled = true;
      log.push(`settle ${name}`);
      call.d.resolve(value);
    },
    /** Settles the newest unsettled call of `name` (resolve() takes the oldest). */
    resolveLatest(name, value = `${name}-value`) {
      const call = calls.findLast((c) => c.name === name && !c.settled);
      assert.ok(call, `an unsettled call of origin ${name}`);
      call.settled = true;
      log.push(`settle ${name}`);
      call.d.resolve(value);
    },
    reject(name, error) {
      const call = pending(name);
      call.settled = true;
      log.push(`settle ${name}`);
      call.d.reject(error);
    },
  };
}

/** The authoritative origin of a read or write at `stage` (SPEC A1). */
export function authoritativeAt(stage) {
  return ['off', 'dualwrite', 'shadow'].includes(stage) ? 'old' : 'new';
}
export const otherThan = (origin) => (origin === 'old' ? 'new' : 'old');

/**
 * A migrator over a fake client (helpers/migration.mjs makeClient) whose origins are gated by
 * default. Options:
 *   stage, order, originTimeout, meter, logger;
 *   background: an options object or `true` → `background(options)`; `false` → not called;
 *     `'bare'` → `background()` with no argument. Default `'bare'`.
 *   readOld/readNew/writeOld/writeNew: origin functions replacing the gated ones;
 *   comparison: the read comparison (default: `===`, recorded in `compared`); `null`: none;
 *   trackMigrationOp: replaces the fake client's (which records into `events`).
 */
export function bgSetup(opts = {}) {
  const client = makeClient(opts.evaluation ?? opts.stage ?? 'off');
  if (opts.trackMigrationOp) client.client.trackMigrationOp = opts.trackMigrationOp;
  const log = makeLogger();
  const reads = makeGates();
  const writes = makeGates();
  const compared = [];
  const builder = new MigratorBuilder(client.client, { logger: opts.logger ?? log.logger });
  if (opts.order) builder.readExecutionOrder(opts.order);
  if (opts.originTimeout !== undefined) builder.originTimeout(opts.originTimeout);
  if (opts.meter) builder.meter(opts.meter);
  const bg = opts.background ?? 'bare';
  if (bg === 'bare') builder.background();
  else if (bg === true) builder.background({});
  else if (bg !== false) builder.background(bg);
  const readOld = opts.readOld ?? reads.origin('old');
  const readNew = opts.readNew ?? reads.origin('new');
  const comparison =
    opts.comparison === undefined
      ? (a, b) => {
          compared.push([a, b]);
          return a === b;
        }
      : opts.comparison;
  if (comparison) builder.read(readOld, readNew, comparison);
  else builder.read(readOld, readNew);
  builder.write(opts.writeOld ?? writes.origin('old'), opts.writeNew ?? writes.origin('new'));
  const migrator = builder.build();
  return { migrator, builder, client, events: client.events, log, reads, writes, compared };
}

/** An origin answering at once: `spec` is a value, `{ throws }` or `{ rejects }`. */
export function answering(spec) {
  return async () => {
    if (spec && typeof spec === 'object' && 'throws' in spec) throw spec.throws;
    if (spec && typeof spec === 'object' && 'rejects' in spec) return Promise.reject(spec.rejects);
    return spec;
  };
}

/** Records every waitUntil call: `fn`, and `promises` with what they settled to. */
export function makeWaitUntil() {
  const calls = [];
  const fn = (promise, ...rest) => {
    calls.push({ promise, argc: 1 + rest.length, watched: watch(promise) });
  };
  return { fn, calls };
}
