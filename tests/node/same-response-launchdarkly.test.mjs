// sameResponse() with LaunchDarkly's own server SDK (issue 23 part 4): the flag's tracker, to
// which cutover delegates, runs the check over the two snapshots once both bodies are read, and
// LaunchDarkly's own migration_op event, posted to a local endpoint, carries `consistent`:
// through launchDarklyClient and MigratorBuilder, and through createMigration's `check`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { init, integrations } from '@launchdarkly/node-server-sdk';
import { LDMigrationSuccess, MigratorBuilder, createMigration, launchDarklyClient, sameResponse } from 'cutover';
import { catalogue, withServices } from './helpers/http-services.mjs';

const CONTEXT = { kind: 'user', key: 'u1' };
const posts = [];
let collector;
let ldClient;

before(async () => {
  collector = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      posts.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(202).end();
    });
  });
  await new Promise((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const td = new integrations.TestData();
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  ldClient = init('sdk-same-response-test', {
    updateProcessor: td.getFactory(),
    sendEvents: true,
    eventsUri: `http://127.0.0.1:${collector.address().port}`,
    diagnosticOptOut: true,
    flushInterval: 3600,
    logger: silent,
  });
  await ldClient.waitForInitialization({ timeout: 10 });
  await td.update(td.flag('items-api').variations('off', 'shadow').fallthroughVariation(1).checkRatio(1));
});

after(async () => {
  ldClient?.close();
  collector.closeAllConnections();
  await new Promise((resolve) => collector.close(() => resolve()));
});

/** LaunchDarkly's migration_op events posted since the last call. */
async function drain() {
  await ldClient.flush();
  return posts.splice(0).flatMap((raw) => JSON.parse(raw)).filter((e) => e.kind === 'migration_op');
}

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
    const migration = createMigration(ldClient, {
      readOld: async () => LDMigrationSuccess(await fetch(`${old.url}/items`)),
      readNew: async () => LDMigrationSuccess(await fetch(`${young.url}/items`)),
      writeOld: async () => LDMigrationSuccess(undefined),
      writeNew: async () => LDMigrationSuccess(undefined),
      check: sameResponse({ ignore: ['/body/requestId'] }),
    });
    const result = await migration.read('items-api', CONTEXT, 'off');
    assert.equal(result.success, true);
    assert.deepEqual((await result.result.json()).items, [{ id: 1, price: 5 }]);
    await migration.settled();
    const [event] = await drain();
    assert.deepEqual(consistentOf(event), { key: 'consistent', value: false, samplingRatio: 1 });
  });
});
