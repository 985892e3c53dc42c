// The DynamoDB Big Segment store against a real DynamoDB-compatible server: dynalite, in memory,
// on a loopback port, started by this file, reached through the real @aws-sdk/client-dynamodb.
// Items are written as LaunchDarkly's Relay Proxy writes them (UpdateItem ADD/DELETE on the
// string sets, PutItem for the metadata item), with and without a prefix. Then a
// BigSegmentStoreManager over the store: statuses, staleness, one GetItem per uncached query,
// and failures (missing table, throttling, bad items) as STORE_ERROR with a log line.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  dynamoDbBigSegmentStore,
  awsDynamoDbHost,
  BigSegmentStoreManager,
  hashContextKey,
  launchDarklyBigSegmentStore,
} from 'cutover';
import { startDynamo, createTable, relayWriter, countingHost, GetItemCommand } from './helpers/dynamodb-env.mjs';
import { makeLogger } from './helpers/common.mjs';
import { unhandledRejections } from './helpers/redis-env.mjs';

const unhandled = unhandledRejections();
let dynamo;
let table;

before(async () => {
  unhandled.start();
  dynamo = await startDynamo();
  table = await createTable(dynamo.client);
});

after(async () => {
  await dynamo?.stop();
  assert.deepEqual(unhandled.stop(), [], 'no unhandled rejections');
});

const plain = (m) => (m === null || m === undefined ? m : { ...m });
let counter = 0;
const freshHash = () => hashContextKey(`ctx-${process.pid}-${++counter}-${Math.random()}`);
const host = () => awsDynamoDbHost(dynamo.client, GetItemCommand);

for (const prefix of [undefined, '', 'app1']) {
  describe(`schema, prefix ${JSON.stringify(prefix)}`, () => {
    const options = () => (prefix === undefined ? { tableName: table } : { tableName: table, prefix });
    // The same table for every prefix: each must read only its own namespaces.
    const otherPrefix = prefix ? undefined : 'someone-else';

    test('include wins; ADD then DELETE as the Relay Proxy writes; no item is no data', async () => {
      const w = relayWriter(dynamo.client, table, prefix);
      const other = relayWriter(dynamo.client, table, otherPrefix);
      const store = dynamoDbBigSegmentStore(host(), options());
      const h = freshHash();
      assert.equal(await store.getMembership(h), null, 'missing item → null (no data)');
      await other.include(h, 'not-mine.g1');
      assert.equal(await store.getMembership(h), null, "another prefix's item is not read");
      await w.include(h, 'a.g1', 'both.g2');
      await w.exclude(h, 'b.g1', 'both.g2');
      assert.deepEqual(plain(await store.getMembership(h)), { 'a.g1': true, 'b.g1': false, 'both.g2': true });
      await w.uninclude(h, 'a.g1', 'both.g2');
      assert.deepEqual(plain(await store.getMembership(h)), { 'b.g1': false, 'both.g2': false });
      await w.unexclude(h, 'b.g1', 'both.g2');
      // DynamoDB removes a set emptied by DELETE: the item stays with neither set.
      assert.deepEqual(plain(await store.getMembership(h)), {}, 'an item with neither set → empty membership');
      await w.removeItem(h);
      assert.equal(await store.getMembership(h), null);
    });

    test('metadata: missing item, item without synchronizedOn, a number', async () => {
      const t = await createTable(dynamo.client, 'meta');
      const w = relayWriter(dynamo.client, t, prefix);
      const opts = prefix === undefined ? { tableName: t } : { tableName: t, prefix };
      const store = dynamoDbBigSegmentStore(host(), opts);
      assert.equal((await store.getMetadata()).lastUpToDate, null, 'no metadata item → never synchronized');
      await relayWriter(dynamo.client, t, otherPrefix).synchronizedOn(5);
      assert.equal((await store.getMetadata()).lastUpToDate, null, "another prefix's metadata is not read");
      await w.putMetadataItem({});
      assert.equal((await store.getMetadata()).lastUpToDate, null, 'no synchronizedOn → never synchronized');
      await w.synchronizedOn(1_700_000_000_123);
      assert.equal((await store.getMetadata()).lastUpToDate, 1_700_000_000_123);
    });
  });
}

describe('through a BigSegmentStoreManager', () => {
  test('HEALTHY, then STALE; exactly one GetItem per uncached query, in the schema', async () => {
    const w = relayWriter(dynamo.client, table, 'mgr');
    const { host: counted, inputs } = countingHost(host());
    const store = dynamoDbBigSegmentStore(counted, { tableName: table, prefix: 'mgr' });
    const logs = makeLogger();
    const manager = new BigSegmentStoreManager({ store, logger: logs.logger, staleAfterMs: 60_000 });
    try {
      const key = `user-${process.pid}-${Math.random()}`;
      const h = hashContextKey(key);
      await w.include(h, 'seg.g1');
      await w.exclude(h, 'other.g3');
      await w.synchronizedOn(Date.now());
      const first = await manager.getUserMembership(key);
      assert.equal(first.status, 'HEALTHY');
      assert.deepEqual(plain(first.membership), { 'seg.g1': true, 'other.g3': false });
      const memberships = inputs.filter((i) => i.Key.namespace.S === 'mgr:big_segments_user');
      assert.deepEqual(memberships, [
        { TableName: table, Key: { namespace: { S: 'mgr:big_segments_user' }, key: { S: h } }, ConsistentRead: true },
      ]);
      const metadata = inputs.filter((i) => i.Key.namespace.S === 'mgr:big_segments_metadata');
      assert.equal(metadata.length, 1, 'one GetItem for the status');
      assert.deepEqual(metadata[0].Key, {
        namespace: { S: 'mgr:big_segments_metadata' },
        key: { S: 'mgr:big_segments_metadata' },
      });
      const before = inputs.length;
      assert.deepEqual(plain((await manager.getUserMembership(key)).membership), { 'seg.g1': true, 'other.g3': false });
      assert.equal(inputs.length, before, 'a cached lookup sends nothing');
      // Three uncached contexts at once: one GetItem each, nothing else (the status is known).
      const keys = [1, 2, 3].map((i) => `${key}-${i}`);
      const answers = await Promise.all(keys.map((k) => manager.getUserMembership(k)));
      assert.deepEqual(answers.map((a) => a.status), ['HEALTHY', 'HEALTHY', 'HEALTHY']);
      assert.deepEqual(answers.map((a) => plain(a.membership)), [{}, {}, {}], 'no item → the empty membership');
      assert.deepEqual(
        inputs.slice(before).map((i) => i.Key.key.S).sort(),
        keys.map(hashContextKey).sort(),
        'exactly one GetItem per uncached query',
      );
      assert.deepEqual(logs.texts('error'), []);
    } finally {
      await manager.close();
    }
    const stale = new BigSegmentStoreManager({ store, staleAfterMs: 1000 });
    try {
      await w.synchronizedOn(Date.now() - 10 * 60_000);
      assert.equal((await stale.getUserMembership(`stale-${Math.random()}`)).status, 'STALE');
    } finally {
      await stale.close();
    }
  });

  test('no metadata item: lookups answer, STALE', async () => {
    const t = await createTable(dynamo.client, 'nometa');
    const w = relayWriter(dynamo.client, t);
    const manager = new BigSegmentStoreManager({ store: dynamoDbBigSegmentStore(host(), { tableName: t }) });
    try {
      await w.include(hashContextKey('k'), 'x.g1');
      const answer = await manager.getUserMembership('k');
      assert.equal(answer.status, 'STALE');
      assert.deepEqual(plain(answer.membership), { 'x.g1': true });
    } finally {
      await manager.close();
    }
  });
});

/** A manager over `store`, one lookup, its answer and the error log lines. */
async function lookupOnce(store, contextKey = `c-${Math.random()}`) {
  const logs = makeLogger();
  const manager = new BigSegmentStoreManager({ store, logger: logs.logger, queryTimeoutMs: 2000 });
  try {
    const answer = await manager.getUserMembership(contextKey);
    return { answer, errors: logs.texts('error') };
  } finally {
    await manager.close();
  }
}

describe('failures are STORE_ERROR with a log line, never a throw', () => {
  test('missing table', async () => {
    const store = dynamoDbBigSegmentStore(host(), { tableName: 'no-such-table' });
    await assert.rejects(store.getMembership('h'), { name: 'ResourceNotFoundException' });
    await assert.rejects(store.getMetadata(), { name: 'ResourceNotFoundException' });
    const { answer, errors } = await lookupOnce(store);
    assert.equal(answer.status, 'STORE_ERROR');
    assert.equal(answer.membership, null);
    assert.ok(errors.some((e) => /membership query returned error: .*Requested resource not found/.test(e)), errors.join('\n'));
  });

  test('throttling (thrown and rejected), then recovery', async () => {
    const throttled = () => {
      const e = new Error('The level of configured provisioned throughput for the table was exceeded.');
      e.name = 'ProvisionedThroughputExceededException';
      e.$fault = 'client';
      return e;
    };
    let mode = 'throw';
    const real = host();
    const flaky = {
      getItem(input) {
        if (mode === 'throw') throw throttled();
        if (mode === 'reject') return Promise.reject(throttled());
        return real.getItem(input);
      },
    };
    const store = dynamoDbBigSegmentStore(flaky, { tableName: table });
    for (mode of ['throw', 'reject']) {
      const { answer, errors } = await lookupOnce(store);
      assert.equal(answer.status, 'STORE_ERROR', mode);
      assert.ok(errors.some((e) => e.includes('ProvisionedThroughputExceededException')), errors.join('\n'));
    }
    mode = 'ok';
    const w = relayWriter(dynamo.client, table);
    await w.synchronizedOn(Date.now());
    const { answer } = await lookupOnce(store);
    assert.equal(answer.status, 'HEALTHY');
  });

  test('a GetItem that never answers is STORE_ERROR within queryTimeoutMs', async () => {
    const store = dynamoDbBigSegmentStore({ getItem: () => new Promise(() => {}) }, { tableName: table });
    const logs = makeLogger();
    const manager = new BigSegmentStoreManager({ store, logger: logs.logger, queryTimeoutMs: 100 });
    try {
      const started = Date.now();
      const answer = await manager.getUserMembership('hangs');
      assert.equal(answer.status, 'STORE_ERROR');
      assert.ok(Date.now() - started < 1000, `answered after ${Date.now() - started} ms`);
      assert.ok(logs.texts('error').length > 0);
    } finally {
      await manager.close();
    }
  });

  const BAD_ITEMS = [
    ['included as a string', { included: { S: 'a.g1' } }, /included of a big_segments_user item is not a string set \(SS\): a string \(S\)/],
    ['excluded as a number set', { excluded: { NS: ['1'] } }, /excluded .* not a string set \(SS\): a NS attribute/],
    ['included as a list', { included: { L: [{ S: 'a.g1' }] } }, /included .* a L attribute/],
    ['included as a boolean', { included: { BOOL: true } }, /included .* a BOOL attribute/],
    ['included as a map', { included: { M: { 'a.g1': { BOOL: true } } } }, /included .* not a string set \(SS\): a M attribute$/],
    ['included as NULL', { included: { NULL: true } }, /included .* not a string set \(SS\): a NULL attribute$/],
    ['included as a binary set', { included: { BS: [new Uint8Array([1])] } }, /included .* not a string set \(SS\): a BS attribute$/],
    ['excluded as a number', { excluded: { N: '1' } }, /excluded .* not a string set \(SS\): a number \(N\) 1$/],
  ];
  for (const [label, attributes, pattern] of BAD_ITEMS) {
    test(`bad item: ${label}`, async () => {
      const key = `bad-${Math.random()}`;
      const h = hashContextKey(key);
      await relayWriter(dynamo.client, table).putUserItem(h, { ...attributes, excluded: attributes.excluded ?? { SS: ['ok.g1'] } });
      const store = dynamoDbBigSegmentStore(host(), { tableName: table });
      await assert.rejects(store.getMembership(h), pattern);
      const { answer, errors } = await lookupOnce(store, key);
      assert.equal(answer.status, 'STORE_ERROR');
      assert.ok(errors.some((e) => pattern.test(e)), errors.join('\n'));
      assert.ok(!errors.some((e) => e.includes(h)), "the log line leaves out the context's hash");
    });
  }

  test('bad metadata: synchronizedOn of the wrong type, or not an integer', async () => {
    for (const [synchronizedOn, pattern] of [
      [{ S: '1700000000000' }, /synchronizedOn of the metadata item is not a number \(N\): a string \(S\)/],
      [{ N: '12.5' }, /synchronizedOn of the metadata item is not an integer: 12.5/],
      [{ NULL: true }, /synchronizedOn of the metadata item is not a number \(N\): a NULL attribute$/],
      [{ BOOL: false }, /synchronizedOn of the metadata item is not a number \(N\): a BOOL attribute$/],
      [{ SS: ['1'] }, /synchronizedOn of the metadata item is not a number \(N\): a string set \(SS\) of 1$/],
      [{ M: {} }, /synchronizedOn of the metadata item is not a number \(N\): a M attribute$/],
    ]) {
      const t = await createTable(dynamo.client, 'badmeta');
      await relayWriter(dynamo.client, t).putMetadataItem({ synchronizedOn });
      const store = dynamoDbBigSegmentStore(host(), { tableName: t });
      await assert.rejects(store.getMetadata(), pattern);
      const { answer, errors } = await lookupOnce(store);
      assert.equal(answer.status, 'STORE_ERROR');
      assert.ok(errors.some((e) => e.includes('status query returned error') && pattern.test(e)), errors.join('\n'));
    }
  });

  test('a host that answers nonsense', async () => {
    for (const answer of [undefined, 42, { Item: 'x' }, { Item: { included: 'a.g1' } }, { Item: { included: { SS: [1] } } }]) {
      const store = dynamoDbBigSegmentStore({ getItem: async () => answer }, { tableName: table });
      await assert.rejects(store.getMembership('h'), Error, JSON.stringify(answer));
      const looked = await lookupOnce(store);
      assert.equal(looked.answer.status, 'STORE_ERROR', JSON.stringify(answer));
      assert.equal(looked.errors.length > 0, true);
    }
  });

  // Each answer is STORE_ERROR with a log line naming what was wrong, never a membership read
  // from data the store could not read (several of these once answered HEALTHY with {}).
  const throwing = (name) => Object.defineProperty({}, name, { enumerable: true, get: () => { throw new Error('no'); } });
  const unlisted = new Proxy({}, { ownKeys: () => { throw new Error('no keys'); } });
  const MALFORMED_OUTPUTS = [
    ['an array', [], /GetItem did not answer an object: a list of 0$/],
    ['a string', 'ok', /GetItem did not answer an object: a string "ok"$/],
    ['null', null, /GetItem did not answer an object: null$/],
    ['a function', () => {}, /GetItem did not answer an object: a Function$/],
    ['a Map', new Map([['Item', {}]]), /GetItem did not answer an object: a Map$/],
    ['an Item that is an array', { Item: [] }, /GetItem answered an Item that is not a map: a list of 0$/],
    ['an Item that is a Map', { Item: new Map([['included', { SS: ['a.g1'] }]]) }, /Item that is not a map: a Map$/],
    ['an Item that is a number', { Item: 7 }, /Item that is not a map: a number 7$/],
    ['an Item whose reads throw', { Item: new Proxy({}, { get: () => { throw new Error('no'); } }) }, /GetItem answered an Item that is not a map: an unreadable value$/],
    ['included whose keys cannot be listed', { Item: { included: unlisted } }, /included .* not an attribute value: an object whose keys cannot be listed$/],
    ['included as a raw array', { Item: { included: ['a.g1'] } }, /included .* \(SS\): not an attribute value: a list of 1$/],
    ['included as null', { Item: { included: null } }, /included .* \(SS\): not an attribute value: null$/],
    ['included whose read throws', { Item: throwing('included') }, /included .* \(SS\): not an attribute value: an unreadable value$/],
    ['included as an SS of numbers', { Item: { included: { SS: ['a.g1', 2] } } }, /included .* a string set \(SS\) with a member that is not a string: a number 2$/],
    ['included as an SS that is a string', { Item: { included: { SS: 'a.g1' } } }, /included .* a SS attribute whose value is not a list: a string "a.g1"$/],
    ['included as M', { Item: { included: { M: {} } } }, /included .* a M attribute$/],
    ['included as NULL', { Item: { included: { NULL: true } } }, /included .* a NULL attribute$/],
    ['included as BS', { Item: { included: { BS: [new Uint8Array(1)] } } }, /included .* a BS attribute$/],
    ['excluded of two types', { Item: { excluded: { SS: ['a.g1'], NULL: true } } }, /excluded .* an attribute value of more than one type$/],
    ['excluded of no known type', { Item: { excluded: { STRINGS: ['a.g1'] } } }, /excluded .* an attribute value of no known type$/],
  ];
  for (const [label, output, pattern] of MALFORMED_OUTPUTS) {
    test(`malformed GetItem output: ${label}`, async () => {
      const h = hashContextKey(`malformed-${label}`);
      const store = dynamoDbBigSegmentStore({ getItem: async () => output }, { tableName: table });
      await assert.rejects(store.getMembership(h), (e) => e instanceof Error && pattern.test(e.message) && /^DynamoDB: /.test(e.message));
      const { answer, errors } = await lookupOnce(store, `malformed-${label}`);
      assert.deepEqual({ ...answer }, { membership: null, status: 'STORE_ERROR' });
      assert.ok(errors.some((e) => e.startsWith('Big Segment store membership query returned error: ') && pattern.test(e)), errors.join('\n'));
      assert.ok(!errors.some((e) => e.includes(h)), "the log line leaves out the context's hash");
    });
  }

  test('malformed metadata outputs make the status STORE_ERROR, never STALE', async () => {
    for (const [output, pattern] of [
      [[], /GetItem did not answer an object: a list of 0$/],
      [{ Item: [] }, /Item that is not a map: a list of 0$/],
      [{ Item: new Map() }, /Item that is not a map: a Map$/],
      [{ Item: { synchronizedOn: 1700000000000 } }, /synchronizedOn .* not a number \(N\): not an attribute value: a number 1700000000000$/],
      [{ Item: { synchronizedOn: { N: 1700000000000 } } }, /synchronizedOn .* a N attribute whose value is not a string: a number 1700000000000$/],
      [{ Item: throwing('synchronizedOn') }, /synchronizedOn .* not an attribute value: an unreadable value$/],
    ]) {
      const getItem = async (input) => (input.Key.namespace.S === 'big_segments_metadata' ? output : {});
      const store = dynamoDbBigSegmentStore({ getItem }, { tableName: table });
      await assert.rejects(store.getMetadata(), pattern);
      const logs = makeLogger();
      const manager = new BigSegmentStoreManager({ store, logger: logs.logger });
      try {
        assert.deepEqual({ ...(await manager.statusProvider.getStatus()) }, { available: false, stale: false });
        assert.equal((await manager.getUserMembership('k')).status, 'STORE_ERROR');
        assert.ok(logs.texts('error').some((e) => e.startsWith('Big Segment store status query returned error: ') && pattern.test(e)));
      } finally {
        await manager.close();
      }
    }
  });
});

describe('inside LaunchDarkly\'s SDK (launchDarklyBigSegmentStore)', () => {
  test('the Rust store is queried directly: one GetItem per call, frozen null-prototype answers', async () => {
    const w = relayWriter(dynamo.client, table, 'ld');
    const { host: counted, inputs } = countingHost(host());
    const warnings = [];
    const clientContext = { basicConfiguration: { logger: { warn: (m) => warnings.push(m) } } };
    const ld = launchDarklyBigSegmentStore(dynamoDbBigSegmentStore(counted, { tableName: table, prefix: 'ld' }))(clientContext);
    const h = freshHash();
    await w.include(h, 'in.g1');
    await w.exclude(h, 'out.g2');
    await w.synchronizedOn(1_700_000_000_000);
    const m = await ld.getUserMembership(h);
    assert.ok(Object.isFrozen(m) && Object.getPrototypeOf(m) === null);
    assert.deepEqual({ ...m }, { 'in.g1': true, 'out.g2': false });
    assert.equal(await ld.getUserMembership(freshHash()), undefined, 'no item → undefined (no data)');
    const meta = await ld.getMetadata();
    assert.ok(Object.isFrozen(meta));
    assert.deepEqual({ ...meta }, { lastUpToDate: 1_700_000_000_000 });
    assert.equal(inputs.length, 3, 'one GetItem per call');
    ld.close();
    assert.deepEqual(warnings, []);
  });

  test('a malformed item reaches the SDK as a rejection naming what was wrong', async () => {
    const ld = launchDarklyBigSegmentStore(dynamoDbBigSegmentStore({ getItem: async () => ({ Item: [] }) }, { tableName: table }))({});
    await assert.rejects(ld.getUserMembership('h'), /DynamoDB: GetItem answered an Item that is not a map: a list of 0/);
    await assert.rejects(ld.getMetadata(), /DynamoDB: GetItem answered an Item that is not a map/);
  });
});

describe('arguments', () => {
  test('dynamoDbBigSegmentStore names the bad argument', () => {
    const h = { getItem: async () => ({}) };
    assert.throws(() => dynamoDbBigSegmentStore(undefined, { tableName: 'ttt' }), { name: 'TypeError', message: /host must be an object with a getItem method/ });
    assert.throws(() => dynamoDbBigSegmentStore({}, { tableName: 'ttt' }), { name: 'TypeError', message: /getItem/ });
    assert.throws(() => dynamoDbBigSegmentStore(h), { name: 'TypeError', message: /options must be an object/ });
    assert.throws(() => dynamoDbBigSegmentStore(h, {}), { name: 'TypeError', message: /options\.tableName must be a string, got undefined/ });
    assert.throws(() => dynamoDbBigSegmentStore(h, { tableName: 5 }), { name: 'TypeError', message: /options\.tableName must be a string, got number 5/ });
    for (const tableName of ['', 'ab', 'has space', 'x'.repeat(256)]) {
      assert.throws(() => dynamoDbBigSegmentStore(h, { tableName }), { name: 'RangeError', message: /options\.tableName must be 3 to 255/ });
    }
    assert.throws(() => dynamoDbBigSegmentStore(h, { tableName: 'ttt', prefix: 7 }), { name: 'TypeError', message: /options\.prefix must be a string/ });
    assert.ok(dynamoDbBigSegmentStore(h, { tableName: 'my_table-1.v2', prefix: null }));
  });

  test('awsDynamoDbHost checks the client and the command class, and forwards through send', async () => {
    assert.throws(() => awsDynamoDbHost({}, GetItemCommand), { name: 'TypeError', message: /awsDynamoDbHost: client must be a DynamoDBClient/ });
    assert.throws(() => awsDynamoDbHost(null, GetItemCommand), TypeError);
    assert.throws(() => awsDynamoDbHost(dynamo.client), { name: 'TypeError', message: /GetItemCommand must be/ });
    const sent = [];
    const fake = { send: async (command) => (sent.push(command), { Item: { included: { SS: ['z.g1'] } } }) };
    const store = dynamoDbBigSegmentStore(awsDynamoDbHost(fake, GetItemCommand), { tableName: 'tbl' });
    assert.deepEqual(plain(await store.getMembership('h')), { 'z.g1': true });
    assert.equal(sent.length, 1);
    assert.ok(sent[0] instanceof GetItemCommand);
    assert.deepEqual(sent[0].input, { TableName: 'tbl', Key: { namespace: { S: 'big_segments_user' }, key: { S: 'h' } }, ConsistentRead: true });
  });
});
