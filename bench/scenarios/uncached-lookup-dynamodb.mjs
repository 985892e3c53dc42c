// Every lookup misses the membership cache and sends one GetItem to a local DynamoDB (dynalite,
// in memory, started by this scenario) through @aws-sdk/client-dynamodb. LaunchDarkly's DynamoDB
// store package is not installed here, so there is no LD side: the floor is the same GetItem
// sent through the same client with no library at all.
import { loadCutover, timeAsync } from '../lib/common.mjs';
import { POOL, hash, userKey } from '../lib/redis.mjs';
import { startDynamo, createTable, relayWriter, countingHost, GetItemCommand } from '../../tests/node/helpers/dynamodb-env.mjs';

// Timed lookups per side and round: about 0.4 s; a longer warm-up than the default half, as the
// AWS SDK's path is long and each call is slow.
const TIMED = { ops: 400, warmupOps: 300, settleOps: 80 };
export const meta = {
  unit: 'µs/op',
  note:
    `dynalite (in memory, loopback), LaunchDarkly's DynamoDB schema, ${POOL} seeded contexts cycled so every lookup misses (cache size 1). ` +
    'cutover: BigSegmentStoreManager({contextCacheSize: 1}) over dynamoDbBigSegmentStore(awsDynamoDbHost(@aws-sdk/client-dynamodb v3))',
  floor: 'the same GetItem per lookup through the same client, keys hashed in advance, no library',
};

async function seeded() {
  const dynamo = await startDynamo();
  const table = await createTable(dynamo.client, 'bench');
  const w = relayWriter(dynamo.client, table);
  await w.synchronizedOn(Date.now());
  for (let i = 0; i < POOL; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => w.include(hash(userKey(i + j)), `seg-${(i + j) % 7}.g1`)));
  }
  return { dynamo, table };
}

export async function cutover() {
  const c = await loadCutover();
  const { dynamo, table } = await seeded();
  const { host, inputs } = countingHost(c.awsDynamoDbHost(dynamo.client, GetItemCommand));
  const mgr = new c.BigSegmentStoreManager({
    store: c.dynamoDbBigSegmentStore(host, { tableName: table }),
    contextCacheSize: 1,
  });
  const check = await mgr.getUserMembership(userKey(0));
  if (check.status !== 'HEALTHY' || !check.membership['seg-0.g1']) throw new Error(`unexpected: ${JSON.stringify(check)}`);
  let n = 0;
  const before = inputs.length;
  const r = await timeAsync(() => mgr.getUserMembership(userKey(++n)), TIMED);
  const getItemsPerLookup = (inputs.length - before) / n;
  const s = mgr.stats();
  await mgr.close();
  await dynamo.stop();
  return { value: r.usPerOp, info: { ops: r.ops, getItemsPerLookup, membershipQueries: s.membershipQueries, lookups: s.lookups } };
}

export async function floor() {
  const { dynamo, table } = await seeded();
  const keys = Array.from({ length: POOL }, (_, i) => hash(userKey(i)));
  let n = 0;
  const r = await timeAsync(
    () =>
      dynamo.client.send(
        new GetItemCommand({
          TableName: table,
          Key: { namespace: { S: 'big_segments_user' }, key: { S: keys[++n % keys.length] } },
          ConsistentRead: true,
        }),
      ),
    TIMED,
  );
  await dynamo.stop();
  return { value: r.usPerOp, info: { ops: r.ops } };
}
