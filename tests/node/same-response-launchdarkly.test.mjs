// sameResponse() with LaunchDarkly's own server SDK (issue 23 part 4): the flag's tracker, to
// which cutover delegates, runs the check over the two snapshots once both bodies are read, and
// LaunchDarkly's own migration_op event, posted to a local endpoint, carries `consistent`:
// through launchDarklyClient and MigratorBuilder, and through createMigration's `check`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { LDMigrationSuccess, MigratorBuilder, createMigration, launchDarklyClient, sameResponse } from 'cutover';
import { catalogue, itemsMigrationOptions, withServices } from './helpers/http-services.mjs';
import { startLaunchDarkly } from './helpers/launchdarkly.mjs';

const CONTEXT = { kind: 'user', key: 'u1' };
let ld;
let ldClient;

before(async () => {
  ld = await startLaunchDarkly('sdk-same-response-test');
  ldClient = ld.client;
  await ld.td.update(ld.td.flag('items-api').variations('off', 'shadow').fallthroughVariation(1).checkRatio(1));
});

after(async () => {
  await ld?.close();
});

/** LaunchDarkly's migration_op events posted since the last call. */
const drain = () => ld.migrationEvents();

const consistentOf = (event) => event.measurements.find((m) => m.key === 'consistent');

test("LaunchDarkly's tracker checks the snapshots; its event says consistent", async () => {
  for (const [newPrices, consistent] of [[[1, 2], true], [[1, 3], false]]) {
    await withServices(catalogue([1, 2]), catalogue(newPrices), async (old, young) => {
      const migrator = new MigratorBuilder(launchDarklyClient(ldClient))
        .read(() => fetch(`${old.url}/items`), () => fetch(`${young.url}/items`), sameResponse({ ignore: ['/body/requestId'] }))
        .write(() => undefined, () => undefined)
        .build();
      const result = await migrator.read('items-api', CONTEXT, 'off');
      assert.equal(result.value.bodyUsed, false);
      await result.value.arrayBuffer();
      await migrator.settled();
      const [event, ...more] = await drain();
      assert.equal(more.length, 0);
      assert.equal(event.evaluation.key, 'items-api');
      assert.deepEqual(consistentOf(event), { key: 'consistent', value: consistent, samplingRatio: 1 }, JSON.stringify(event));
    });
  }
});

test("createMigration's check: sameResponse as LaunchDarkly's example would pass it", async () => {
  await withServices(catalogue([5]), catalogue([6]), async (old, young) => {
    const migration = createMigration(ldClient, itemsMigrationOptions({ LDMigrationSuccess, sameResponse }, old, young));
    const result = await migration.read('items-api', CONTEXT, 'off');
    assert.equal(result.success, true);
    assert.deepEqual((await result.result.json()).items, [{ id: 1, price: 5 }]);
    await migration.settled();
    const [event] = await drain();
    assert.deepEqual(consistentOf(event), { key: 'consistent', value: false, samplingRatio: 1 });
  });
});
