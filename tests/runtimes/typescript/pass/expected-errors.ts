// Misuse that the shipped types must reject: every @ts-expect-error below must be needed (an
// unused one is itself a compile error, TS2578).
import {
  BigSegmentStoreManager,
  MigratorBuilder,
  MigratorConfigError,
  OpTracker,
  fixedStage,
  hashContextKey,
  bigSegmentRef,
  redisBigSegmentStore,
  launchDarklyBigSegmentStore,
  type BigSegmentStore,
  type MigrationClient,
  type Stage,
} from 'cutover';

// ---- stages
// @ts-expect-error 'shadowed' is not a Stage
fixedStage('shadowed');
// @ts-expect-error stages are lowercase
const upper: Stage = 'LIVE';
void upper;

const builder = new MigratorBuilder<string, number, { v: number }, boolean>(fixedStage('off'));

// @ts-expect-error misspelled option: logger
new MigratorBuilder(fixedStage('off'), { loger: console });

// ---- execution order
// @ts-expect-error not an ExecutionOrder
builder.readExecutionOrder('sideways');
// @ts-expect-error booleans for trackLatency
builder.trackLatency('yes');
// @ts-expect-error milliseconds are numbers
builder.originTimeout('100ms');

// ---- origins
// @ts-expect-error an origin must be a function
builder.read('old', () => 1);
// @ts-expect-error an origin must be a function
builder.write(() => true, null);
// @ts-expect-error the read origins must produce TRead (number), not string
builder.read(() => 'one', () => 2);
// @ts-expect-error the comparison receives TRead values
builder.read(() => 1, () => 2, (a: string, b: string) => a === b);
// @ts-expect-error the comparison is synchronous and returns boolean
builder.read(() => 1, () => 2, async () => true);
// @ts-expect-error the write payload is { v: number }, not string
builder.write((p: string | undefined) => p === 'x', () => true);

const migrator = builder.read(() => 1, () => 2).write(() => true, () => false).build();

// ---- payloads, contexts, stages at call sites
// @ts-expect-error the read payload is a string
migrator.read('flag', { key: 'u' }, 'off', 42);
// @ts-expect-error the write payload is { v: number }
migrator.write('flag', { key: 'u' }, 'off', { v: 'one' });
// @ts-expect-error a context needs a key
migrator.read('flag', { kind: 'user' }, 'off', 'p');
// @ts-expect-error a context's key is a string
migrator.read('flag', { key: 5 }, 'off', 'p');
// @ts-expect-error the default stage must be a Stage
migrator.read('flag', { key: 'u' }, 'on', 'p');
// @ts-expect-error flag keys are strings
migrator.read(7, { key: 'u' }, 'off', 'p');
// @ts-expect-error the read payload (a string) is required: its type does not include undefined
migrator.read('flag', { key: 'u' }, 'off');
// @ts-expect-error the write payload ({ v: number }) is required
migrator.write('flag', { key: 'u' }, 'off');
// @ts-expect-error payload, then options: not options in the payload's place
migrator.read('flag', { key: 'u' }, 'off', { signal: AbortSignal.timeout(1) });
// @ts-expect-error options.signal is an AbortSignal
migrator.read('flag', { key: 'u' }, 'off', 'p', { signal: 'abort' });

export async function results(): Promise<void> {
  const r = await migrator.read('flag', { key: 'u' }, 'off', 'p');
  // @ts-expect-error value may be undefined
  const n: number = r.value;
  // @ts-expect-error value is a number, not a string
  const s: string | undefined = r.value;
  if (!r.success) {
    // @ts-expect-error a failure has no value
    const none: number = r.value;
    void none;
  }
  const w = await migrator.write('flag', { key: 'u' }, 'off', { v: 1 });
  // @ts-expect-error nonAuthoritative may be absent
  w.nonAuthoritative.success;
  // @ts-expect-error the authoritative write may have failed
  const written: boolean = w.authoritative.value;
  void n;
  void s;
  void written;
}

// ---- clients and trackers
const badClient: MigrationClient = {
  // @ts-expect-error migrationVariation must answer a StageEvaluation or a string
  migrationVariation: () => 42,
};
void badClient;
// @ts-expect-error not an Operation
new OpTracker('f', { key: 'k' }, { value: 'off' }, 'off').operation('delete');
// @ts-expect-error origins are 'old' | 'new'
new OpTracker('f', { key: 'k' }, { value: 'off' }, 'off').invoked('both');
export function configErrorName(e: MigratorConfigError): void {
  // @ts-expect-error the name is the literal 'MigratorConfigError'
  const other: 'TypeError' = e.name;
  void other;
}

// ---- big segments
// @ts-expect-error contextCacheSize is a number
new BigSegmentStoreManager({ contextCacheSize: '10' });
// @ts-expect-error unknown option
new BigSegmentStoreManager({ pollInterval: 5 });
// @ts-expect-error a store needs getMembership (or getUserMembership)
const incomplete: BigSegmentStore = { getMetadata: async () => null };
void incomplete;
// @ts-expect-error membership values are booleans
const wrongStore: BigSegmentStore = { getMetadata: async () => null, getMembership: async () => ({ 'a.g1': 'yes' }) };
void wrongStore;
export async function membership(manager: BigSegmentStoreManager): Promise<void> {
  const { membership, status } = await manager.getUserMembership('k');
  if (membership) {
    // @ts-expect-error Membership is read-only
    membership['a.g1'] = true;
  }
  // @ts-expect-error 'OK' is not a BigSegmentsStatus
  if (status === 'OK') return;
  // @ts-expect-error lastStatus is read-only
  manager.statusProvider.lastStatus = { available: true, stale: false };
}
// @ts-expect-error context keys are strings
hashContextKey(123);
// @ts-expect-error generations are numbers
bigSegmentRef('seg', '1');
// @ts-expect-error a Redis host is a function or { command }
redisBigSegmentStore({ send: async () => null });
// @ts-expect-error misspelled option: prefix
redisBigSegmentStore(async () => null, { prefx: 'p' });
// @ts-expect-error launchDarklyBigSegmentStore wraps a cutover store, not a Redis host
launchDarklyBigSegmentStore({ command: async () => null });
