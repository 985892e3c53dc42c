// LaunchDarkly's `createMigration(client, options)` over a cutover migrator: LaunchDarkly's
// options (LDMigrationOptions), helpers and result shapes, LaunchDarkly's semantics where they
// differ from cutover's own (Fixed ordering runs old, then new, at every stage), and cutover's
// extras (originTimeoutMs, logger, meter, { signal } per operation, stats()). Events go through
// launchDarklyClient(ldClient): LaunchDarkly's own tracker builds them.
import { OptionsOf, checkOptionNames } from './wasm/cutover.js';
import { MigratorBuilder, failure, launchDarklyClient } from './migration.js';
import { isSameResponse } from './response.js';
import { describe, isObject, LD_SHAPED, OLD_FIRST, promiseOf, read } from './util.js';

/** LaunchDarkly's migration stages, under LaunchDarkly's names. */
// Typed as index.d.ts's enum (a frozen object here).
export const LDMigrationStage = /** @type {any} */ (Object.freeze({
  Off: 'off',
  DualWrite: 'dualwrite',
  Shadow: 'shadow',
  Live: 'live',
  RampDown: 'rampdown',
  Complete: 'complete',
}));

// TypeScript numeric enums, reverse mapping included, as LaunchDarkly's compiled code has them.
/** Serial execution's order: `Fixed` runs old to completion, then new; `Random` flips a coin per read. */
// Typed as index.d.ts's enum (a frozen object here).
export const LDExecutionOrdering = /** @type {any} */ (Object.freeze({ Fixed: 0, Random: 1, 0: 'Fixed', 1: 'Random' }));
/** The tag of an execution option (callers should not need it). */
// Typed as index.d.ts's enum (a frozen object here).
export const LDExecution = /** @type {any} */ (Object.freeze({ Serial: 0, Concurrent: 1, 0: 'Serial', 1: 'Concurrent' }));

/** One read origin to completion, then the other, in `ordering`. */
export class LDSerialExecution {
  constructor(ordering) {
    this.ordering = ordering;
    this.type = LDExecution.Serial;
  }
}

/** Both read origins started together (the default). */
export class LDConcurrentExecution {
  constructor() {
    this.type = LDExecution.Concurrent;
  }
}

/** A successful origin result: `return LDMigrationSuccess(value)`. */
export function LDMigrationSuccess(result) {
  return { success: /** @type {true} */ (true), result };
}

/** A failed origin result: `return LDMigrationError(new Error('…'))`. */
export function LDMigrationError(error) {
  return { success: /** @type {false} */ (false), error };
}

const METHODS = ['readOld', 'readNew', 'writeOld', 'writeNew'];

function fail(what, value) {
  throw new TypeError(`createMigration: ${what}, ${describe(value)}`);
}

/** An optional boolean option: undefined or null means true, as LaunchDarkly has it. */
function switchOf(config, name) {
  const value = read(config, name);
  if (value === undefined || value === null) return true;
  if (typeof value !== 'boolean') fail(`options.${name} must be a boolean`, value);
  return value;
}

/** `readExecutionOrder`'s order for an `execution` option, or OLD_FIRST. */
function orderOf(execution) {
  if (execution === undefined || execution === null) return 'parallel';
  const type = isObject(execution) ? read(execution, 'type') : undefined;
  if (type === LDExecution.Concurrent) return 'parallel';
  if (type === LDExecution.Serial) {
    const ordering = read(execution, 'ordering');
    if (ordering === LDExecutionOrdering.Fixed) return OLD_FIRST;
    if (ordering === LDExecutionOrdering.Random) return 'random';
    fail('options.execution.ordering must be LDExecutionOrdering.Fixed or .Random', ordering);
  }
  return fail('options.execution must be new LDSerialExecution(ordering) or new LDConcurrentExecution()', execution);
}

/** An LDMethodResult as a cutover origin's answer: its result, or failure(error). */
function answer(name, value) {
  if (!isObject(value)) {
    return failure(new TypeError(`createMigration: options.${name} must return an LDMethodResult ({ success, result | error }), ${describe(value)}`));
  }
  return read(value, 'success') ? read(value, 'result') : failure(read(value, 'error'));
}

/**
 * The cutover origin for one of LaunchDarkly's methods, looked up on `config` at every call and
 * called with `config` as `this` (LaunchDarkly binds it so), with the payload and the origin's
 * AbortSignal (a cutover extra: it aborts on originTimeoutMs and on the operation's signal).
 * A throw or rejection fails the origin with what was thrown, as in LaunchDarkly.
 */
function origin(config, name) {
  return (payload, signal) => {
    const result = config[name](payload, signal);
    const promise = promiseOf(result); // a promise or thenable, awaited as LaunchDarkly awaits it
    return promise === undefined ? answer(name, result) : promise.then((value) => answer(name, value));
  };
}

/** What createMigration returns: LaunchDarkly's LDMigration, plus stats(). */
class LDMigration {
  #migrator;
  constructor(migrator) {
    this.#migrator = migrator;
  }
  /** `options`: `{ signal, waitUntil }` (cutover's); aborting rejects with the signal's reason. */
  read(key, context, defaultStage, payload, options) {
    return this.#migrator[LD_SHAPED](false, key, context, defaultStage, payload, options);
  }
  write(key, context, defaultStage, payload, options) {
    return this.#migrator[LD_SHAPED](true, key, context, defaultStage, payload, options);
  }
  stats() {
    return this.#migrator.stats();
  }
  /** Resolves when every background part started before the call has ended (`background` option). */
  settled() {
    return this.#migrator.settled();
  }
  /** The guard of `flagKey` (`guard` option). */
  guard(flagKey) {
    return this.#migrator.guard(flagKey);
  }
}

/**
 * LaunchDarkly's `createMigration(client, options)`: the same options, results and events,
 * run by cutover (which adds `originTimeoutMs`, `logger`, `{ signal }` and `stats()`).
 * The methods are looked up on `options` at each call; `check`, `execution`, the tracking
 * switches and the extras are read once, here.
 */
/** An object literal's prototype: Object.prototype or null (a proxy whose trap throws is not one). */
function isPlainObject(value) {
  try {
    const proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
  } catch {
    return false;
  }
}

export function createMigration(ldClient, config) {
  for (const name of ['migrationVariation', 'trackMigration']) {
    if (!isObject(ldClient) || typeof read(ldClient, name) !== 'function') {
      fail(`ldClient must be a LaunchDarkly client with a ${name} method`, ldClient);
    }
  }
  if (!isObject(config)) fail('options must be an object (LDMigrationOptions)', config);
  // Names before any value (`readnew` is reported as such), in a plain object only: LaunchDarkly's
  // createMigration ignores other keys, and a configuration object of a class of the caller's
  // (its own fields beside the four methods) must keep working when switched with one import.
  if (isPlainObject(config)) checkOptionNames(OptionsOf.CreateMigration, config);
  for (const name of METHODS) {
    const method = read(config, name);
    if (typeof method !== 'function') fail(`options.${name} must be a function`, method);
  }
  const check = read(config, 'check');
  if (check !== undefined && check !== null && typeof check !== 'function') fail('options.check must be a function', check);
  const order = orderOf(read(config, 'execution'));
  const latencyTracking = switchOf(config, 'latencyTracking');
  const errorTracking = switchOf(config, 'errorTracking');
  const logger = read(config, 'logger');
  const originTimeoutMs = read(config, 'originTimeoutMs');

  const builder = new MigratorBuilder(launchDarklyClient(ldClient), logger === undefined ? undefined : { logger });
  if (order === OLD_FIRST) builder[OLD_FIRST]();
  else builder.readExecutionOrder(order);
  builder.trackLatency(latencyTracking).trackErrors(errorTracking);
  if (originTimeoutMs !== undefined) builder.originTimeout(originTimeoutMs);
  const meter = read(config, 'meter');
  if (meter !== undefined) builder.meter(meter);
  const background = read(config, 'background');
  if (background === true) builder.background();
  else if (isObject(background)) builder.background(background);
  else if (background !== undefined && background !== false) {
    fail('options.background must be true, false or { maxInFlight, waitUntil }', background);
  }
  const guard = read(config, 'guard');
  if (guard === true) builder.guard();
  else if (isObject(guard)) builder.guard(guard);
  else if (guard !== undefined && guard !== false) fail('options.guard must be true, false or guard options', guard);
  // A `sameResponse` check is handed to the builder as it is (read once, not at each call): the
  // migrator recognises it and reads each Response's body first, where a wrapper would be called
  // with the Responses themselves.
  const comparison = isSameResponse(check)
    ? check
    : typeof check === 'function'
      ? (oldValue, newValue) => config.check(oldValue, newValue)
      : undefined;
  builder.read(origin(config, 'readOld'), origin(config, 'readNew'), comparison);
  builder.write(origin(config, 'writeOld'), origin(config, 'writeNew'));
  return new LDMigration(builder.build());
}
