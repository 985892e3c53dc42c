// README's migration tour as TypeScript: everything inferred from the origins. The one annotation
// per operation is the payload's type, which nothing else can tell (without it a payload is
// `unknown`). Before, every type here was unknown (TS2339: Property 'id' does not exist on type '{}').
import { MigratorBuilder, fixedStage, failure, type OperationResult, type WriteResult } from 'cutover';
import { expectType, type Equals } from './util.js';

interface UserRow {
  id: string;
  name: string;
}
interface Table {
  get(key: string, options: { signal: AbortSignal }): Promise<UserRow | undefined>;
  put(row: UserRow): Promise<void>;
}
declare const legacyDb: Table;
declare const newDb: Table;
declare const row: UserRow;

export async function tour(): Promise<void> {
  const migrator = new MigratorBuilder(fixedStage('shadow')) // or launchDarklyClient(ldClient)
    .readExecutionOrder('parallel') // 'serial' | 'random' | 'parallel'
    .originTimeout(250) // ms; a slower origin fails with a TimeoutError
    .read(
      (key: string, signal) => legacyDb.get(key, { signal }), // old origin
      async (key, signal) => {
        // new origin
        const row = await newDb.get(key, { signal });
        return row ?? failure(new Error(`no row for ${key}`)); // fail without throwing
      },
      (oldValue, newValue) => oldValue?.id === newValue?.id, // consistency check
    )
    .write((row: UserRow) => legacyDb.put(row), (row) => newDb.put(row))
    .build();

  const context = { kind: 'user', key: 'user-123' };
  const result = await migrator.read('db-migration', context, 'off', 'user-123');
  if (result.success) console.log(result.origin, result.value); // 'old', the legacy row
  else console.error(result.error); // origin failures are results

  const w = await migrator.write('db-migration', context, 'off', row, { signal: AbortSignal.timeout(1000) });
  // w.authoritative always ran; w.nonAuthoritative ran only if the authoritative write succeeded.
  console.log(migrator.stats().read.new.latencyMs?.p99); // running statistics, no dashboards needed

  // What was inferred: the old origin may find no row; `failure(…)` is not part of a value.
  result satisfies OperationResult<UserRow | undefined>;
  expectType<Equals<typeof result, OperationResult<UserRow | undefined>>>();
  expectType<Equals<typeof w, WriteResult<void>>>();
  if (result.success) {
    const found: UserRow | undefined = result.value; // TS18048 before: value was "possibly undefined"
    expectType<Equals<typeof result.value, UserRow | undefined>>();
    void found;
  }
  if (w.nonAuthoritative) {
    // The second write ran, so the first succeeded.
    expectType<Equals<typeof w.authoritative.success, true>>();
    expectType<Equals<typeof w.nonAuthoritative.origin, 'old' | 'new'>>();
  }
  if (!w.authoritative.success) {
    const error: unknown = w.authoritative.error;
    void error;
  }
}

// Each origin's parameter is typed by the other's annotation, and the comparison gets the old value
// first, then the new one, each of its own origin's type.
export const differentShapes = new MigratorBuilder(fixedStage('live'))
  .read(
    async (id: number) => ({ id, legacyName: 'a' }),
    async (id) => {
      expectType<Equals<typeof id, number>>();
      return { id, name: 'a' };
    },
    (oldValue, newValue) => {
      expectType<Equals<typeof oldValue, { id: number; legacyName: string }>>();
      expectType<Equals<typeof newValue, { id: number; name: string }>>();
      return oldValue.legacyName === newValue.name;
    },
  )
  .write(async () => 1, async () => failure('down'))
  .build();
export async function readDifferentShapes(): Promise<string> {
  const r = await differentShapes.read('f', { key: 'k' }, 'live', 7);
  if (!r.success) return 'failed';
  // A value is what either origin returns.
  return 'legacyName' in r.value ? r.value.legacyName : r.value.name;
}
// `write(async () => 1, async () => failure('down'))`: the value type comes from the old origin.
export const writeValue = differentShapes.write('f', { key: 'k' }, 'live') satisfies Promise<WriteResult<number>>;

// A payload whose type includes undefined stays optional.
const optionalPayload = new MigratorBuilder(fixedStage('off'))
  .read(async (id: string | undefined) => id ?? 'none', async (id) => id ?? 'none')
  .write(async () => true, async () => true)
  .build();
export const withoutPayload = optionalPayload.read('f', { key: 'k' }, 'off');
export const withSignal = optionalPayload.read('f', { key: 'k' }, 'off', undefined, { signal: AbortSignal.timeout(10) });
withoutPayload satisfies Promise<OperationResult<string>>;

// ---- wrong uses of inferred types
// @ts-expect-error the payload is a number
differentShapes.read('f', { key: 'k' }, 'live', '7');
// @ts-expect-error the payload is required (number does not include undefined)
differentShapes.read('f', { key: 'k' }, 'live');
// @ts-expect-error the comparison gets the old origin's value first
new MigratorBuilder(fixedStage('off')).read(async () => 1, async () => 'one', (a: string, b: number) => a === String(b));
// @ts-expect-error both origins take the same payload
new MigratorBuilder(fixedStage('off')).read(async (id: string) => id, async (id: number) => id);
export async function wrongValue(): Promise<void> {
  const r = await differentShapes.read('f', { key: 'k' }, 'live', 7);
  // @ts-expect-error value exists only on a success (narrow with `if (r.success)`)
  r.value.id;
}
