// sameStructure through the shipped types: its options, the comparison it returns, and that
// comparison given to MigratorBuilder#read and createMigration's `check`, inference kept.
import { MigratorBuilder, createMigration, fixedStage, sameStructure, type SameStructureOptions, type StructuralComparison } from 'cutover';
import { LDMigrationSuccess, type LDClientLike } from 'cutover';
import { expectType, type Equals } from './util.js';

const options: SameStructureOptions = { ignore: ['/updatedAt', '/items/*'] };
const comparison = sameStructure(options);
expectType<Equals<typeof comparison, StructuralComparison>>();
expectType<Equals<ReturnType<typeof comparison>, boolean>>();
const plain: boolean = sameStructure()({ a: 1 }, { a: 1 });
const frozen: readonly string[] = ['/a'] as const;
sameStructure({ ignore: frozen });
// @ts-expect-error ignore is a list of JSON Pointers
sameStructure({ ignore: '/a' });
// @ts-expect-error no such option
sameStructure({ ignores: [] });

type Order = { id: string; total: number };
const migrator = new MigratorBuilder(fixedStage('shadow'))
  .read(async (id: string): Promise<Order> => ({ id, total: 1 }), async (id: string): Promise<Order> => ({ id, total: 1 }), comparison)
  .write(async (o: Order) => o.id, async (o: Order) => o.id)
  .build();
export async function readOne(): Promise<number | undefined> {
  const r = await migrator.read('flag', { key: 'u1' }, 'off', 'o1');
  expectType<Equals<typeof r.value, Order | undefined>>();
  return plain ? r.value?.total : undefined;
}

export function ld(client: LDClientLike) {
  return createMigration(client, {
    readOld: async () => LDMigrationSuccess({ a: 1 }),
    readNew: async () => LDMigrationSuccess({ a: 1 }),
    writeOld: async () => LDMigrationSuccess(1),
    writeNew: async () => LDMigrationSuccess(1),
    check: sameStructure({ ignore: ['/a'] }),
  });
}
