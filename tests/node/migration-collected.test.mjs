// Garbage collection: a Migrator (and its builder) whose own functions, flag client or logger
// refer to it is collected once nothing else does, and what an operation still needs stays while
// it runs (js/bridge/held.js). The wasm used to keep every origin, comparison, onMismatch, client
// and logger through a strong reference (a GC root), so a migrator they referred to was never
// collected: one per request in a worker that builds its migrators per request. (V8's closures
// made in one scope share it: one closure there that names the migrator makes all of them refer
// to it.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MigratorBuilder, createMigration, fixedStage, sameStructure } from 'cutover';
import { CTX } from './helpers/migration.mjs';

setFlagsFromString('--expose-gc');
/** A full collection (the flag set above, then a fresh context sees `gc`). */
const gc = runInNewContext('gc');
const turn = () => new Promise((resolve) => setTimeout(resolve, 10));

/** Counts the objects `track` registered that have been collected. */
function finalizations() {
  const counts = new Map();
  const registry = new FinalizationRegistry((kind) => counts.set(kind, (counts.get(kind) ?? 0) + 1));
  return {
    track: (object, kind) => registry.register(object, kind),
    async count(kind, expected) {
      for (let i = 0; i < 50 && (counts.get(kind) ?? 0) < expected; i++) {
        gc();
        await turn();
      }
      return counts.get(kind) ?? 0;
    },
  };
}

const N = 20;

test('a migrator whose origins, comparison and onMismatch refer to it is collected after its operations', async () => {
  const seen = finalizations();
  const make = async () => {
    let migrator;
    const origin = async () => migrator.stats().operations;
    migrator = new MigratorBuilder(fixedStage('shadow'))
      .read(origin, async () => -1, (a, b) => (migrator.stats(), a === b))
      .write(origin, origin)
      .mismatches({ onMismatch: () => migrator.mismatches() })
      .build();
    const result = await migrator.read('flag', CTX, 'off');
    assert.equal(result.success, true);
    await migrator.write('flag', CTX, 'off');
    assert.equal(migrator.mismatches().length, 1);
    seen.track(migrator, 'migrator');
  };
  for (let i = 0; i < N; i++) await make();
  assert.equal(await seen.count('migrator', N), N);
});

test('a builder whose functions refer to it is collected, and so is a background migrator once its part ended', async () => {
  const seen = finalizations();
  const make = async () => {
    let builder;
    let migrator;
    const origin = async () => (builder, migrator?.stats().operations);
    builder = new MigratorBuilder(fixedStage('shadow')).read(origin, origin, sameStructure()).write(origin, origin);
    migrator = builder.background().build();
    await migrator.read('flag', CTX, 'off');
    await migrator.settled();
    seen.track(builder, 'builder');
    seen.track(migrator, 'migrator');
  };
  for (let i = 0; i < N; i++) await make();
  assert.equal(await seen.count('builder', N), N);
  assert.equal(await seen.count('migrator', N), N);
});

test("createMigration's migrations are collected likewise", async () => {
  const seen = finalizations();
  const client = { ...fixedStage('live'), trackMigration() {} };
  const make = async () => {
    let migration;
    migration = createMigration(client, {
      readOld: async () => ({ success: true, result: migration !== undefined }),
      readNew: async () => ({ success: true, result: migration !== undefined }),
      writeOld: async () => ({ success: true, result: 1 }),
      writeNew: async () => ({ success: true, result: 1 }),
    });
    const result = await migration.read('flag', CTX, 'off');
    assert.equal(result.success, true);
    seen.track(migration, 'migration');
  };
  for (let i = 0; i < N; i++) await make();
  assert.equal(await seen.count('migration', N), N);
});

test('the functions an operation still needs stay while it runs, though nothing else refers to the migrator', async () => {
  // Serial: the new origin is called only after the old one settled; background: the comparison
  // and onMismatch run after the caller has its result. Collections in between must not take them.
  const calls = [];
  const releases = [];
  const gate = () => new Promise((resolve) => releases.push(resolve));
  const start = () => {
    const migrator = new MigratorBuilder(fixedStage('shadow'))
      .readExecutionOrder('serial')
      .read(
        async () => {
          calls.push('old');
          await gate();
          return 1;
        },
        async () => {
          calls.push('new');
          await gate();
          return 2;
        },
        (a, b) => (calls.push('compare'), a === b),
      )
      .write(async () => 1, async () => 1)
      .background()
      .mismatches({ onMismatch: () => calls.push('onMismatch') })
      .build();
    return migrator.read('flag', CTX, 'off');
  };
  const read = start();
  for (let step = 0; step < 2; step++) {
    for (let i = 0; i < 3; i++) {
      gc();
      await turn();
    }
    assert.equal(releases.length, step + 1, `origin ${step + 1} has been called`);
    releases[step]();
    if (step === 0) assert.deepEqual((await read).value, 1);
  }
  for (let i = 0; i < 20 && calls.length < 4; i++) {
    gc();
    await turn();
  }
  assert.deepEqual(calls, ['old', 'new', 'compare', 'onMismatch']);
});

test('a migrator whose flag client refers to it (closures of the same scope) is collected', async () => {
  const seen = finalizations();
  const make = async () => {
    let migrator;
    const events = [];
    const client = {
      migrationVariation: async () => 'shadow',
      trackMigrationOp: (event) => events.push(event, migrator),
    };
    migrator = new MigratorBuilder(client).read(async () => 1, async () => 1).write(async () => 1, async () => 1).build();
    await migrator.read('flag', CTX, 'off');
    assert.equal(events.length, 2);
    seen.track(migrator, 'migrator');
  };
  for (let i = 0; i < N; i++) await make();
  assert.equal(await seen.count('migrator', N), N);
});

test('a migrator whose logger refers to it is collected, and the logger still gets its messages', async () => {
  const seen = finalizations();
  const messages = [];
  const make = async () => {
    let migrator;
    const logger = { error: (message) => messages.push(message, migrator !== undefined) };
    // A value that is not a stage: the migrator logs an error and uses the default stage.
    const client = { migrationVariation: () => 'not a stage' };
    migrator = new MigratorBuilder(client, { logger })
      .read(async () => 1, async () => 1)
      .write(async () => 1, async () => 1)
      .build();
    await migrator.read('flag', CTX, 'off');
    seen.track(migrator, 'migrator');
  };
  for (let i = 0; i < N; i++) await make();
  assert.equal(await seen.count('migrator', N), N);
  assert.equal(messages.length, N * 2);
  assert.match(messages[0], /served a value that is not a stage/);
});
