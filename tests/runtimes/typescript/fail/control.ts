// The control: this file must fail to compile, with exactly the two errors noted below. If it
// compiled, the type tests in pass/ would prove nothing.
import { MigratorBuilder, fixedStage } from 'cutover';

const migrator = new MigratorBuilder<string, number>(fixedStage('off')).read(() => 1, () => 2).write(() => 1, () => 2).build();

export async function control(): Promise<number> {
  const r = await migrator.read('flag', { key: 'u' }, 'off', 'p');
  const n: number = r.value; // TS2322: number | undefined is not assignable to number
  // @ts-expect-error (TS2578 unused directive: the next line is fine)
  const fine: number | undefined = r.value;
  return n + (fine ?? 0);
}
