// Generic inference through the shipped types (ESM consumer: resolves dist/index.d.mts).
import {
  BigSegmentStoreManager,
  MigratorBuilder,
  MigratorConfigError,
  OpTracker,
  bigSegmentRef,
  failure,
  fixedStage,
  hashContextKey,
  launchDarklyBigSegmentStore,
  launchDarklyClient,
  migrationVariation,
  nodeRedisHost,
  redisBigSegmentStore,
  upstashHost,
  ioredisHost,
  type BigSegmentStore,
  type BigSegmentStoreStatus,
  type BigSegmentsStatus,
  type Context,
  type ExternalTracker,
  type LaunchDarklyBigSegmentStore,
  type Failure,
  type Membership,
  type MigrationClient,
  type MigrationOpEvent,
  type MigrationStats,
  type Migrator,
  type OperationResult,
  type Stage,
  type WriteResult,
} from 'cutover';
import { expectType, type Equals } from './util.js';

const events: MigrationOpEvent[] = [];
const client: MigrationClient = {
  migrationVariation: async (flagKey, context, defaultStage) => {
    expectType<Equals<typeof flagKey, string>>();
    expectType<Equals<typeof context, Context>>();
    expectType<Equals<typeof defaultStage, Stage>>();
    return { value: 'shadow', checkRatio: 2, samplingRatio: 1, flagVersion: 3, variationIndex: 1, reason: { kind: 'FALLTHROUGH' } };
  },
  trackMigrationOp: (event) => {
    events.push(event);
  },
};

const builder = new MigratorBuilder<string, number, { v: number }, boolean>(client, { logger: console });
const chained = builder
  .readExecutionOrder('serial')
  .trackLatency(true)
  .trackErrors(false)
  .originTimeout(250)
  .read(
    async (payload, signal) => {
      // Explicit type arguments type the origins' parameters; the migrator passes the payload as given.
      expectType<Equals<typeof payload, string>>();
      expectType<Equals<typeof signal, AbortSignal>>();
      return payload.length;
    },
    (payload) => (payload ? payload.length : failure(new Error('no payload'))),
    (oldValue, newValue) => {
      expectType<Equals<typeof oldValue, number>>();
      expectType<Equals<typeof newValue, number>>();
      return oldValue === newValue;
    },
  )
  .write(
    (payload) => {
      expectType<Equals<typeof payload, { v: number }>>();
      return payload.v === 1;
    },
    async () => true,
  );
expectType<Equals<typeof chained, MigratorBuilder<string, number, { v: number }, boolean>>>();
const migrator = chained.build();
expectType<Equals<typeof migrator, Migrator<string, number, { v: number }, boolean>>>();

export async function useMigrator(): Promise<number> {
  const result = await migrator.read('flag', { key: 'u' }, 'off', 'payload');
  expectType<Equals<typeof result, OperationResult<number>>>();
  expectType<Equals<typeof result.value, number | undefined>>();
  expectType<Equals<typeof result.origin, 'old' | 'new'>>();
  const w = await migrator.write('flag', { kind: 'user', key: 'u', name: 'Ada' }, 'live', { v: 1 }, { signal: AbortSignal.timeout(10) });
  expectType<Equals<typeof w, WriteResult<boolean>>>();
  expectType<Equals<typeof w.authoritative.value, boolean | undefined>>();
  if (result.success) expectType<Equals<typeof result.value, number>>();
  else expectType<Equals<typeof result.error, unknown>>();
  expectType<Equals<typeof w.nonAuthoritative, OperationResult<boolean> | undefined>>();
  const stats: MigrationStats = migrator.stats();
  const p99: number | undefined = stats.read.old.latencyMs?.p99;
  const shadowCount: number | undefined = stats.read.byStage.shadow;
  migrator.resetStats();
  const f: Failure = failure('x');
  void f;
  return (result.value ?? 0) + (p99 ?? 0) + (shadowCount ?? 0) + stats.write.consistency.checked;
}

// No type arguments: the types come from the origins; a value is what either origin returns.
const loose = new MigratorBuilder(fixedStage('complete')).read(() => 1, () => 'two').write(() => null, () => undefined).build();
export async function useLoose(): Promise<void> {
  const r = await loose.read('f', { key: 'k' }, 'complete');
  expectType<Equals<typeof r.value, number | string | undefined>>();
  const w = await loose.write('f', { key: 'k' }, 'complete', { any: 'payload' });
  expectType<Equals<typeof w.authoritative.value, null | undefined>>();
}

export function errors(e: unknown): string {
  if (e instanceof MigratorConfigError) {
    expectType<Equals<typeof e.name, 'MigratorConfigError'>>();
    return e.message;
  }
  return '';
}

export async function tracking(): Promise<MigrationOpEvent> {
  const tracker = new OpTracker('flag', { key: 'k' }, { value: 'live' }, 'off').operation('read').invoked('new').latency('new', 3).consistent(() => true);
  expectType<Equals<typeof tracker, OpTracker>>();
  const { stage, tracker: t } = await migrationVariation(client, 'flag', { key: 'k' }, 'off');
  expectType<Equals<typeof stage, Stage>>();
  expectType<Equals<typeof t, OpTracker | ExternalTracker>>();
  const ldTracker: ExternalTracker = { op() {}, invoked() {}, latency() {}, error() {}, consistency() {}, createEvent: () => undefined };
  const ld = launchDarklyClient({ migrationVariation: async () => ({ value: 'off', tracker: ldTracker }), trackMigration: () => {} });
  expectType<Equals<typeof ld, MigrationClient>>();
  return tracker.build();
}

// Big Segments.
const store: BigSegmentStore = {
  getMetadata: async () => ({ lastUpToDate: Date.now() }),
  getMembership: async (hash) => (hash === hashContextKey('k') ? { [bigSegmentRef('beta', 1)]: true } : null),
  close: () => {},
};
const ldStyleStore: BigSegmentStore = {
  getMetadata: async () => undefined,
  getUserMembership: async () => undefined,
};
export async function segments(): Promise<boolean> {
  const manager = new BigSegmentStoreManager({ store, contextCacheSize: 10, contextCacheTimeMs: 1000, statusPollIntervalMs: 500, staleAfterMs: 60_000, queryTimeoutMs: 100, logger: console });
  new BigSegmentStoreManager({ store: ldStyleStore });
  new BigSegmentStoreManager({ store: null });
  manager.start();
  const { membership, status } = await manager.getUserMembership('k');
  expectType<Equals<typeof membership, Membership | null>>();
  expectType<Equals<typeof status, BigSegmentsStatus>>();
  const included: boolean | undefined = membership?.['beta.g1'];
  const s = await manager.statusProvider.getStatus();
  expectType<Equals<typeof s, BigSegmentStoreStatus>>();
  const last = manager.statusProvider.lastStatus;
  expectType<Equals<typeof last, BigSegmentStoreStatus | undefined>>();
  const listener = (st: BigSegmentStoreStatus): void => void st.stale;
  manager.statusProvider.addListener(listener);
  manager.statusProvider.removeListener(listener);
  const counts = manager.stats();
  await manager.close();
  return included === true && counts.lookups > 0;
}

// Clients shaped as the adapters use them (pass/stores.ts and clients/ check the real clients' types).
const nodeRedis = { sendCommand: async (args: string[]) => args, multi: () => ({ addCommand: () => {}, exec: async () => [] }) };
const ioredis = { call: async (name: string) => name, pipeline: () => ({ exec: async () => [] }) };
const upstash = { pipeline: () => ({}), smembers: async () => [], createScript: () => ({}) };
export const redisStores: BigSegmentStore[] = [
  redisBigSegmentStore(async (args: string[]) => args.length),
  redisBigSegmentStore({ command: async () => null, pipeline: async (cmds) => cmds.map(() => null) }, { prefix: 'p' }),
  redisBigSegmentStore(nodeRedisHost(nodeRedis), {}),
  redisBigSegmentStore(ioredisHost(ioredis)),
  redisBigSegmentStore(upstashHost(upstash)),
];

// cutover's stores inside LaunchDarkly's SDK: a factory (clientContext) => LaunchDarkly's store shape.
export async function launchDarklyStore(): Promise<boolean | undefined> {
  const factory = launchDarklyBigSegmentStore(redisBigSegmentStore(async () => null));
  launchDarklyBigSegmentStore(ldStyleStore);
  const ldStore = factory({ basicConfiguration: { logger: console } });
  expectType<Equals<typeof ldStore, LaunchDarklyBigSegmentStore>>();
  const metadata = await ldStore.getMetadata();
  expectType<Equals<typeof metadata, { lastUpToDate?: number } | undefined>>();
  const membership = await ldStore.getUserMembership(hashContextKey('k'));
  ldStore.close();
  return membership?.['beta.g1'];
}
