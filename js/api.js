// The public JavaScript API of cutover: thin classes over the wasm bindings.
// This file is a function body shared by every entry point: scripts/assemble-entries.mjs wraps
// it with the right import of the wasm glue (`wasm`) and the right export syntax.
// Behaviour lives in the Rust core; here arguments are forwarded and results passed back.

function createApi(wasm) {
  const INNER = Symbol('cutover.inner');
  // Looked up on first use: with the web entry the wasm is initialised after this module loads.
  let failureBrand;

  // Plain functions the wasm calls on hot paths without an exception wrapper, so none of them
  // may throw (see src/js/bridge.rs): the clock, awaiting a promise through one callback pair
  // (instead of a wasm closure pair per promise), reading a flag client's answer in one call,
  // calling a tracker method, and building result objects. Installed on first use, because
  // with the web entry the wasm is initialised after this module has loaded.
  let bridged = false;
  const TRACKER_METHODS = ['op', 'invoked', 'latency', 'error', 'consistency', 'createEvent'];
  /** `target[key]`, or undefined when reading it throws. */
  function read(target, key) {
    try {
      return target[key];
    } catch {
      return undefined;
    }
  }
  let thrown;
  function bridge() {
    if (bridged) return;
    const clock = typeof performance === 'object' && performance !== null && typeof performance.now === 'function';
    const stageIndex = new Map(wasm.stageNames().map((name, i) => [name, i]));
    wasm.installBridge({
      // Which of the core's stage names (in its order) a value is exactly, else -1.
      stage: (value) => stageIndex.get(value) ?? -1,
      now: clock ? () => performance.now() : () => Date.now(),
      // A promise or thenable is awaited (true); anything else is a plain result (false).
      awaitValue(value, id) {
        let promise;
        try {
          if (value instanceof Promise) promise = value;
          else if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function') {
            promise = Promise.resolve(value);
          } else return false;
        } catch {
          return false;
        }
        try {
          promise.then(
            (result) => wasm.settlePromise(id, true, result),
            (error) => wasm.settlePromise(id, false, error),
          );
        } catch (error) {
          wasm.settlePromise(id, false, error);
        }
        return true;
      },
      // A flag client's answer object read in one call (src/js/client.rs, served_from_fields).
      // A property whose read throws (a hostile getter or proxy) reads as undefined.
      readAnswer(answer) {
        const reason = read(answer, 'reason');
        const tracker = read(answer, 'tracker');
        const fields = [
          read(answer, 'value'),
          read(answer, 'variationIndex'),
          typeof reason === 'object' && reason !== null ? reason : undefined,
          read(answer, 'flagVersion'),
          read(answer, 'checkRatio'),
          read(answer, 'samplingRatio'),
          tracker ?? undefined,
        ];
        if (tracker != null) {
          // [7] names the first method that is not a function; [8..13] are the methods.
          const isObject = typeof tracker === 'object' || typeof tracker === 'function';
          fields.push(undefined);
          for (const name of TRACKER_METHODS) {
            const method = isObject ? read(tracker, name) : undefined;
            if (typeof method !== 'function' && fields[7] === undefined) fields[7] = name;
            fields.push(method);
          }
        }
        return fields;
      },
      // A method call whose result is not needed; a throw is kept for takeError().
      call(f, target, a, b) {
        try {
          f.call(target, a, b);
          return true;
        } catch (error) {
          thrown = error;
          return false;
        }
      },
      takeError() {
        const error = thrown;
        thrown = undefined;
        return error;
      },
      // A store's membership answer: own keys, boolean values only, frozen, null prototype
      // (a `__proto__` key is data). Keys of an object that refuses to list them: none; a key
      // whose read throws: left out.
      copyMembership(answer) {
        const out = Object.create(null);
        if (typeof answer === 'object' && answer !== null) {
          let keys = [];
          try {
            keys = Object.keys(answer);
          } catch {
            // a proxy that refuses: no keys
          }
          for (const key of keys) {
            const value = read(answer, key);
            if (typeof value === 'boolean') out[key] = value;
          }
        }
        return Object.freeze(out);
      },
      startTimer(ms, id, unref) {
        try {
          const handle = setTimeout(() => wasm.settlePromise(id, true, undefined), ms);
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
      writeResult: (authoritative, nonAuthoritative) =>
        nonAuthoritative === undefined ? { authoritative } : { authoritative, nonAuthoritative },
      result: (origin, success, payload) =>
        success ? { origin, success, value: payload } : { origin, success, error: payload },
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

  class Migrator {
    #inner;
    constructor(token, inner) {
      if (token !== INNER) throw new TypeError('a Migrator is made by MigratorBuilder#build()');
      this.#inner = inner;
    }
    read(flagKey, context, defaultStage, payload, options) {
      return new Promise((resolve, reject) =>
        this.#inner.read(flagKey, context, defaultStage, payload, options, resolve, reject),
      );
    }
    write(flagKey, context, defaultStage, payload, options) {
      return new Promise((resolve, reject) =>
        this.#inner.write(flagKey, context, defaultStage, payload, options, resolve, reject),
      );
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
      this.#inner = new wasm.WasmMigratorBuilder(client, logger);
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
    const result = await wasm.migrationVariation(client, flagKey, context, defaultStage);
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

  // LaunchDarkly's trackMigration drops a `consistent` measurement without a numeric samplingRatio.
  function withConsistentRatio(event) {
    const measurements = event && event.measurements;
    if (!Array.isArray(measurements)) return event;
    const needs = measurements.some((m) => m && m.key === 'consistent' && typeof m.samplingRatio !== 'number');
    if (!needs) return event;
    return {
      ...event,
      measurements: measurements.map((m) =>
        m && m.key === 'consistent' && typeof m.samplingRatio !== 'number' ? { ...m, samplingRatio: 1 } : m,
      ),
    };
  }

  /** Adapts a LaunchDarkly server SDK client (`migrationVariation`, `trackMigration`). */
  function launchDarklyClient(ldClient) {
    for (const name of ['migrationVariation', 'trackMigration']) {
      if (ldClient === null || typeof ldClient !== 'object' || typeof ldClient[name] !== 'function') {
        throw new TypeError(`launchDarklyClient: ldClient must have a ${name} method, ${describe(ldClient)}`);
      }
    }
    return Object.freeze({
      migrationVariation: (flagKey, context, defaultStage) =>
        ldClient.migrationVariation(flagKey, context, defaultStage),
      trackMigrationOp: (event) => ldClient.trackMigration(withConsistentRatio(event)),
    });
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

  class BigSegmentStoreManager {
    #inner;
    constructor(managerOptions) {
      bridge();
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
      // A warm cache answers without a round trip through the wasm's promise machinery.
      const ready = typeof contextKey === 'string' ? this.#inner.lookupNow(contextKey) : undefined;
      if (ready !== undefined) return Promise.resolve(ready);
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
    return Object.freeze({
      getMetadata: () => inner.getMetadata(),
      getMembership: (contextHash) => new Promise((resolve, reject) => inner.getMembership(contextHash, resolve, reject)),
      close() {},
    });
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
