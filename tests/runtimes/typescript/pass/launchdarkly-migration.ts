// A consumer written against LaunchDarkly's createMigration types, its import switched to cutover.
// LaunchDarkly's context and client interfaces are restated here with their shapes (the scratch
// project of typescript.test.mjs links only cutover): they must be assignable to cutover's types.
import {
  createMigration,
  LDConcurrentExecution,
  LDExecution,
  LDExecutionOrdering,
  LDMigrationError,
  LDMigrationStage,
  LDMigrationSuccess,
  LDSerialExecution,
  type LDMethodResult,
  type LDMigrationOptions,
  type LDMigrationReadResult,
  type LDMigrationResult,
  type LDMigration,
  type LDMigrationWriteResult,
  type MigrationStats,
} from 'cutover';
import { expectType, type Equals } from './util.js';

// LaunchDarkly's shapes (js-sdk-common's LDContext family, js-server-sdk-common's LDClient).
interface LDContextMeta {
  privateAttributes?: string[];
}
interface LDContextCommon {
  key: string;
  name?: string;
  _meta?: LDContextMeta;
  anonymous?: boolean;
  [attribute: string]: any;
}
interface LDSingleKindContext extends LDContextCommon {
  kind: string;
}
interface LDMultiKindContext {
  kind: 'multi';
  [kind: string]: 'multi' | LDContextCommon;
}
interface LDUser {
  key: string;
  name?: string;
  email?: string;
  anonymous?: boolean;
  custom?: { [key: string]: string | boolean | number | Array<string | boolean | number> };
  privateAttributeNames?: Array<string>;
}
type LDContext = LDUser | LDSingleKindContext | LDMultiKindContext;
interface LDMigrationTracker {
  op(op: 'read' | 'write'): void;
  error(origin: 'old' | 'new'): void;
  consistency(check: () => boolean): void;
  invoked(origin: 'old' | 'new'): void;
  latency(origin: 'old' | 'new', value: number): void;
  createEvent(): object | undefined;
}
interface LDClient {
  migrationVariation(
    key: string,
    context: LDContext,
    defaultValue: LDMigrationStage,
  ): Promise<{ value: LDMigrationStage; tracker: LDMigrationTracker }>;
  trackMigration(event: object): void;
}
declare const client: LDClient;

interface Row {
  id: string;
  name: string;
}

const options: LDMigrationOptions<Row, boolean, string, Row> = {
  readOld: async (id?: string) => LDMigrationSuccess({ id: id ?? '', name: 'old' }),
  readNew: async (id?: string): Promise<LDMethodResult<Row>> => {
    if (id === undefined) return LDMigrationError(new Error('no id'));
    return LDMigrationSuccess({ id, name: 'new' });
  },
  writeOld: async () => LDMigrationSuccess(true),
  writeNew: async (row?: Row) => (row ? LDMigrationSuccess(true) : LDMigrationError(new Error('no row'))),
  check: (a: Row, b: Row) => a.name === b.name,
  execution: new LDSerialExecution(LDExecutionOrdering.Fixed),
  latencyTracking: true,
  errorTracking: false,
  originTimeoutMs: 250, // cutover's
};
const concurrent: LDConcurrentExecution = new LDConcurrentExecution();
const tag: LDExecution = concurrent.type;
void tag;
void new LDSerialExecution(LDExecutionOrdering.Random);

const migration = createMigration(client, options);

const multi: LDContext = { kind: 'multi', user: { key: 'u1' }, org: { key: 'o1', name: 'Acme' } };
const single: LDContext = { kind: 'user', key: 'u1', plan: 'pro' };
const user: LDUser = { key: 'u2', email: 'a@example.com' };

export async function run(signal: AbortSignal): Promise<string> {
  const read: LDMigrationReadResult<Row> = await migration.read('flag', multi, LDMigrationStage.Off, 'id-1');
  const name = read.success ? read.result.name : String(read.error);
  await migration.read('flag', single, LDMigrationStage.Shadow);
  await migration.read('flag', user, 'live', 'id-2', { signal }); // cutover: plain stages and { signal }
  await migration.read('flag', { kind: 'multi', user: { key: 'u' } }, LDMigrationStage.Live);
  const write: LDMigrationWriteResult<boolean> = await migration.write('flag', single, LDMigrationStage.Live, { id: 'x', name: 'y' });
  const second: LDMigrationResult<boolean> | undefined = write.nonAuthoritative;
  const stats: MigrationStats = migration.stats();
  return `${name} ${write.authoritative.origin} ${second?.success} ${stats.read.count}`;
}

// ---- misuse
// @ts-expect-error readNew is required
createMigration(client, { readOld: options.readOld, writeOld: options.writeOld, writeNew: options.writeNew });
// @ts-expect-error methods return LDMethodResult promises, not bare values
createMigration<Row, boolean>(client, { ...options, readOld: async () => ({ id: 'a', name: 'b' }) });
// @ts-expect-error execution is an LDSerialExecution or LDConcurrentExecution
createMigration(client, { ...options, execution: 'serial' });
// @ts-expect-error LDSerialExecution takes an LDExecutionOrdering
new LDSerialExecution('fixed');
// @ts-expect-error the read payload is a string
migration.read('flag', single, LDMigrationStage.Off, 42);
// @ts-expect-error the default stage must be a stage
migration.read('flag', single, 'on');

// Inferred from the options (LaunchDarkly's defaults: any payloads, `key?: string` required).
const inferred = createMigration(client, {
  readOld: async (id: string) => LDMigrationSuccess({ id, name: 'old' }),
  readNew: async (id: string, signal: AbortSignal) => (signal.aborted ? LDMigrationError(new Error('aborted')) : LDMigrationSuccess({ id, name: 'new' })),
  writeOld: async (row: Row) => LDMigrationSuccess(row.name.length),
  writeNew: async (row: Row) => LDMigrationSuccess(row.name.length),
  check: (a, b) => {
    expectType<Equals<typeof a, { id: string; name: string }>>();
    return a.name === b.name;
  },
});
expectType<Equals<typeof inferred, LDMigration<{ id: string; name: string }, number, string, Row>>>();
export async function inferredResults(): Promise<number> {
  const r = await inferred.read('flag', single, LDMigrationStage.Live, 'id-1');
  const w = await inferred.write('flag', single, 'live', { id: 'x', name: 'y' });
  if (r.success) r.result satisfies { id: string; name: string };
  return w.authoritative.success ? w.authoritative.result : 0;
}
// @ts-expect-error the inferred read payload is a string
inferred.read('flag', single, 'live', 1);
// @ts-expect-error the inferred write payload is a Row
inferred.write('flag', single, 'live', 'row');
// @ts-expect-error misspelled option: originTimeoutMs
createMigration(client, { ...options, orginTimeoutMs: 250 });

export async function narrowing(): Promise<Row> {
  const r = await migration.read('flag', single, LDMigrationStage.Off);
  // @ts-expect-error result exists only on a success
  return r.result;
}
