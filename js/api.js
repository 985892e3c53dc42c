// The public JavaScript API of cutover: thin classes over the wasm bindings.
// This file is a function body shared by every entry point: scripts/assemble-entries.mjs wraps
// it with the right import of the wasm glue (`wasm`) and the right export syntax.
// Behaviour lives in the Rust core; here arguments are forwarded and results passed back.

function createApi(wasm) {
  const INNER = Symbol('cutover.inner');
  // Looked up on first use: with the web entry the wasm is initialised after this module loads.
  let failureBrand;

  // Plain functions the wasm calls on hot paths without an exception wrapper, so none of them
  // may throw (see src/js/bridge.rs). They look the caller's methods up when they call them
  // (a stub installed later takes effect), read only the properties a decision needs, and
  // report promise outcomes through `settlePromise` from reactions registered while the
  // operation runs, so every callback stays in the operation's caller's async context.
  // Installed on first use, because with the web entry the wasm is initialised after this module
  // has loaded.
  let bridged = false;
  const FAILURE = Symbol.for('cutover.failure');
  // The numbers the facade shares with the wasm, read from it once in bridge() (src/js/bridge.rs,
  // protocol): answer codes (0–5 a stage, then these; TAKES_EVENTS is added), operation hints,
  // the tracker methods by number.
  let NOT_A_STAGE, ANSWER_OBJECT, THREW, TAKES_EVENTS, PENDING, TRACKER_METHODS;
  let HINT_NOT_A_STAGE, HINT_SAME_KEY, HINT_WRITE, HINT_SIGNAL;
  /** `target[key]`, or undefined when reading it throws. */
  function read(target, key) {
    try {
      return target[key];
    } catch {
      return undefined;
    }
  }
  /** Whether JSON keeps a property with this value (undefined, functions, symbols, bigints are left out). */
  function kept(value) {
    const type = typeof value;
    return !(value === undefined || type === 'function' || type === 'symbol' || type === 'bigint');
  }
  function isObject(value) {
    return value !== null && typeof value === 'object';
  }
  function isArray(value) {
    try {
      return Array.isArray(value);
    } catch {
      return true; // a revoked proxy: not a context
    }
  }
  const number = (value) => (typeof value === 'number' ? value : NaN);
  /** The promise to await for a promise or thenable, else undefined (also when reading `then` throws). */
  function promiseOf(value) {
    try {
      if (value instanceof Promise) return value;
      if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function') {
        return Promise.resolve(value);
      }
    } catch {
      // not awaitable
    }
    return undefined;
  }
  /** `promise.then(ok, fail)`, reporting a `then` that throws as a rejection. */
  function when(promise, ok, fail) {
    try {
      promise.then(ok, fail);
    } catch (error) {
      fail(error);
    }
  }
  const flags = (bits) => (bits === 3 ? { old: true, new: true } : bits === 1 ? { old: true } : { new: true });
  const present = (n) => n === n; // not NaN
  let thrown;
  let keptEvent;
  let now; // the bridge's clock, which the facade reads too (BigSegmentStoreManager)
  function bridge() {
    if (bridged) return;
    now =
      typeof performance === 'object' && performance !== null && typeof performance.now === 'function'
        ? performance.now.bind(performance) // bound: measured 15 % cheaper per call than a wrapper
        : Date.now;
    const stageIndex = new Map(wasm.stageNames().map((name, i) => [name, i]));
    stageIndexOf = stageIndex;
    ({ ANSWER_NOT_A_STAGE: NOT_A_STAGE, ANSWER_OBJECT, ANSWER_THREW: THREW, ANSWER_TAKES_EVENTS: TAKES_EVENTS,
      ANSWER_PENDING: PENDING, TRACKER_METHODS, HINT_NOT_A_STAGE, HINT_SAME_KEY, HINT_WRITE, HINT_SIGNAL } =
      wasm.protocol());
    const [m0, m1, m2, m3, m4, m5] = TRACKER_METHODS;
    const settle = wasm.settlePromise;
    // The fields of an answer object, handed to answerFields(id, …); each property read in its own try.
    /** Index of the first of the six tracker methods that is not a function; -1: none. */
    function firstMissing(tracker) {
      if (typeof tracker !== 'object' && typeof tracker !== 'function') return 0;
      for (let i = 0; i < TRACKER_METHODS.length; i++) {
        if (typeof read(tracker, TRACKER_METHODS[i]) !== 'function') return i;
      }
      return -1;
    }
    function readAnswer(answer, id, settleCode = NaN) {
      // All fields in one try (the usual answer is a plain object); when one read throws, each
      // is read again on its own and a throwing one is undefined.
      let value, reason, tracker, variation, version, checkRatio, samplingRatio;
      try {
        ({ value, reason, tracker, variationIndex: variation, flagVersion: version, checkRatio, samplingRatio } = answer);
      } catch {
        value = read(answer, 'value');
        reason = read(answer, 'reason');
        tracker = read(answer, 'tracker');
        variation = read(answer, 'variationIndex');
        version = read(answer, 'flagVersion');
        checkRatio = read(answer, 'checkRatio');
        samplingRatio = read(answer, 'samplingRatio');
      }
      let missing = -1;
      if (tracker != null) {
        try {
          // Unrolled over the wasm's list: each read site always sees the same name.
          missing =
            typeof tracker[m0] !== 'function' ? 0
            : typeof tracker[m1] !== 'function' ? 1
            : typeof tracker[m2] !== 'function' ? 2
            : typeof tracker[m3] !== 'function' ? 3
            : typeof tracker[m4] !== 'function' ? 4
            : typeof tracker[m5] !== 'function' ? 5
            : -1;
        } catch {
          missing = firstMissing(tracker);
        }
      }
      const hasReason = isObject(reason);
      wasm.answerFields(
        id,
        typeof value === 'string' ? (stageIndex.get(value) ?? -1) : -1,
        number(variation),
        hasReason ? reason : undefined,
        number(version),
        number(checkRatio),
        number(samplingRatio),
        tracker ?? undefined,
        (hasReason ? 1 : 0) | (tracker != null ? 2 : 0),
        missing,
        settleCode,
      );
      return ANSWER_OBJECT;
    }
    function classify(answer, id) {
      if (typeof answer === 'string') return stageIndex.get(answer) ?? NOT_A_STAGE;
      return isObject(answer) ? readAnswer(answer, id) : NOT_A_STAGE;
    }
    function buildEvent(creationDate, operation, context, key, value, dflt, reason, variation, version, samplingRatio,
      invoked, consistent, checkRatio, latencyOld, latencyNew, errors) {
      // Field order is the wire order (SPEC A6); the core decided which fields are present.
      const evaluation = { key, value, default: dflt };
      if (reason !== undefined) evaluation.reason = reason;
      if (present(variation)) evaluation.variation = variation;
      if (present(version)) evaluation.version = version;
      const event = { kind: 'migration_op', creationDate, operation, context, evaluation };
      if (present(samplingRatio)) event.samplingRatio = samplingRatio;
      const measurements = [];
      if (invoked) measurements.push({ key: 'invoked', values: flags(invoked) });
      if (consistent >= 0) {
        const m = { key: 'consistent', value: consistent === 1 };
        if (present(checkRatio)) m.samplingRatio = checkRatio;
        measurements.push(m);
      }
      if (present(latencyOld) || present(latencyNew)) {
        const values = {};
        if (present(latencyOld)) values.old = latencyOld;
        if (present(latencyNew)) values.new = latencyNew;
        measurements.push({ key: 'latency_ms', values });
      }
      if (errors) measurements.push({ key: 'error', values: flags(errors) });
      event.measurements = measurements;
      return event;
    }
    function sendEvent(client, event) {
      if (event === undefined) {
        event = keptEvent;
        keptEvent = undefined;
      }
      let track;
      try {
        track = client.trackMigrationOp;
      } catch (error) {
        thrown = error;
        return 1;
      }
      if (typeof track !== 'function') return 2;
      try {
        track.call(client, event);
        return 0;
      } catch (error) {
        thrown = error;
        return 1;
      }
    }
    /** Whether an origin's value is a `failure(error)`. */
    function isFailure(value) {
      if (!isObject(value)) return false;
      try {
        return Boolean(value[FAILURE]);
      } catch {
        return false; // not a failure(error) value
      }
    }
    // Two origins started together, reported together (src/js/origin.rs, callBoth): one state
    // object per pair, no arrays per outcome.
    class Pair {
      constructor(id, start) {
        this.id = id;
        this.start = start;
        this.pending = 2;
        this.ok0 = true;
        this.value0 = undefined;
        this.ms0 = NaN;
        this.ok1 = true;
        this.value1 = undefined;
        this.ms1 = NaN;
      }
      done(second, ok, value) {
        const ms = now() - this.start;
        if (ok && isFailure(value)) {
          ok = false;
          value = read(value, 'error');
        }
        if (second) {
          this.ok1 = ok;
          this.value1 = value;
          this.ms1 = ms;
        } else {
          this.ok0 = ok;
          this.value0 = value;
          this.ms0 = ms;
        }
        if (--this.pending === 0) {
          wasm.settleBoth(this.id, (this.ok0 ? 1 : 0) | (this.ok1 ? 2 : 0), this.value0, this.ms0, this.value1, this.ms1);
        }
      }
      run(fn, second, payload, signal) {
        let value;
        try {
          value = fn(payload, signal);
        } catch (error) {
          return this.done(second, false, error);
        }
        const promise = promiseOf(value);
        if (promise === undefined) return this.done(second, true, value);
        when(
          promise,
          (result) => this.done(second, true, result),
          (error) => this.done(second, false, error),
        );
      }
    }
    function callBoth(f, g, payload, signal, id) {
      const pair = new Pair(id, now());
      pair.run(f, false, payload, signal);
      pair.run(g, true, payload, signal);
    }
    function originSettled(id, value, start) {
      const ms = now() - start;
      if (isFailure(value)) return settle(id, false, read(value, 'error'), ms);
      settle(id, true, value, ms);
    }
    wasm.installBridge({
      // Which of the core's stage names (in its order) a value is exactly, else -1.
      stage: (value) => stageIndex.get(value) ?? -1,
      now,
      // A promise or thenable is awaited (true); anything else is a plain result (false).
      awaitValue(value, id) {
        const promise = promiseOf(value);
        if (promise === undefined) return false;
        when(promise, (result) => settle(id, true, result, NaN), (error) => settle(id, false, error, NaN));
        return true;
      },
      callBoth,
      callOrigin(f, payload, signal, id) {
        const start = now();
        let value;
        try {
          value = f(payload, signal);
        } catch (error) {
          return settle(id, false, error, now() - start);
        }
        const promise = promiseOf(value);
        if (promise === undefined) return originSettled(id, value, start);
        when(promise, (result) => originSettled(id, result, start), (error) => settle(id, false, error, now() - start));
      },
      askClient(client, flagKey, context, defaultStage, id) {
        let answer;
        try {
          answer = client.migrationVariation(flagKey, context, defaultStage);
        } catch (error) {
          thrown = error;
          answer = THREW;
        }
        const takes = typeof read(client, 'trackMigrationOp') === 'function' ? TAKES_EVENTS : 0;
        if (answer === THREW) return THREW + takes;
        if (typeof answer === 'string') return (stageIndex.get(answer) ?? NOT_A_STAGE) + takes;
        const promise = promiseOf(answer);
        if (promise === undefined) return classify(answer, id) + takes;
        when(
          promise,
          (result) => {
            // An object answer's fields and the settlement cross in one call.
            if (typeof result !== 'string' && isObject(result)) readAnswer(result, id, ANSWER_OBJECT + takes);
            else settle(id, true, undefined, classify(result, id) + takes);
          },
          (error) => settle(id, false, error, NaN),
        );
        return PENDING;
      },
      readAnswer,
      trackerCall(tracker, method, a, b) {
        try {
          tracker[TRACKER_METHODS[method]](a, b);
          return true;
        } catch (error) {
          thrown = error;
          return false;
        }
      },
      trackerOrigin(tracker, origin, ms, failed) {
        let mask = 0;
        let errors;
        try {
          tracker.invoked(origin);
        } catch (error) {
          mask |= 1;
          errors = [error];
        }
        if (present(ms)) {
          try {
            tracker.latency(origin, ms);
          } catch (error) {
            mask |= 2;
            (errors ??= []).push(error);
          }
        }
        if (failed) {
          try {
            tracker.error(origin);
          } catch (error) {
            mask |= 4;
            (errors ??= []).push(error);
          }
        }
        if (mask) thrown = errors;
        return mask;
      },
      trackerConsistency(tracker, comparison, oldValue, newValue) {
        let answer = -1;
        try {
          tracker.consistency(() => {
            answer = -1;
            const consistent = Boolean(comparison(oldValue, newValue));
            answer = consistent ? 1 : 0;
            return consistent;
          });
        } catch (error) {
          thrown = error;
          return -2;
        }
        return answer;
      },
      createEvent(tracker) {
        try {
          keptEvent = tracker.createEvent() ?? undefined;
          return keptEvent === undefined ? 1 : 0;
        } catch (error) {
          thrown = error;
          return 2;
        }
      },
      sendEvent,
      compare(comparison, oldValue, newValue) {
        try {
          return comparison(oldValue, newValue) ? 1 : 0;
        } catch (error) {
          thrown = error;
          return -1;
        }
      },
      // What context validation needs (src/js/value.rs, facts_from); nothing else is read.
      contextFacts(context) {
        if (!isObject(context) || isArray(context)) return undefined;
        const kind = read(context, 'kind');
        if (kind === 'multi') {
          let names;
          try {
            names = Object.keys(context);
          } catch {
            return undefined;
          }
          const facts = [kept(read(context, 'key'))];
          for (const name of names) {
            if (name === 'kind') continue;
            let nested;
            try {
              nested = context[name];
            } catch {
              continue; // an attribute that cannot be read is left out, as JSON would
            }
            if (!kept(nested)) continue;
            let fact = -1;
            if (isObject(nested) && !isArray(nested)) {
              const key = read(nested, 'key');
              fact = typeof key === 'string' && key !== '' ? 1 : 0;
            }
            facts.push(name, fact);
          }
          return facts;
        }
        const key = read(context, 'key');
        const keyOk = typeof key === 'string' && key !== '' ? '1' : '0';
        if (typeof kind === 'string') return 's' + keyOk + kind;
        return (kept(kind) ? 'o' : 'a') + keyOk;
      },
      ownEvent(client, creationDate, operation, context, key, value, dflt, reason, variation, version, samplingRatio,
        invoked, consistent, checkRatio, latencyOld, latencyNew, errors) {
        const event = buildEvent(creationDate, operation, context, key, value, dflt, reason, variation, version,
          samplingRatio, invoked, consistent, checkRatio, latencyOld, latencyNew, errors);
        if (client !== undefined) return sendEvent(client, event);
        keptEvent = event;
        return 0;
      },
      takeEvent() {
        const event = keptEvent;
        keptEvent = undefined;
        return event;
      },
      takeError() {
        const error = thrown;
        thrown = undefined;
        return error;
      },
      startTimer(ms, id, unref) {
        try {
          const handle = setTimeout(() => settle(id, true, undefined, NaN), ms);
          if (unref && typeof handle === 'object' && handle !== null && typeof handle.unref === 'function') handle.unref();
          return handle;
        } catch {
          return undefined;
        }
      },
      stopTimer(handle) {
        try {
          clearTimeout(handle);
        } catch {
          // nothing to stop
        }
      },
      // The abort event relayed through a promise whose reaction is registered now, in the
      // operation's async context (an abort listener runs in whoever called abort()'s).
      onAbort(signal, id) {
        try {
          let fire;
          new Promise((resolve) => (fire = resolve)).then(() => settle(id, true, read(signal, 'reason'), NaN));
          const listener = () => {
            listener.fired = true;
            fire();
          };
          signal.addEventListener('abort', listener);
          return listener;
        } catch {
          return undefined;
        }
      },
      offAbort(signal, listener) {
        try {
          signal.removeEventListener('abort', listener);
        } catch {
          // a signal that refuses: nothing to remove
        }
        return listener.fired === true;
      },
      resolveRead(pending, origin, success, payload) {
        pending.resolve(success ? { origin, success, value: payload } : { origin, success, error: payload });
      },
      resolveWrite(pending, origin, success, payload, hasSecond, origin2, success2, payload2) {
        const authoritative = success ? { origin, success, value: payload } : { origin, success, error: payload };
        if (!hasSecond) return pending.resolve({ authoritative });
        const nonAuthoritative = success2
          ? { origin: origin2, success: success2, value: payload2 }
          : { origin: origin2, success: success2, error: payload2 };
        pending.resolve({ authoritative, nonAuthoritative });
      },
      rejectPending(pending, error) {
        pending.reject(error);
      },
      // The caller's signal when it is an AbortSignal whose state can be read, else undefined.
      signalOf(pending) {
        const signal = pending.signal;
        try {
          if (signal instanceof AbortSignal) {
            void signal.aborted;
            return signal;
          }
        } catch {
          // a proxy or subclass whose checks throw: not a usable signal
        }
        return undefined;
      },
    });
    bridged = true;
  }

  function describe(value) {
    if (value === null) return 'got null';
    const type = typeof value;
    if (type === 'string') return `got string ${JSON.stringify(value)}`;
    if (type === 'number' || type === 'boolean' || type === 'bigint') return `got ${type} ${String(value)}`;
    return `got ${type}`;
  }

  /** Thrown by `MigratorBuilder#build()` when the read or write configuration is missing. */
  class MigratorConfigError extends Error {
    constructor(message) {
      super(message);
      this.name = 'MigratorConfigError';
    }
  }

  /** Makes an origin fail without throwing: `return failure(new Error('not found'))`. */
  function failure(error) {
    failureBrand ??= wasm.failureBrand();
    return Object.freeze({ [failureBrand]: true, error });
  }

  function options(value, what) {
    if (value === undefined) return {};
    if (value === null || typeof value !== 'object') {
      throw new TypeError(`${what} must be an object, ${describe(value)}`);
    }
    return value;
  }

  /** The `signal` of an operation's options (undefined when there is none). */
  function signalOf(opts) {
    if (opts === undefined || opts === null) return undefined;
    if (typeof opts !== 'object') throw new TypeError(`options must be an object, ${describe(opts)}`);
    const signal = read(opts, 'signal');
    if (signal === null) throw new TypeError('options.signal must be an AbortSignal, got null');
    return signal;
  }

  // What the wasm need not ask about an operation's arguments (src/js/migrator.rs, HINT_*): the
  // default stage's index, whether the flag key is the very string the previous operation
  // passed, and whether there is a signal.
  let lastFlagKey;
  let stageIndexOf;
  function hints(flagKey, defaultStage, signal) {
    const same = typeof flagKey === 'string' && flagKey === lastFlagKey ? HINT_SAME_KEY : 0;
    if (typeof flagKey === 'string') lastFlagKey = flagKey;
    return (stageIndexOf.get(defaultStage) ?? HINT_NOT_A_STAGE) | same | (signal === undefined ? 0 : HINT_SIGNAL);
  }

  /** An operation's caller side, handed to the wasm as one argument (src/js/migrator.rs, run). */
  class Pending {
    constructor(resolve, reject, signal) {
      this.resolve = resolve;
      this.reject = reject;
      this.signal = signal;
    }
  }

  class Migrator {
    #inner;
    constructor(token, inner) {
      if (token !== INNER) throw new TypeError('a Migrator is made by MigratorBuilder#build()');
      this.#inner = inner;
    }
    read(flagKey, context, defaultStage, payload, options) {
      return this.#run(0, flagKey, context, defaultStage, payload, options);
    }
    write(flagKey, context, defaultStage, payload, options) {
      return this.#run(HINT_WRITE, flagKey, context, defaultStage, payload, options);
    }
    #run(operation, flagKey, context, defaultStage, payload, options) {
      return new Promise((resolve, reject) => {
        const signal = signalOf(options); // before hints(): a throw here must not move lastFlagKey
        const hinted = hints(flagKey, defaultStage, signal) | operation;
        this.#inner.run(flagKey, hinted, context, defaultStage, payload, new Pending(resolve, reject, signal));
      });
    }
    stats() {
      return this.#inner.stats();
    }
    resetStats() {
      this.#inner.resetStats();
    }
  }

  class MigratorBuilder {
    #inner;
    constructor(client, builderOptions) {
      const { logger } = options(builderOptions, 'options');
      bridge();
      this.#inner = new wasm.WasmMigratorBuilder(client, logger, launchDarklyAdapters.has(client));
    }
    readExecutionOrder(order) {
      this.#inner.readExecutionOrder(order);
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
    read(oldFn, newFn, comparison) {
      this.#inner.read(oldFn, newFn, comparison);
      return this;
    }
    write(oldFn, newFn) {
      this.#inner.write(oldFn, newFn);
      return this;
    }
    build() {
      let inner;
      try {
        inner = this.#inner.build();
      } catch (e) {
        throw new MigratorConfigError(e.message);
      }
      return new Migrator(INNER, inner);
    }
  }

  class OpTracker {
    #inner;
    constructor(flagKey, context, evaluation, defaultStage) {
      bridge();
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
  async function migrationVariation(client, flagKey, context, defaultStage) {
    bridge();
    const result = await new Promise((resolve, reject) =>
      wasm.migrationVariation(client, flagKey, context, defaultStage, resolve, reject),
    );
    if (result.tracker instanceof wasm.WasmOpTracker) {
      result.tracker = new OpTracker(INNER, result.tracker);
    }
    return result;
  }

  /** A client whose every flag serves `stage`; events go nowhere. */
  function fixedStage(stage) {
    const served = wasm.checkStage(stage, 'fixedStage: stage');
    return Object.freeze({ migrationVariation: () => served });
  }

  // The adapters launchDarklyClient made: migrators over one write every check ratio in their
  // events, 1 too (LaunchDarkly's trackMigration drops a `consistent` measurement without a
  // numeric samplingRatio; the rule is the core's, CheckRatioOnWire).
  const launchDarklyAdapters = new WeakSet();

  /** Adapts a LaunchDarkly server SDK client (`migrationVariation`, `trackMigration`). */
  function launchDarklyClient(ldClient) {
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

  class BigSegmentStoreStatusProvider {
    #manager;
    #ids = new Map();
    constructor(token, manager) {
      if (token !== INNER) throw new TypeError('a status provider is made by BigSegmentStoreManager');
      this.#manager = manager;
    }
    /** The last status, or a poll now if there is none. */
    getStatus() {
      return this.#manager.getStatus();
    }
    get lastStatus() {
      return this.#manager.lastStatus();
    }
    addListener(listener) {
      const id = this.#manager.addListener(listener);
      const ids = this.#ids.get(listener);
      if (ids) ids.push(id);
      else this.#ids.set(listener, [id]);
    }
    removeListener(listener) {
      const ids = this.#ids.get(listener);
      if (!ids) return;
      const id = ids.shift();
      if (ids.length === 0) this.#ids.delete(listener);
      this.#manager.removeListener(id);
    }
  }

  // The Rust store behind each redisBigSegmentStore object: a manager over one queries it
  // directly (src/js/redis.rs, offerRedisStore).
  const redisStores = new WeakMap();

  class BigSegmentStoreManager {
    #inner;
    #lastKey;
    constructor(managerOptions) {
      bridge();
      const store = managerOptions !== null && typeof managerOptions === 'object' ? read(managerOptions, 'store') : undefined;
      const redis = store !== null && typeof store === 'object' ? redisStores.get(store) : undefined;
      if (redis !== undefined) wasm.offerRedisStore(redis, store);
      this.#inner = new wasm.WasmBigSegmentStoreManager(managerOptions === undefined ? {} : managerOptions);
      Object.defineProperty(this, 'statusProvider', {
        value: new BigSegmentStoreStatusProvider(INNER, this.#inner),
        enumerable: true,
      });
    }
    /** Background status polling every statusPollIntervalMs; idempotent; never keeps Node alive. */
    start() {
      this.#inner.start();
    }
    getUserMembership(contextKey) {
      // A warm cache answers without a round trip through the wasm's promise machinery; the key
      // crosses only when it is not the string the previous lookup passed.
      let ready;
      if (typeof contextKey === 'string') {
        const repeated = contextKey === this.#lastKey;
        if (!repeated) this.#lastKey = contextKey;
        ready = this.#inner.lookupNow(repeated ? undefined : contextKey, now());
      }
      if (ready !== undefined) return ready; // a resolved promise, shared by warm lookups
      return new Promise((resolve, reject) => this.#inner.getUserMembership(contextKey, resolve, reject));
    }
    /** Lookups, cache hits/misses and store calls so far (beyond the anchors, for dashboards). */
    stats() {
      return this.#inner.counters();
    }
    /** Stops polling, then awaits the store's close(); idempotent; later lookups reject. */
    close() {
      return this.#inner.close();
    }
  }

  function hashContextKey(contextKey) {
    return wasm.hashContextKey(contextKey);
  }

  function bigSegmentRef(segmentKey, generation) {
    return wasm.bigSegmentRef(segmentKey, generation);
  }

  /** A Big Segment store over Redis in the Relay Proxy's schema, through any Redis client. */
  function redisBigSegmentStore(host, storeOptions) {
    bridge();
    const inner = new wasm.WasmRedisStore(host, storeOptions);
    const store = Object.freeze({
      getMetadata: () => inner.getMetadata(),
      getMembership: (contextHash) => new Promise((resolve, reject) => inner.getMembership(contextHash, resolve, reject)),
      close() {},
    });
    redisStores.set(store, inner);
    return store;
  }

  function requireMethods(adapter, client, names) {
    for (const name of names) {
      if (client === null || typeof client !== 'object' || typeof client[name] !== 'function') {
        throw new TypeError(`${adapter}: client must have a ${name} method, ${describe(client)}`);
      }
    }
  }

  /** node-redis v4+: `sendCommand`, and `multi().addCommand()…execAsPipeline()` for one round trip. */
  function nodeRedisHost(client) {
    requireMethods('nodeRedisHost', client, ['sendCommand', 'multi']);
    return Object.freeze({
      command: (args) => client.sendCommand(args),
      pipeline(commands) {
        const batch = client.multi();
        for (const args of commands) batch.addCommand(args);
        return typeof batch.execAsPipeline === 'function' ? batch.execAsPipeline() : batch.exec();
      },
    });
  }

  /** ioredis: `call`, and `pipeline(commands).exec()` for one round trip. */
  function ioredisHost(client) {
    requireMethods('ioredisHost', client, ['call', 'pipeline']);
    return Object.freeze({
      command: ([name, ...args]) => client.call(name, ...args),
      async pipeline(commands) {
        // ioredis finds pipelined commands by their lower-case method names.
        const batch = commands.map(([name, ...args]) => [String(name).toLowerCase(), ...args]);
        const replies = await client.pipeline(batch).exec();
        if (!Array.isArray(replies)) throw new TypeError('ioredisHost: pipeline exec() did not return an array');
        return replies.map((entry) => {
          if (!Array.isArray(entry)) throw new TypeError('ioredisHost: pipeline exec() returned a malformed entry');
          const [error, reply] = entry;
          if (error) throw error instanceof Error ? error : new Error(`ioredis: ${String(error)}`);
          return reply;
        });
      },
    });
  }

  /**
   * @upstash/redis (HTTP, edge-friendly). Commands go through the client's own requester, raw:
   * no JSON deserialization of replies, one HTTP request per pipeline.
   */
  function upstashHost(client) {
    const requester = client && typeof client === 'object' ? client.client : undefined;
    if (!requester || typeof requester.request !== 'function') {
      throw new TypeError(`upstashHost: client must be an @upstash/redis Redis client, ${describe(client)}`);
    }
    const reply = ({ result, error }) => {
      if (error) throw new Error(`Upstash: ${error}`);
      return result;
    };
    return Object.freeze({
      command: async (args) => reply(await requester.request({ body: args })),
      async pipeline(commands) {
        const replies = await requester.request({ path: ['pipeline'], body: commands });
        return replies.map(reply);
      },
    });
  }

  return {
    BigSegmentStoreManager,
    ioredisHost,
    nodeRedisHost,
    redisBigSegmentStore,
    upstashHost,
    bigSegmentRef,
    hashContextKey,
    MigratorBuilder,
    MigratorConfigError,
    OpTracker,
    failure,
    fixedStage,
    launchDarklyClient,
    migrationVariation,
  };
}
