// The API used before init() (issue 33): cutover/web and cutover/migrations/web, imported alone
// (nothing has initialised their wasm), throw an error that says to call init() first, from
// every kind of name; after initSync() the same names work. (Before: `Cannot read properties of
// undefined (reading 'Ac')`.) Only this file imports them, so each starts uninitialised.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const INIT_FIRST = /^cutover is not initialised yet: call init\(\) first \(await init\(\) from cutover\/web or cutover\/migrations\/web, or initSync\(\{ module \}\)\)$/;

for (const [entry, wasm] of [['cutover/web', 'cutover/cutover_bg.wasm'], ['cutover/migrations/web', 'cutover/migrations_bg.wasm']]) {
  test(`${entry}: before init() every kind of name throws "call init() first"; after initSync() it works`, async () => {
    const api = await import(entry);
    const uses = {
      fixedStage: () => api.fixedStage('off'),
      MigratorBuilder: () => new api.MigratorBuilder({ migrationVariation: () => 'off' }),
      failure: () => api.failure(new Error('x')),
      sameStructure: () => api.sameStructure(),
      OpTracker: () => new api.OpTracker('flag', { key: 'k' }, { value: 'off' }, 'off'),
    };
    for (const [name, use] of Object.entries(uses)) {
      assert.throws(use, (error) => {
        assert.ok(error instanceof Error, name);
        assert.match(error.message, INIT_FIRST, name);
        return true;
      });
    }
    api.initSync({ module: readFileSync(fileURLToPath(import.meta.resolve(wasm))) });
    const migrator = new api.MigratorBuilder(api.fixedStage('shadow'))
      .read(async () => 1, async () => 1, api.sameStructure())
      .write(async () => 1, async () => 1)
      .build();
    assert.deepEqual(await migrator.read('flag', { key: 'k' }, 'off'), { origin: 'old', success: true, value: 1 });
    assert.equal(api.failure(1).error, 1);
  });
}
