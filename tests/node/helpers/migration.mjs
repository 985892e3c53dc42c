// Shared helpers for the migration test suite (written from API.md §1/§3 and SPEC.md Part A only).
import assert from 'node:assert/strict';
import { MigratorBuilder } from 'cutover';
import { makeLogger } from './common.mjs';

export { makeLogger, sleep } from './common.mjs';

export const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];
export const CTX = Object.freeze({ kind: 'user', key: 'u1' });

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function abortableSleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(t);
      reject(signal.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A fake MigrationClient. `evaluation` may be a stage string, a StageEvaluation object or a
 * function (key, context, default) => result. It can be changed later via `state.evaluation`.
 */
export function makeClient(evaluation = 'off') {
  const state = { evaluation, events: [], asks: [] };
  state.client = {
    migrationVariation(key, context, defaultStage) {
      state.asks.push({ key, context, defaultStage });
      const ev = state.evaluation;
      if (typeof ev === 'function') return ev(key, context, defaultStage);
      if (ev !== null && typeof ev === 'object') return { ...ev };
      return { value: ev };
    },
    trackMigrationOp(event) {
      state.events.push(event);
    },
  };
  return state;
}

/**
 * Records origin calls. `origin(name, behaviour)` returns an origin function; behaviour is
 * (payload, signal, n) => value | Promise (default: returns `${name}-value`).
 */
export function makeRecorder() {
  const calls = [];
  const log = [];
  return {
    calls,
    log,
    origin(name, behaviour = () => `${name}-value`) {
      let n = 0;
      return (...args) => {
        const [payload, signal] = args;
        calls.push({ name, payload, signal, argc: args.length });
        log.push(`start ${name}`);
        const out = behaviour(payload, signal, n++);
        if (out && typeof out.then === 'function') {
          return out.then(
            (v) => {
              log.push(`end ${name}`);
              return v;
            },
            (e) => {
              log.push(`end ${name}`);
              throw e;
            },
          );
        }
        log.push(`end ${name}`);
        return out;
      };
    },
    names() {
      return calls.map((c) => c.name);
    },
  };
}

/**
 * Builds a migrator over a fake client. Options:
 *   stage/evaluation, logger, order, comparison, trackLatency, trackErrors, originTimeout,
 *   readOld/readNew/writeOld/writeNew (behaviours for makeRecorder().origin).
 */
export function setup(opts = {}) {
  const client = makeClient(opts.evaluation ?? opts.stage ?? 'off');
  const log = makeLogger();
  const rec = makeRecorder();
  const builder = new MigratorBuilder(client.client, { logger: opts.logger ?? log.logger });
  if (opts.order) builder.readExecutionOrder(opts.order);
  if (opts.trackLatency !== undefined) builder.trackLatency(opts.trackLatency);
  if (opts.trackErrors !== undefined) builder.trackErrors(opts.trackErrors);
  if (opts.originTimeout !== undefined) builder.originTimeout(opts.originTimeout);
  const readOld = rec.origin('old', opts.readOld);
  const readNew = rec.origin('new', opts.readNew);
  if (opts.comparison) builder.read(readOld, readNew, opts.comparison);
  else builder.read(readOld, readNew);
  builder.write(
    rec.origin('old', opts.writeOld ?? (() => 'old-written')),
    rec.origin('new', opts.writeNew ?? (() => 'new-written')),
  );
  const migrator = builder.build();
  return { migrator, builder, client, events: client.events, log, rec };
}

/**
 * Returns a structured clone of a wire event with creationDate and every latency value set to 0,
 * after asserting they are finite, non-negative numbers.
 */
export function normalizeEvent(event) {
  assert.equal(typeof event, 'object');
  assert.notEqual(event, null);
  const e = structuredClone(event);
  assert.equal(typeof e.creationDate, 'number', 'creationDate is a number');
  assert.ok(Number.isFinite(e.creationDate));
  e.creationDate = 0;
  assert.ok(Array.isArray(e.measurements), 'measurements is an array');
  for (const m of e.measurements) {
    if (m.key === 'latency_ms') {
      for (const k of Object.keys(m.values)) {
        assert.equal(typeof m.values[k], 'number', `latency ${k} is a number`);
        assert.ok(Number.isFinite(m.values[k]) && m.values[k] >= 0, `latency ${k} >= 0`);
        m.values[k] = 0;
      }
    }
  }
  return e;
}

export function measurement(event, key) {
  return event.measurements.find((m) => m.key === key);
}

/** The value a client returned from migrationVariation, string or object. */
export function servedValue(result) {
  return typeof result === 'string' ? result : result?.value;
}

/** A fake LaunchDarkly-shaped ExternalTracker recording every call. */
export function makeFakeTracker(opts = {}) {
  const sample = opts.sample ?? true;
  const event = 'event' in opts ? opts.event : { kind: 'migration_op', fake: true };
  const calls = [];
  const tracker = {
    calls,
    createdEvent: event,
    op(operation) {
      calls.push(['op', operation]);
    },
    invoked(origin) {
      calls.push(['invoked', origin]);
    },
    latency(origin, ms) {
      calls.push(['latency', origin, ms]);
    },
    error(origin) {
      calls.push(['error', origin]);
    },
    consistency(check) {
      calls.push(['consistency', typeof check]);
      if (sample) {
        const r = check();
        calls.push(['consistency-result', r]);
      }
    },
    createEvent() {
      calls.push(['createEvent']);
      return event;
    },
  };
  return tracker;
}
