// A private in-memory DynamoDB (dynalite) on a loopback port, the real AWS SDK v3 client against
// it, and writers that change a table the way LaunchDarkly's Relay Proxy does: UpdateItem with
// ADD / DELETE on the string sets of a context's item, PutItem for the metadata item.
import dynalite from 'dynalite';
import {
  DynamoDBClient,
  CreateTableCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  DeleteItemCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';

export { GetItemCommand, PutItemCommand };

/** Starts dynalite on 127.0.0.1 (a free port); `{ client, endpoint, stop() }`. */
// The SDK's notice that later SDK versions need a newer Node is noise in test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
export async function startDynamo() {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const endpoint = `http://127.0.0.1:${server.address().port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  return {
    client,
    endpoint,
    async stop() {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let tableCounter = 0;
/**
 * Creates a table in LaunchDarkly's schema (namespace HASH, key RANGE); returns its name: a fresh
 * one from `tag`, or exactly `name` when given.
 */
export async function createTable(client, tag = 'bigsegs', name = undefined) {
  const TableName = name ?? `${tag}-${process.pid}-${++tableCounter}`;
  await client.send(
    new CreateTableCommand({
      TableName,
      KeySchema: [
        { AttributeName: 'namespace', KeyType: 'HASH' },
        { AttributeName: 'key', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'namespace', AttributeType: 'S' },
        { AttributeName: 'key', AttributeType: 'S' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  // dynalite makes a table ACTIVE on a timer (even with createTableMs 0): an item written before
  // then gets "Requested resource not found", which a loaded machine made happen. The SDK's
  // waiter checks at once, then once a second.
  await waitUntilTableExists({ client, maxWaitTime: 10, minDelay: 1, maxDelay: 1 }, { TableName });
  return TableName;
}

const ns = (prefix, base) => (prefix ? `${prefix}:${base}` : base);

/** The Relay Proxy's writes for one table and prefix ('' or undefined: none). */
export function relayWriter(client, TableName, prefix) {
  const userKey = (hash) => ({ namespace: { S: ns(prefix, 'big_segments_user') }, key: { S: hash } });
  const metaKey = ns(prefix, 'big_segments_metadata');
  const update = (hash, op, attr, refs) =>
    client.send(
      new UpdateItemCommand({
        TableName,
        Key: userKey(hash),
        UpdateExpression: `${op} ${attr} :refs`,
        ExpressionAttributeValues: { ':refs': { SS: refs } },
      }),
    );
  return {
    include: (hash, ...refs) => update(hash, 'ADD', 'included', refs),
    exclude: (hash, ...refs) => update(hash, 'ADD', 'excluded', refs),
    uninclude: (hash, ...refs) => update(hash, 'DELETE', 'included', refs),
    unexclude: (hash, ...refs) => update(hash, 'DELETE', 'excluded', refs),
    removeItem: (hash) => client.send(new DeleteItemCommand({ TableName, Key: userKey(hash) })),
    /** An item written as it stands (bad items included). */
    putUserItem: (hash, attributes) =>
      client.send(new PutItemCommand({ TableName, Item: { ...userKey(hash), ...attributes } })),
    synchronizedOn: (ms) =>
      client.send(
        new PutItemCommand({
          TableName,
          Item: { namespace: { S: metaKey }, key: { S: metaKey }, synchronizedOn: { N: String(ms) } },
        }),
      ),
    putMetadataItem: (attributes) =>
      client.send(
        new PutItemCommand({ TableName, Item: { namespace: { S: metaKey }, key: { S: metaKey }, ...attributes } }),
      ),
  };
}

/** A host that counts (and keeps) the GetItem inputs it forwards to `inner`. */
export function countingHost(inner) {
  const inputs = [];
  return {
    inputs,
    host: {
      getItem(input) {
        inputs.push(structuredClone(input));
        return inner.getItem(input);
      },
    },
  };
}
