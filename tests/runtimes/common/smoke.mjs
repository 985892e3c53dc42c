// Runtime-neutral smoke of the public API (API.md §1–§3), shared by every runtime fixture:
// Deno, Bun, workerd (bundled by esbuild), Chromium (served as a module) and Node.
// It takes the imported module namespace and returns a JSON-serialisable report; the
// node:test orchestrators check the report with ./expect.mjs. No timers run at module scope.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const silent = { debug() {}, info() {}, warn() {}, error() {} };

function abortableSleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });
}

function describeError(e) {
  if (e === null || typeof e !== 'object') return { thrown: String(e) };
  return {
    name: e.name,
    message: e.message,
    isDOMException: typeof DOMException !== 'undefined' && e instanceof DOMException,
    isError: e instanceof Error,
  };
}

async function settle(fn) {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    return { ok: false, error: describeError(e), raw: e };
  }
}

const plain = (o) => (o == null ? o : { ...o });
const keysOf = (ev) => ev.measurements.map((m) => m.key).sort();
const measurement = (ev, key) => ev.measurements.find((m) => m.key === key);

async function migrations(api) {
  const { MigratorBuilder, MigratorConfigError, failure, fixedStage, OpTracker, migrationVariation } = api;
  const out = {};

  // Shadow read (serial, with comparison) and write, events captured by a tiny client.
  const events = [];
  const client = {
    migrationVariation: (key, context, defaultStage) => ({ value: 'shadow', variationIndex: 2, flagVersion: 7, reason: { kind: 'FALLTHROUGH' } }),
    trackMigrationOp: (event) => events.push(event),
  };
  const calls = [];
  const compared = [];
  const migrator = new MigratorBuilder(client, { logger: silent })
    .readExecutionOrder('serial')
    .read(
      async (p, signal) => {
        calls.push(`read-old:${p}:${signal instanceof AbortSignal}`);
        return `old:${p}`;
      },
      (p) => {
        calls.push(`read-new:${p}`);
        return `new:${p}`;
      },
      (a, b) => {
        compared.push([a, b]);
        return a.slice(4) === b.slice(4);
      },
    )
    .write(
      async (p) => {
        calls.push(`write-old:${p}`);
        return p * 2;
      },
      async (p) => {
        calls.push(`write-new:${p}`);
        return p * 3;
      },
    )
    .build();
  const ctx = { kind: 'user', key: 'user-1', name: 'Ada' };
  out.read = plain(await migrator.read('flag-a', ctx, 'off', 42));
  out.write = await migrator.write('flag-a', ctx, 'off', 5);
  out.write = { authoritative: plain(out.write.authoritative), nonAuthoritative: plain(out.write.nonAuthoritative) };
  out.calls = calls;
  out.compared = compared;
  out.events = events.map((e) => ({
    kind: e.kind,
    operation: e.operation,
    contextKey: e.context?.key,
    evaluation: plain(e.evaluation),
    keys: keysOf(e),
    invoked: plain(measurement(e, 'invoked')?.values),
    consistent: measurement(e, 'consistent')?.value,
    latencyOrigins: Object.keys(measurement(e, 'latency_ms')?.values ?? {}).sort(),
  }));
  const stats = migrator.stats();
  out.stats = {
    read: { count: stats.read.count, byStage: stats.read.byStage, consistency: stats.read.consistency, oldInvoked: stats.read.old.invoked, newInvoked: stats.read.new.invoked, oldLatencyCount: stats.read.old.latencyMs?.count ?? null },
    write: { count: stats.write.count, byStage: stats.write.byStage, consistency: stats.write.consistency, oldInvoked: stats.write.old.invoked, newInvoked: stats.write.new.invoked },
  };
  migrator.resetStats();
  out.statsAfterReset = migrator.stats().read.count;

  // fixedStage: 'live' reads new; failure() fails without throwing.
  const live = new MigratorBuilder(fixedStage('live'))
    .read(() => 'o', () => failure(new Error('nope')))
    .write(() => 1, () => 2)
    .build();
  const liveRead = await live.read('flag-b', { key: 'u2' }, 'off');
  out.failureRead = { origin: liveRead.origin, success: liveRead.success, error: describeError(liveRead.error) };

  // Abort: controller.abort() with no reason → DOMException AbortError; a custom reason is the rejection.
  const slow = new MigratorBuilder(fixedStage('off'), { logger: silent })
    .read((p, signal) => abortableSleep(2000, signal).then(() => 'late'), () => 'n')
    .write(() => 1, () => 2)
    .build();
  const ac = new AbortController();
  const t0 = Date.now();
  const pending = settle(() => slow.read('flag-c', { key: 'u3' }, 'off', undefined, { signal: ac.signal }));
  await sleep(20);
  ac.abort();
  const aborted = await pending;
  out.abort = { ok: aborted.ok, error: aborted.error, elapsedMs: Date.now() - t0 };
  const custom = new Error('custom reason');
  const ac2 = new AbortController();
  const pending2 = settle(() => slow.read('flag-c', { key: 'u3' }, 'off', undefined, { signal: ac2.signal }));
  await sleep(5);
  ac2.abort(custom);
  const aborted2 = await pending2;
  out.abortCustom = { ok: aborted2.ok, sameReason: aborted2.raw === custom };
  const pre = await settle(() => slow.read('flag-c', { key: 'u3' }, 'off', undefined, { signal: AbortSignal.abort() }));
  out.abortPre = { ok: pre.ok, error: pre.error };
  out.abortStatsCount = slow.stats().read.count;

  // originTimeout: a live read whose new origin ignores its signal.
  let timedSignal;
  const timed = new MigratorBuilder(fixedStage('live'), { logger: silent })
    .originTimeout(30)
    .read(() => 'o', (p, signal) => {
      timedSignal = signal;
      return new Promise(() => {}); // ignores its signal and never settles (and holds no timer)
    })
    .write(() => 1, () => 2)
    .build();
  const t1 = Date.now();
  const tr = await timed.read('flag-d', { key: 'u4' }, 'off');
  out.timeout = {
    origin: tr.origin,
    success: tr.success,
    error: describeError(tr.error),
    signalAborted: timedSignal?.aborted === true,
    elapsedMs: Date.now() - t1,
    stats: { invoked: timed.stats().read.new.invoked, errors: timed.stats().read.new.errors, timeouts: timed.stats().read.new.timeouts },
  };

  // Errors of the builder.
  const missing = await settle(() => new MigratorBuilder(fixedStage('off')).build());
  out.configError = {
    ...missing.error,
    isConfigError: missing.raw instanceof MigratorConfigError,
  };
  const badOrigin = await settle(() => new MigratorBuilder(fixedStage('off')).read('not a function', () => 1));
  out.badOriginError = badOrigin.error;
  const badOrder = await settle(() => new MigratorBuilder(fixedStage('off')).readExecutionOrder('sideways'));
  out.badOrderError = badOrder.error;

  // OpTracker and migrationVariation.
  const event = new OpTracker('flag-e', { key: 'u5' }, { value: 'live' }, 'off')
    .operation('read')
    .invoked('new')
    .latency('new', 3)
    .build();
  out.opTracker = { kind: event.kind, operation: event.operation, evaluation: plain(event.evaluation), keys: keysOf(event) };
  const mv = await migrationVariation({ migrationVariation: async () => 'rampdown' }, 'flag-f', { key: 'u6' }, 'off');
  out.migrationVariation = { stage: mv.stage, trackerIsOpTracker: mv.tracker instanceof OpTracker };
  const badStage = await settle(() => migrationVariation({ migrationVariation: () => 'sideways' }, 'flag-f', { key: 'u6' }, 'dualwrite'));
  out.badStageFallsBack = badStage.ok ? badStage.value.stage : badStage.error;
  return out;
}

async function bigSegments(api) {
  const { BigSegmentStoreManager, hashContextKey, bigSegmentRef } = api;
  const out = {};
  out.hash = hashContextKey('user-key');
  out.ref = bigSegmentRef('beta', 3);

  const hash = hashContextKey('user-1');
  const calls = { metadata: 0, membership: [], close: 0 };
  let lastUpToDate = Date.now();
  const store = {
    async getMetadata() {
      calls.metadata++;
      return { lastUpToDate };
    },
    async getMembership(h) {
      calls.membership.push(h);
      return h === hash ? { [bigSegmentRef('beta', 3)]: true, 'alpha.g1': false } : null;
    },
    async close() {
      calls.close++;
    },
  };
  const manager = new BigSegmentStoreManager({ store, statusPollIntervalMs: 30, staleAfterMs: 60_000, logger: silent });
  const first = await manager.getUserMembership('user-1');
  out.first = {
    status: first.status,
    membership: plain(first.membership),
    frozen: Object.isFrozen(first.membership),
    nullProto: first.membership != null && Object.getPrototypeOf(first.membership) === null,
  };
  const second = await manager.getUserMembership('user-1');
  out.second = { status: second.status, membership: plain(second.membership) };
  const unknown = await manager.getUserMembership('nobody');
  out.unknown = { status: unknown.status, membership: plain(unknown.membership) };
  out.membershipCalls = calls.membership.length;
  out.queriedByHash = calls.membership[0] === hash;
  out.status = plain(await manager.statusProvider.getStatus());
  out.lastStatus = plain(manager.statusProvider.lastStatus);

  // On-demand polling (no start()): after statusPollIntervalMs a lookup refreshes the status inline.
  const listened = [];
  const listener = (s) => listened.push(plain(s));
  manager.statusProvider.addListener(listener);
  lastUpToDate = Date.now() - 3_600_000;
  await sleep(60);
  const stale = await manager.getUserMembership('user-1');
  out.afterStale = { status: stale.status, lastStatus: plain(manager.statusProvider.lastStatus) };
  out.listened = listened;
  manager.statusProvider.removeListener(listener);
  out.stats = manager.stats();

  await manager.close();
  await manager.close();
  out.closeCalls = calls.close;
  const afterClose = await settle(() => manager.getUserMembership('user-1'));
  out.afterClose = { ok: afterClose.ok, error: afterClose.error };

  // NOT_CONFIGURED, STORE_ERROR and the LaunchDarkly alias getUserMembership.
  const none = new BigSegmentStoreManager({});
  out.notConfigured = plain(await none.getUserMembership('x'));
  await none.close();
  const broken = new BigSegmentStoreManager({
    store: { getMetadata: async () => { throw new Error('down'); }, getMembership: async () => ({ 's.g1': true }) },
    logger: silent,
  });
  const b = await broken.getUserMembership('x');
  out.storeError = { status: b.status, membership: plain(b.membership) };
  await broken.close();
  const alias = new BigSegmentStoreManager({
    store: { getMetadata: async () => ({ lastUpToDate: Date.now() }), getUserMembership: async () => ({ 'ld.g2': true }) },
    logger: silent,
  });
  const a = await alias.getUserMembership('x');
  out.alias = { status: a.status, membership: plain(a.membership) };
  await alias.close();
  const invalid = await settle(() => new BigSegmentStoreManager({ contextCacheSize: 0 }));
  out.invalidOption = invalid.error;
  return out;
}

/** Runs the whole smoke; `api` is the module namespace of 'cutover' (or 'cutover/web' after init). */
export async function smoke(api) {
  const exportsList = Object.keys(api).filter((k) => k !== 'default' && k !== 'init' && k !== 'initSync').sort();
  return { exports: exportsList, migrations: await migrations(api), bigSegments: await bigSegments(api) };
}
