// Unknown option names (issue 20, item 3): every options object refuses a key it does not know
// with a TypeError `<key> is not an option of <owner>`, plus `; did you mean <name>?` when a known
// name is close. Own enumerable string keys only (symbols and inherited keys are not options; an
// own key whose value is undefined is). Names are checked before any value.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  BigSegmentStoreManager,
  LDSerialExecution,
  LDExecutionOrdering,
  LDMigrationSuccess,
  MigratorBuilder,
  createMigration,
  dynamoDbBigSegmentStore,
  fixedStage,
  launchDarklyBigSegmentStore,
  openFeatureClient,
  redisBigSegmentStore,
} from 'cutover';
import { makeLogger, makeStore } from './helpers/segments.mjs';

const CONTEXT = Object.freeze({ kind: 'user', key: 'u1' });

/** `run()` throws a TypeError with exactly `message`. */
function throwsExactly(run, message) {
  assert.throws(run, (error) => {
    assert.ok(error instanceof TypeError, `a TypeError, got ${error?.name}: ${error?.message}`);
    assert.equal(error.message, message);
    return true;
  });
}

/** `promise` rejects with a TypeError with exactly `message`. */
async function rejectsExactly(promise, message) {
  assert.ok(promise instanceof Promise, 'the operation returns a promise (misuse is a rejection, not a throw)');
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof TypeError, `a TypeError, got ${error?.name}: ${error?.message}`);
    assert.equal(error.message, message);
    return true;
  });
}

describe('BigSegmentStoreManager', () => {
  test('a misspelt option names itself and the close name (the issue example)', () => {
    const { store } = makeStore();
    throwsExactly(
      () => new BigSegmentStoreManager({ store, queryTimeout: 250 }),
      'queryTimeout is not an option of BigSegmentStoreManager; did you mean queryTimeoutMs?',
    );
  });

  test("LaunchDarkly's names in seconds point at cutover's in milliseconds; far names get no suggestion", () => {
    throwsExactly(
      () => new BigSegmentStoreManager({ staleAfter: 120 }),
      'staleAfter is not an option of BigSegmentStoreManager; did you mean staleAfterMs?',
    );
    throwsExactly(
      () => new BigSegmentStoreManager({ contextCacheTime: 5 }),
      'contextCacheTime is not an option of BigSegmentStoreManager; did you mean contextCacheTimeMs?',
    );
    throwsExactly(
      () => new BigSegmentStoreManager({ userCacheSize: 10 }),
      'userCacheSize is not an option of BigSegmentStoreManager',
    );
    throwsExactly(() => new BigSegmentStoreManager({ 'cache size': 10 }), '"cache size" is not an option of BigSegmentStoreManager');
  });

  test('an own key whose value is undefined is still checked', () => {
    throwsExactly(
      () => new BigSegmentStoreManager({ querytimeoutms: undefined }),
      'querytimeoutms is not an option of BigSegmentStoreManager; did you mean queryTimeoutMs?',
    );
  });

  test('names are checked before values, and the first unknown key is reported', () => {
    throwsExactly(
      () => new BigSegmentStoreManager({ contextCacheSize: -1, metr: {}, queryTimeout: 1 }),
      'metr is not an option of BigSegmentStoreManager; did you mean meter?',
    );
  });

  test('every known name works; symbols, inherited and non-enumerable keys are not options', async () => {
    const { store } = makeStore();
    const inherited = Object.create({ queryTimeout: 250, anything: true });
    inherited.store = store;
    const hidden = { store };
    Object.defineProperty(hidden, 'queryTimeout', { value: 250, enumerable: false });
    const managers = [
      new BigSegmentStoreManager({
        store,
        contextCacheSize: 10,
        contextCacheTimeMs: 10,
        statusPollIntervalMs: 10,
        staleAfterMs: 10,
        queryTimeoutMs: 10,
        logger: makeLogger().logger,
        meter: undefined,
      }),
      new BigSegmentStoreManager({ store, [Symbol('queryTimeout')]: 250 }),
      new BigSegmentStoreManager(inherited),
      new BigSegmentStoreManager(hidden),
      new BigSegmentStoreManager(),
    ];
    const { status } = await managers[0].getUserMembership('u1');
    assert.equal(status, 'HEALTHY');
    for (const m of managers) await m.close();
  });
});

describe('MigratorBuilder and its operations', () => {
  const migrator = () =>
    new MigratorBuilder(fixedStage('shadow'))
      .read(() => 'old', () => 'new')
      .write(() => 'old', () => 'new')
      .build();

  test('the constructor options: logger', () => {
    const client = fixedStage('off');
    throwsExactly(() => new MigratorBuilder(client, { loger: console }), 'loger is not an option of MigratorBuilder; did you mean logger?');
    throwsExactly(() => new MigratorBuilder(client, { level: 'debug' }), 'level is not an option of MigratorBuilder');
    assert.ok(new MigratorBuilder(client, { logger: makeLogger().logger }));
    assert.ok(new MigratorBuilder(client, {}));
  });

  test('operation options reject (never throw) on an unknown name, naming the method', async () => {
    const m = migrator();
    const { signal } = new AbortController();
    await rejectsExactly(
      m.read('flag', CONTEXT, 'off', undefined, { sigal: signal }),
      'sigal is not an option of Migrator#read; did you mean signal?',
    );
    await rejectsExactly(
      m.write('flag', CONTEXT, 'off', undefined, { signal, timeout: 5 }),
      'timeout is not an option of Migrator#write',
    );
    await rejectsExactly(
      m.read('flag', CONTEXT, 'off', undefined, { signal: undefined, Signal: undefined }),
      'Signal is not an option of Migrator#read; did you mean signal?',
    );
  });

  test('known, symbol and inherited keys pass; a rejected operation ran nothing', async () => {
    let ran = 0;
    const m = new MigratorBuilder(fixedStage('off'))
      .read(() => (ran++, 'old'), () => 'new')
      .write(() => 'old', () => 'new')
      .build();
    const { signal } = new AbortController();
    assert.equal((await m.read('flag', CONTEXT, 'off', undefined, { signal })).value, 'old');
    assert.equal((await m.read('flag', CONTEXT, 'off', undefined, {})).value, 'old');
    assert.equal((await m.read('flag', CONTEXT, 'off', undefined, { [Symbol('x')]: 1 })).value, 'old');
    const withPrototype = Object.create({ inherited: true });
    withPrototype.signal = signal;
    assert.equal((await m.read('flag', CONTEXT, 'off', undefined, withPrototype)).value, 'old');
    assert.equal((await m.write('flag', CONTEXT, 'off', undefined, { signal })).authoritative.value, 'old');
    assert.equal(ran, 4);
    await assert.rejects(m.read('flag', CONTEXT, 'off', undefined, { signals: signal }), TypeError);
    assert.equal(ran, 4);
    assert.equal(m.stats().read.count, 4);
  });
});

describe('createMigration', () => {
  const ldClient = {
    migrationVariation: async (_key, _context, defaultStage) => ({ value: defaultStage, tracker: undefined }),
    trackMigration() {},
  };
  const methods = () => ({
    readOld: async (p) => LDMigrationSuccess(`old:${p}`),
    readNew: async (p) => LDMigrationSuccess(`new:${p}`),
    writeOld: async (p) => LDMigrationSuccess(p),
    writeNew: async (p) => LDMigrationSuccess(p),
  });

  test("every LaunchDarkly name and cutover's extras are accepted", async () => {
    const migration = createMigration(ldClient, {
      ...methods(),
      check: (a, b) => a === b,
      execution: new LDSerialExecution(LDExecutionOrdering.Fixed),
      latencyTracking: true,
      errorTracking: false,
      originTimeoutMs: 1000,
      logger: makeLogger().logger,
      meter: undefined,
    });
    const result = await migration.read('flag', CONTEXT, 'off', 'k');
    assert.equal(result.result, 'old:k');
  });

  test('a misspelt name is reported as such, before the method it stands for is missing', () => {
    const { readNew, ...others } = methods();
    throwsExactly(
      () => createMigration(ldClient, { ...others, readnew: readNew }),
      'readnew is not an option of createMigration; did you mean readNew?',
    );
    throwsExactly(
      () => createMigration(ldClient, { ...methods(), originTimeout: 500 }),
      'originTimeout is not an option of createMigration; did you mean originTimeoutMs?',
    );
    throwsExactly(() => createMigration(ldClient, { ...methods(), timeout: 500 }), 'timeout is not an option of createMigration');
  });

  test('a configuration object of a class of its own keeps its fields (LaunchDarkly ignores other keys)', async () => {
    class Config {
      constructor() {
        this.db = new Map([['k', 'row']]);
      }
      readOld(key) {
        return LDMigrationSuccess(`old:${key}`);
      }
      readNew(key) {
        return LDMigrationSuccess(`new:${key}`);
      }
      writeOld(key) {
        return LDMigrationSuccess(key);
      }
      writeNew(key) {
        return LDMigrationSuccess(key);
      }
    }
    const migration = createMigration(ldClient, new Config());
    assert.equal((await migration.read('flag', CONTEXT, 'off', 'k')).result, 'old:k');
  });

  test("the migration's operations name LDMigration#read and #write", async () => {
    const migration = createMigration(ldClient, methods());
    await rejectsExactly(
      migration.read('flag', CONTEXT, 'off', 'k', { singal: undefined }),
      'singal is not an option of LDMigration#read; did you mean signal?',
    );
    await rejectsExactly(migration.write('flag', CONTEXT, 'off', 'k', { retries: 2 }), 'retries is not an option of LDMigration#write');
    const { signal } = new AbortController();
    assert.equal((await migration.read('flag', CONTEXT, 'off', 'k', { signal })).result, 'old:k');
  });
});

describe('stores and adapters', () => {
  const redis = async () => null;
  const dynamo = { getItem: async () => ({}) };

  test('redisBigSegmentStore: { prefix }', async () => {
    throwsExactly(() => redisBigSegmentStore(redis, { prefx: 'p' }), 'prefx is not an option of redisBigSegmentStore; did you mean prefix?');
    throwsExactly(() => redisBigSegmentStore(redis, { cacheTTL: 30 }), 'cacheTTL is not an option of redisBigSegmentStore');
    assert.ok(redisBigSegmentStore(redis, { prefix: 'p', [Symbol('x')]: 1 }));
    assert.ok(redisBigSegmentStore(redis));
  });

  test('dynamoDbBigSegmentStore: { tableName, prefix }, names before the required tableName', () => {
    throwsExactly(
      () => dynamoDbBigSegmentStore(dynamo, { tablename: 'segments' }),
      'tablename is not an option of dynamoDbBigSegmentStore; did you mean tableName?',
    );
    throwsExactly(() => dynamoDbBigSegmentStore(dynamo, { tableName: 'segments', region: 'eu' }), 'region is not an option of dynamoDbBigSegmentStore');
    assert.ok(dynamoDbBigSegmentStore(dynamo, { tableName: 'segments', prefix: 'p' }));
  });

  test('launchDarklyBigSegmentStore: { queryTimeoutMs }', () => {
    const store = redisBigSegmentStore(redis);
    throwsExactly(
      () => launchDarklyBigSegmentStore(store, { queryTimeout: 250 }),
      'queryTimeout is not an option of launchDarklyBigSegmentStore; did you mean queryTimeoutMs?',
    );
    assert.equal(typeof launchDarklyBigSegmentStore(store, { queryTimeoutMs: 250 }), 'function');
    assert.equal(typeof launchDarklyBigSegmentStore(store), 'function');
  });

  test('openFeatureClient: { provider }', () => {
    const client = { getStringDetails: () => ({ value: 'off' }) };
    throwsExactly(() => openFeatureClient(client, { providr: {} }), 'providr is not an option of openFeatureClient; did you mean provider?');
    throwsExactly(() => openFeatureClient(client, { domain: 'd' }), 'domain is not an option of openFeatureClient');
    assert.ok(openFeatureClient(client, { provider: {} }));
    assert.ok(openFeatureClient(client));
  });
});

test('a proxy that refuses to list its keys is read as before, not checked', async () => {
  const refusing = new Proxy(
    {},
    {
      ownKeys() {
        throw new Error('no keys');
      },
    },
  );
  const manager = new BigSegmentStoreManager(refusing);
  await manager.close();
  const m = new MigratorBuilder(fixedStage('off'))
    .read(() => 'old', () => 'new')
    .write(() => 'old', () => 'new')
    .build();
  assert.equal((await m.read('flag', CONTEXT, 'off', undefined, refusing)).value, 'old');
});
