// The fuzz harness: the oracle every case is held to, the canary, module (re)loading, and a
// driver around fast-check that keeps going after a failure (a trap kills the wasm instance, so
// the driver loads a fresh one) and reports each distinct failure once, shrunk.
//
// Oracle, per case:
// - never a `WebAssembly.RuntimeError` (a trap), thrown, rejected or uncaught;
// - never an uncaught exception or unhandled rejection while the case runs;
// - every synchronous throw and every rejection is an `Error` instance, unless it is a value a
//   hostile callback of the case threw itself (`env.thrown`);
// - promises that must settle do (bounded waits); those allowed to hang are abandoned;
// - afterwards the module still works (`canary`).
//
// Nothing here imports cutover: the package comes in as a parameter (or through the caller's
// `require`, for fresh instances).
import fc from 'fast-check';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { makeEnv, safeString } from './hostile.mjs';

export class Violation extends Error {
  /** kind: 'trap' | 'uncaught' | 'unhandled' | 'non-error' | 'hang' | 'contract' | 'broken' */
  constructor(kind, message, cause) {
    super(`[${kind}] ${message}`, cause === undefined ? undefined : { cause });
    this.name = 'Violation';
    this.kind = kind;
  }
}

/** `value instanceof C`, false when a hostile proxy throws from getPrototypeOf. */
export function isA(value, C) {
  try {
    return value instanceof C;
  } catch {
    return false;
  }
}

export const isTrap = (e) => isA(e, WebAssembly.RuntimeError);

/** A short, never-throwing description of any value. */
export function show(v) {
  try {
    if (isA(v, Error)) return `${v.constructor?.name ?? 'Error'}: ${safeString(v.message).slice(0, 300)}`;
  } catch {
    return '<error with throwing accessors>';
  }
  if (typeof v === 'string') return JSON.stringify(v.length > 200 ? `${v.slice(0, 200)}…(${v.length})` : v);
  if (typeof v === 'symbol' || typeof v === 'bigint') return safeString(v);
  if (typeof v === 'function') return '[function]';
  if (v !== null && typeof v === 'object') {
    try {
      return Object.prototype.toString.call(v);
    } catch {
      return '[hostile object]';
    }
  }
  return String(v);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const macrotask = () => new Promise((r) => setImmediate(r));

// ---------------------------------------------------------------------------------------------
// Process-level watch: uncaught exceptions and unhandled rejections

/**
 * Records uncaught exceptions and unhandled rejections. Under --unhandled-rejections=strict an
 * unhandled rejection first arrives as 'uncaughtException' (origin 'unhandledRejection') and,
 * once handled there, again as 'unhandledRejection'; the second sighting is not counted twice.
 */
export function watchProcess() {
  const events = [];
  const onUncaught = (error, origin) => {
    events.push({ kind: origin === 'unhandledRejection' ? 'unhandled' : 'uncaught', error });
  };
  const onUnhandled = (reason) => {
    const last = events.at(-1);
    if (last && last.kind === 'unhandled' && Object.is(last.error, reason)) return;
    events.push({ kind: 'unhandled', error: reason });
  };
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUnhandled);
  return {
    events,
    dispose() {
      process.off('uncaughtException', onUncaught);
      process.off('unhandledRejection', onUnhandled);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Loading the package

/**
 * Loads cutover through `requireFn` (the caller's `createRequire(import.meta.url)`, so the
 * caller's resolution applies: tests/ → the packed build, fuzz/ → the repo's dist). `fresh()`
 * loads a copy of the package's dist/ from a new directory: a new module and a new wasm
 * instance, for after a trap. (`require()` loads cutover's ES module body, which Node caches by
 * URL outside `require.cache`, so evicting cache entries would hand back the same instance.)
 */
export function moduleLoader(requireFn) {
  const entry = requireFn.resolve('cutover');
  const dir = path.dirname(entry);
  let current = requireFn('cutover');
  let loads = 1;
  let copies;
  return {
    entry,
    get current() {
      return current;
    },
    get loads() {
      return loads;
    },
    fresh() {
      copies ??= mkdtempSync(path.join(tmpdir(), 'cutover-fresh-'));
      const copy = path.join(copies, String(loads));
      cpSync(dir, copy, { recursive: true });
      current = requireFn(path.join(copy, path.basename(entry)));
      loads++;
      return current;
    },
    /** Removes the copies fresh() made. */
    dispose() {
      if (copies !== undefined) rmSync(copies, { recursive: true, force: true });
      copies = undefined;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The canary

export const HASH_VECTORS = {
  'user-key': 'CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=',
  userkey1: 'egD7ldtwe3X6CFKAdPpwcvBas+KWGyNpv66/lW/SBsg=',
  '': '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=',
  é: 'SplVfkAzw1Od4utlRyAXytX5VX96BiWgnxw/biumnEw=',
};

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A fresh migrator reads right at 'shadow' and a hash vector matches; throws otherwise. */
export async function canary(cutover, timeoutMs = 200) {
  if (cutover.hashContextKey('user-key') !== HASH_VECTORS['user-key']) throw new Error('canary: hash vector mismatch');
  const events = [];
  const client = { migrationVariation: () => 'shadow', trackMigrationOp: (e) => events.push(e) };
  const migrator = new cutover.MigratorBuilder(client, { logger: silent })
    .read(
      async (p) => p.n,
      (p) => p.n + 1,
      (a, b) => a + 1 === b,
    )
    .write(
      () => 1,
      () => 2,
    )
    .build();
  const result = await Promise.race([
    migrator.read('canary', { kind: 'user', key: 'canary' }, 'off', { n: 41 }),
    sleep(timeoutMs).then(() => {
      throw new Error('canary: read did not settle');
    }),
  ]);
  if (result.origin !== 'old' || result.success !== true || result.value !== 41) {
    throw new Error(`canary: wrong read result ${JSON.stringify(result)}`);
  }
  const stats = migrator.stats();
  if (stats.read.count !== 1 || stats.read.consistency.consistent !== 1) throw new Error('canary: wrong stats');
  if (events.length !== 1 || events[0].kind !== 'migration_op') throw new Error('canary: no event');
}

// ---------------------------------------------------------------------------------------------
// Checking calls inside a case

/** The case context handed to a property's `run`. */
export function makeCaseContext(cutover, env) {
  const cx = {
    cutover,
    env,
    /** Is `e` an acceptable thrown/rejected value? Throws a Violation if not. */
    admissible(e, where) {
      if (isTrap(e)) throw new Violation('trap', `${where}: ${show(e)}`, e);
      if (isA(e, Violation)) throw e;
      if (env.thrown.has(e)) return 'passthrough';
      if (isA(e, Error)) return 'error';
      if (env.thrown.has(e)) return 'passthrough';
      throw new Violation('non-error', `${where} threw/rejected a non-Error that no callback threw: ${show(e)}`);
    },
    /** Calls `fn` synchronously: `{ok, value}` or `{ok: false, error}` (already checked). */
    call(where, fn) {
      try {
        return { ok: true, value: fn() };
      } catch (error) {
        cx.admissible(error, where);
        return { ok: false, error };
      }
    },
    /**
     * Waits for `promise` up to `ms`: `{status: 'fulfilled', value}`, `{status: 'rejected',
     * reason}` (checked) or `{status: 'pending'}` — a Violation('hang') unless `mayHang`.
     */
    async settle(where, promise, { ms = 150, mayHang = false } = {}) {
      if (!(promise instanceof Promise)) throw new Violation('contract', `${where} did not return a Promise`);
      let timer;
      const pending = new Promise((r) => {
        timer = setTimeout(() => r({ status: 'pending' }), mayHang ? Math.min(ms, 25) : ms);
      });
      const outcome = await Promise.race([
        promise.then(
          (value) => ({ status: 'fulfilled', value }),
          (reason) => ({ status: 'rejected', reason }),
        ),
        pending,
      ]);
      clearTimeout(timer);
      if (outcome.status === 'rejected') cx.admissible(outcome.reason, where);
      if (outcome.status === 'pending') {
        promise.catch(() => {}); // abandoned by design: a late rejection is not "unhandled"
        if (!mayHang) throw new Violation('hang', `${where} did not settle within ${ms} ms`);
      }
      return outcome;
    },
    expect(cond, message) {
      if (!cond) throw new Violation('contract', message);
    },
  };
  return cx;
}

// ---------------------------------------------------------------------------------------------
// Running cases and properties

function classify(e) {
  if (isA(e, Violation)) return e;
  if (isTrap(e)) return new Violation('trap', show(e), e);
  return new Violation('contract', `property threw ${show(e)}`, e);
}

/**
 * Runs one case: the property, then a macrotask for stray rejections, then the canary. Returns
 * undefined or the Violation. After a trap, a broken canary or an uncaught error the module is
 * replaced by a fresh instance.
 */
export async function executeCase(prop, input, state) {
  state.executed++;
  const env = makeEnv({ tame: state.tame });
  const mark = state.watch.events.length;
  let failure;
  try {
    const cx = makeCaseContext(state.loader.current, env);
    let timer;
    await Promise.race([
      prop.run(input, cx),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Violation('hang', `case did not finish within ${prop.deadlineMs ?? 2500} ms`)), prop.deadlineMs ?? 2500);
      }),
    ]).finally(() => clearTimeout(timer));
  } catch (e) {
    failure = classify(e);
  }
  await macrotask();
  env.cleanup();
  const stray = state.watch.events.slice(mark);
  if (!failure && stray.length > 0) {
    const first = stray.find((s) => isTrap(s.error)) ?? stray[0];
    failure = isTrap(first.error)
      ? new Violation('trap', `uncaught ${show(first.error)}`, first.error)
      : new Violation(first.kind, `${first.kind === 'unhandled' ? 'unhandled rejection' : 'uncaught exception'}: ${show(first.error)}`, first.error);
  }
  if (!failure || failure.kind === 'hang' || failure.kind === 'contract' || failure.kind === 'non-error') {
    try {
      await canary(state.loader.current);
    } catch (e) {
      failure = isTrap(e)
        ? new Violation('trap', `module dead after the case (canary: ${show(e)})`, e)
        : new Violation('broken', `module broken after the case (canary: ${show(e)})`, e);
    }
  }
  if (failure && ['trap', 'broken', 'uncaught', 'unhandled'].includes(failure.kind)) {
    state.loader.fresh();
    // Stray errors of the dead instance (its timers and abandoned tasks) may still surface: let
    // them, and forget them.
    await sleep(30);
    state.watch.events.length = mark;
  }
  return failure;
}

/** A stable name for a failure: kind + message without numbers, hashes or quoted values. */
export function signature(propName, v) {
  const msg = String(v.message)
    .replace(/"[^"]*"/g, '"…"')
    .replace(/'[^']*'/g, "'…'")
    .replace(/[A-Za-z0-9+/]{43}=/g, '<hash>')
    .replace(/\d+(\.\d+)?/g, 'N')
    .slice(0, 160);
  return `${propName} ${msg}`;
}

/**
 * Runs a property for `numRuns` generated cases with fast-check. A failure is shrunk the first
 * time its signature is seen (for at most `shrinkMs`: after that the remaining shrink candidates
 * are passed without running, so fast-check settles on the smallest failure found so far);
 * later occurrences are counted, not shrunk, and the property goes on (with the next seed)
 * until the budget is spent. Returns {runs, failures: [...], occurrences}.
 */
export async function fuzzProperty(prop, { numRuns, seed, state, shrinkMs = 15000 }) {
  const stats = { name: prop.name, runs: 0, failures: [], occurrences: new Map() };
  let remaining = numRuns;
  let round = 0;
  while (remaining > 0) {
    let shrinkingSince = null;
    let generated = 0;
    const property = fc.asyncProperty(prop.arbitrary, async (input) => {
      if (shrinkingSince === null) generated++;
      else if (performance.now() - shrinkingSince > shrinkMs) return true; // shrink budget spent
      const failure = await executeCase(prop, input, state);
      if (!failure) return true;
      const sig = signature(prop.name, failure);
      if (shrinkingSince === null) {
        stats.occurrences.set(sig, (stats.occurrences.get(sig) ?? 0) + 1);
        state.count(failure.kind);
      }
      if (state.known.has(sig)) return true; // already shrunk and reported
      shrinkingSince ??= performance.now();
      throw failure;
    });
    const result = await fc.check(property, { numRuns: remaining, seed: seed + round * 7919 });
    round++;
    stats.runs += generated;
    remaining -= generated;
    if (result.failed) {
      const error = result.errorInstance;
      const sig = signature(prop.name, error);
      state.known.add(sig);
      stats.failures.push({
        signature: sig,
        kind: error?.kind ?? 'contract',
        message: error?.message ?? String(error),
        counterexample: fc.stringify(result.counterexample?.[0]),
        seed: result.seed,
        path: result.counterexamplePath,
      });
    } else if (generated === 0) {
      break;
    }
  }
  stats.occurrenceCount = [...stats.occurrences.values()].reduce((a, b) => a + b, 0);
  return stats;
}

/** Driver state shared by all properties of a run. */
export function makeState(loader, { tame = false } = {}) {
  const counts = { trap: 0, uncaught: 0, unhandled: 0, 'non-error': 0, hang: 0, contract: 0, broken: 0 };
  return {
    loader,
    tame,
    watch: watchProcess(),
    executed: 0,
    known: new Set(),
    counts,
    count(kind) {
      counts[kind] = (counts[kind] ?? 0) + 1;
    },
  };
}

/** base64(SHA-256(UTF-8)) computed by Node, for the hash oracle. */
export function nodeHash(s) {
  return createHash('sha256').update(s, 'utf8').digest('base64');
}

/** Mutes console.warn/error (cutover's default logger) while fuzzing; returns a restore fn. */
export function muteConsole() {
  const saved = { warn: console.warn, error: console.error };
  let muted = 0;
  console.warn = () => void muted++;
  console.error = () => void muted++;
  return () => {
    console.warn = saved.warn;
    console.error = saved.error;
    return muted;
  };
}
