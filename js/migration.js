// Migrations: the builder, the migrator, the tracker and the flag-client adapters.
import * as wasm from './wasm/cutover.js';
import { Hint, OptionsOf } from './wasm/cutover.js';
import { stage } from './bridge/client.js';
import { nativeComparison } from './diff.js';
import { gaugeSlot, instrumentsOf, MIGRATION } from './metrics.js';
import { CONSOLE_SAMPLE, describe, INNER, LastString, LD_SHAPED, OLD_FIRST, read } from './util.js';

// Looked up on first use: with the web entry the wasm is initialised after this module loads.
let failureBrand;

/** Thrown by `MigratorBuilder#build()` when the read or write configuration is missing. */
export class MigratorConfigError extends Error {
  constructor(message) {
    super(message);
    /** @type {'MigratorConfigError'} */
    this.name = 'MigratorConfigError';
  }
}

/** Makes an origin fail without throwing: `return failure(new Error('not found'))`. */
export function failure(error) {
  failureBrand ??= wasm.failureBrand();
  return Object.freeze({ [failureBrand]: true, error });
}

/** An options object (`{}` when undefined), its names checked by the core (`OptionsOf` code `of`). */
function options(value, what, of) {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object') {
    throw new TypeError(`${what} must be an object, ${describe(value)}`);
  }
  wasm.checkOptionNames(of, value);
  return value;
}

/**
 * Whether an operation's options may have a key other than `signal` and `waitUntil`, the names they know:
 * only then are they handed to the core, which looks at their own keys and names the unknown
 * one. `for…in` stops at the first other key and allocates nothing (`Object.keys` would make an
 * array per operation); it also lists inherited enumerable keys, which the core then finds
 * harmless. A proxy that refuses to list its keys is not checked. Measured on `{ signal }`
 * (Node 20, a fresh object per call): 15–20 ns per operation, about what `Object.keys` costs;
 * nothing when there are no options.
 */
function mayHaveOtherKeys(opts) {
  try {
    for (const key in opts) if (key !== 'signal' && key !== 'waitUntil') return true;
  } catch {
    // not listable: not checked
  }
  return false;
}

/**
 * The `signal` of an operation's options (undefined when there is none); `operation`: one of
 * READ, WRITE, LD_READ, LD_WRITE (its owner's name and its options' `OptionsOf` code).
 */
function signalOf(opts, operation) {
  if (opts === undefined || opts === null) return undefined;
  if (typeof opts !== 'object') throw new TypeError(`${operation.owner}: options must be an object, ${describe(opts)}`);
  if (mayHaveOtherKeys(opts)) wasm.checkOptionNames(operation.options, opts);
  const signal = read(opts, 'signal');
  if (signal === null) throw new TypeError(`${operation.owner}: options.signal must be an AbortSignal, got null`);
  return signal;
}

/** The `waitUntil` of an operation's options (checked by `signalOf` first), or undefined. */
function waitUntilOf(opts, operation) {
  if (opts === undefined || opts === null) return undefined;
  const waitUntil = read(opts, 'waitUntil');
  if (waitUntil !== undefined && typeof waitUntil !== 'function') {
    throw new TypeError(`${operation.owner}: options.waitUntil must be a function, ${describe(waitUntil)}`);
  }
  return waitUntil;
}

// What the wasm need not ask about an operation's arguments (`Hint`, src/js/codes.rs): the
// default stage's code, whether the flag key is the very string the previous operation
// passed, and whether there is a signal.
const lastFlagKey = new LastString();
function hints(flagKey, defaultStage, signal) {
  const same = lastFlagKey.repeated(flagKey) ? Hint.SameKey : 0;
  return stage(defaultStage) | same | (signal === undefined ? 0 : Hint.Signal);
}

/**
 * An operation's caller side, handed to the wasm as one argument (src/js/migrator.rs, run):
 * the promise's functions, the caller's signal, whether the result takes LaunchDarkly's shape
 * (createMigration's `result` for `value`: js/bridge/migrator.js builds it once), the
 * `waitUntil` a background part is handed to (js/bridge/migrator.js, handOver), and the
 * migrator's `held` functions, which the wasm keeps this object for until the operation has
 * ended (js/bridge/held.js).
 */
class Pending {
  constructor(resolve, reject, signal, launchDarklyShape, waitUntil, held) {
    this.resolve = resolve;
    this.reject = reject;
    this.signal = signal;
    this.launchDarklyShape = launchDarklyShape;
    this.waitUntil = waitUntil;
    this.held = held;
    /** The resolve function of the promise `waitUntil` got (js/bridge/migrator.js, handOver). */
    this.ended = undefined;
  }
}

/** Which operation a migrator runs, in which shape it resolves, and whose options it takes. */
const READ = Object.freeze({ write: false, launchDarklyShape: false, options: OptionsOf.MigratorRead, owner: 'Migrator#read' });
const WRITE = Object.freeze({ write: true, launchDarklyShape: false, options: OptionsOf.MigratorWrite, owner: 'Migrator#write' });
/** createMigration's operations (js/launchdarkly-migration.js), run through `migrator[LD_SHAPED]`. */
const LD_READ = Object.freeze({ write: false, launchDarklyShape: true, options: OptionsOf.LdMigrationRead, owner: 'LDMigration#read' });
const LD_WRITE = Object.freeze({ write: true, launchDarklyShape: true, options: OptionsOf.LdMigrationWrite, owner: 'LDMigration#write' });

class Migrator {
  #inner;
  /** `background({ waitUntil })`'s, for operations whose options name none. */
  #waitUntil;
  /** The functions the wasm holds weakly (js/bridge/held.js). */
  #held;
  constructor(token, inner, waitUntil, held) {
    if (token !== INNER) throw new TypeError('a Migrator is made by MigratorBuilder#build()');
    this.#inner = inner;
    this.#waitUntil = waitUntil;
    this.#held = held;
  }
  read(flagKey, context, defaultStage, payload, options) {
    return this.#run(READ, flagKey, context, defaultStage, payload, options);
  }
  write(flagKey, context, defaultStage, payload, options) {
    return this.#run(WRITE, flagKey, context, defaultStage, payload, options);
  }
  /** `write` false/true: read/write, resolving in LaunchDarkly's result shape. */
  [LD_SHAPED](write, flagKey, context, defaultStage, payload, options) {
    return this.#run(write ? LD_WRITE : LD_READ, flagKey, context, defaultStage, payload, options);
  }
  #run(operation, flagKey, context, defaultStage, payload, options) {
    return new Promise((resolve, reject) => {
      const signal = signalOf(options, operation); // before hints(): a throw here must not move lastFlagKey
      const waitUntil = (options === undefined ? undefined : waitUntilOf(options, operation)) ?? this.#waitUntil;
      const hinted = hints(flagKey, defaultStage, signal) | (operation.write ? Hint.Write : 0) |
        (waitUntil === undefined ? 0 : Hint.WaitUntil);
      const pending = new Pending(resolve, reject, signal, operation.launchDarklyShape, waitUntil, this.#held);
      this.#inner.run(flagKey, hinted, context, defaultStage, payload, pending);
    });
  }
  stats() {
    return this.#inner.stats();
  }
  resetStats() {
    this.#inner.resetStats();
  }
  settled() {
    return this.#inner.settled();
  }
  mismatches() {
    return this.#inner.mismatches();
  }
  guard(flagKey) {
    return this.#inner.guard(flagKey);
  }

  /** For migrationConsole: `[inFlight, n, …readOld, n, …readNew, n, …writeOld, n, …writeNew]` (latency wire forms after their lengths). */
  [CONSOLE_SAMPLE]() {
    return this.#inner.consoleSample();
  }
}

/**
 * Reports each flag key's guard state to the meter's gauge while the migrator lives: the callback
 * holds the wasm migrator weakly (a meter outlives its migrators) and removes itself once it is
 * gone.
 */
function observeGuards(gauge, inner) {
  const ref = typeof WeakRef === 'function' ? new WeakRef(inner) : { deref: () => inner };
  const callback = (result) => {
    const migrator = ref.deref();
    if (migrator === undefined) {
      if (typeof gauge.removeCallback === 'function') gauge.removeCallback(callback);
      return;
    }
    for (const [value, attributes] of migrator.guardGauges()) result.observe(value, attributes);
  };
  gauge.addCallback(callback);
}

export class MigratorBuilder {
  #inner;
  #waitUntil;
  /**
   * The client, the logger and the functions given to this builder (origins, comparisons,
   * onMismatch), each added once the wasm took it, which holds them only weakly:
   * js/bridge/held.js. Its Migrators share the list.
   */
  #held = [];
  /** The meter's guard-state gauge, when a meter was given and it makes observable gauges. */
  #guardGauge;
  #guarded = false;
  constructor(client, builderOptions) {
    const { logger } = options(builderOptions, 'options', OptionsOf.MigratorBuilder);
    this.#inner = new wasm.WasmMigratorBuilder(client, logger, launchDarklyAdapters.has(client));
    this.#held.push(client, logger);
  }
  readExecutionOrder(order) {
    this.#inner.readExecutionOrder(order);
    return this;
  }
  [OLD_FIRST]() {
    this.#inner.readOldFirst();
    return this;
  }
  trackLatency(enabled) {
    this.#inner.trackLatency(enabled);
    return this;
  }
  trackErrors(enabled) {
    this.#inner.trackErrors(enabled);
    return this;
  }
  originTimeout(ms) {
    this.#inner.originTimeout(ms);
    return this;
  }
  /** Records this migrator's operations, origin calls and checks with an OpenTelemetry Meter. */
  meter(meter) {
    const instruments = instrumentsOf(meter, MIGRATION, 'meter: meter');
    this.#inner.meter(instruments);
    this.#guardGauge = instruments[gaugeSlot(MIGRATION)];
    return this;
  }
  /** Background mode: the caller gets the authoritative result as soon as it settles. */
  background(backgroundOptions) {
    const opts = options(backgroundOptions, 'background: options', OptionsOf.MigratorBackground);
    const waitUntil = read(opts, 'waitUntil');
    if (waitUntil !== undefined && typeof waitUntil !== 'function') {
      throw new TypeError(`background: waitUntil must be a function, ${describe(waitUntil)}`);
    }
    this.#inner.background(read(opts, 'maxInFlight'));
    this.#waitUntil = waitUntil;
    return this;
  }
  /** Explains every mismatch (a check whose comparison returned false) and keeps the last ones. */
  mismatches(mismatchOptions) {
    const opts = options(mismatchOptions, 'mismatches: options', OptionsOf.MigratorMismatches);
    // The core checks each value (a TypeError or RangeError naming it).
    const onMismatch = read(opts, 'onMismatch');
    this.#inner.mismatches(read(opts, 'keep'), read(opts, 'maxDifferences'), onMismatch);
    this.#held.push(onMismatch);
    return this;
  }
  /** A circuit breaker on the new origin, per flag key (API §1 "Guardrails"). */
  guard(guardOptions) {
    const opts = options(guardOptions, 'MigratorBuilder#guard: options', OptionsOf.MigratorGuard);
    // The core reads and checks each value (a TypeError or RangeError naming it).
    this.#inner.guard(opts);
    this.#held.push(read(opts, 'onChange'));
    this.#guarded = true;
    return this;
  }
  read(oldFn, newFn, comparison) {
    // `sameStructure`'s and `sameResponse`'s functions are run by the core itself
    // (src/js/same_structure.rs, src/js/same_response.rs).
    const native = nativeComparison(comparison);
    if (native === undefined) this.#inner.read(oldFn, newFn, comparison);
    else this.#inner.readSameStructure(oldFn, newFn, comparison, native);
    this.#held.push(oldFn, newFn, comparison);
    return this;
  }
  write(oldFn, newFn) {
    this.#inner.write(oldFn, newFn);
    this.#held.push(oldFn, newFn);
    return this;
  }
  build() {
    let inner;
    try {
      inner = this.#inner.build();
    } catch (e) {
      throw new MigratorConfigError(e.message);
    }
    if (this.#guarded && typeof this.#guardGauge?.addCallback === 'function') observeGuards(this.#guardGauge, inner);
    return new Migrator(INNER, inner, this.#waitUntil, this.#held);
  }
}

export class OpTracker {
  #inner;
  constructor(flagKey, context, evaluation, defaultStage) {
    this.#inner = flagKey === INNER ? context : new wasm.WasmOpTracker(flagKey, context, evaluation, defaultStage);
  }
  operation(op) {
    this.#inner.operation(op);
    return this;
  }
  invoked(origin) {
    this.#inner.invoked(origin);
    return this;
  }
  error(origin) {
    this.#inner.error(origin);
    return this;
  }
  latency(origin, ms) {
    this.#inner.latency(origin, ms);
    return this;
  }
  consistent(check) {
    this.#inner.consistent(check);
    return this;
  }
  build() {
    return this.#inner.build();
  }
}

/** Evaluates a migration flag: the stage to run and a tracker for the operation. */
export async function migrationVariation(client, flagKey, context, defaultStage) {
  const result = await new Promise((resolve, reject) =>
    wasm.migrationVariation(client, flagKey, context, defaultStage, resolve, reject),
  );
  if (result.tracker instanceof wasm.WasmOpTracker) {
    result.tracker = new OpTracker(INNER, result.tracker);
  }
  return result;
}

/** A client whose every flag serves `stage`; events go nowhere. */
export function fixedStage(stage) {
  const served = wasm.checkStage(stage, 'fixedStage: stage');
  return Object.freeze({ migrationVariation: () => served });
}

// The adapters launchDarklyClient and launchDarklyBrowserClient made: migrators over one write
// every check ratio in their events, 1 too (LaunchDarkly's trackMigration drops a `consistent`
// measurement without a numeric samplingRatio, and a browser's events reach it through
// migrationEventRelay; the rule is the core's, CheckRatioOnWire).
const launchDarklyAdapters = new WeakSet();

/** Marks `adapter` as one whose events are bound for LaunchDarkly's trackMigration (see above). */
export function boundForLaunchDarkly(adapter) {
  launchDarklyAdapters.add(adapter);
  return adapter;
}

/** Adapts a LaunchDarkly server SDK client (`migrationVariation`, `trackMigration`). */
export function launchDarklyClient(ldClient) {
  for (const name of ['migrationVariation', 'trackMigration']) {
    if (ldClient === null || typeof ldClient !== 'object' || typeof ldClient[name] !== 'function') {
      throw new TypeError(`launchDarklyClient: ldClient must have a ${name} method, ${describe(ldClient)}`);
    }
  }
  const adapter = Object.freeze({
    migrationVariation: (flagKey, context, defaultStage) =>
      ldClient.migrationVariation(flagKey, context, defaultStage),
    trackMigrationOp: (event) => ldClient.trackMigration(event),
  });
  launchDarklyAdapters.add(adapter);
  return adapter;
}
