// Big Segments stores and hosts: what the factories return is typed with its methods, and the
// host factories take the shape of the client they wrap (clients/real-clients.ts: the real types).
import {
  BigSegmentStoreManager,
  awsDynamoDbHost,
  dynamoDbBigSegmentStore,
  hashContextKey,
  ioredisHost,
  launchDarklyBigSegmentStore,
  nodeRedisHost,
  redisBigSegmentStore,
  upstashHost,
  type CoreBigSegmentStore,
  type DynamoDbGetItemInput,
  type PipelinedRedisHost,
  type RedisHost,
  type StoreMembership,
} from 'cutover';
import { expectType, type Equals } from './util.js';

const redisStore = redisBigSegmentStore(async () => null);
const dynamoStore = dynamoDbBigSegmentStore({ getItem: async () => ({}) }, { tableName: 'ld-big-segments', prefix: 'env' });
expectType<Equals<typeof redisStore, CoreBigSegmentStore>>();
expectType<Equals<typeof dynamoStore, CoreBigSegmentStore>>();

export async function queryDirectly(): Promise<boolean> {
  // TS2339 before: getMembership did not exist on the BigSegmentStore union.
  const membership = await redisStore.getMembership(hashContextKey('user-123'));
  membership satisfies StoreMembership | null;
  const { lastUpToDate } = await dynamoStore.getMetadata();
  lastUpToDate satisfies number | null;
  redisStore.close();
  // A core store is a store for the manager and for LaunchDarkly's SDK.
  new BigSegmentStoreManager({ store: dynamoStore });
  launchDarklyBigSegmentStore(redisStore);
  return membership?.['beta.g1'] === true;
}

// Hosts over clients shaped as the adapters use them.
const nodeRedis = {
  sendCommand: async (args: string[]) => args.length,
  multi: () => ({ addCommand: (args: string[]) => void args, exec: async () => [] }),
};
const nodeRedisCluster = {
  sendCommand: async (firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]) => [firstKey, isReadonly, args],
  multi: () => ({}),
  masters: [],
  slots: [],
};
const ioredis = { call: async (command: string, ...args: string[]) => [command, ...args], pipeline: () => ({ exec: async () => [] }), isCluster: false };
const upstash = { pipeline: () => ({}), smembers: async (key: string) => [key], createScript: (script: string) => ({ script }) };
class GetItemCommand {
  constructor(readonly input: DynamoDbGetItemInput) {}
}
const aws = { send: async (command: GetItemCommand) => ({ Item: { key: { S: command.input.Key.key.S } } }) };

export const hosts: RedisHost[] = [nodeRedisHost(nodeRedis), nodeRedisHost(nodeRedisCluster), ioredisHost(ioredis)];
const upstashed = upstashHost(upstash);
expectType<Equals<typeof upstashed, PipelinedRedisHost>>();
export const pipelined: Promise<unknown[]> = upstashed.pipeline([['SMEMBERS', 'k']]); // pipeline is there
export const dynamoHost = awsDynamoDbHost(aws, GetItemCommand);
export const fromAws = dynamoDbBigSegmentStore(dynamoHost, { tableName: 't' });

// ---- wrong clients (each accepted before: the factories took `unknown`)
// @ts-expect-error nodeRedisHost takes a node-redis client (sendCommand, multi)
nodeRedisHost({});
// @ts-expect-error an ioredis client is not a node-redis client
nodeRedisHost(ioredis);
// @ts-expect-error ioredisHost takes an ioredis client (call, pipeline)
ioredisHost({});
// @ts-expect-error a node-redis client is not an ioredis client
ioredisHost(nodeRedis);
// @ts-expect-error upstashHost takes an @upstash/redis client
upstashHost({});
// @ts-expect-error an ioredis client is not an @upstash/redis client
upstashHost(ioredis);
// @ts-expect-error awsDynamoDbHost takes a client with send()
awsDynamoDbHost({}, GetItemCommand);
class PutItemCommand {
  constructor(readonly input: { TableName: string; Item: object }) {}
}
// @ts-expect-error the command class must take a GetItem input
awsDynamoDbHost(aws, PutItemCommand);
// @ts-expect-error dynamoDbBigSegmentStore needs a tableName
dynamoDbBigSegmentStore(dynamoHost, { prefix: 'env' });
// @ts-expect-error misspelled option: tableName
dynamoDbBigSegmentStore(dynamoHost, { tablename: 't' });
export async function wrongMembership(): Promise<void> {
  const membership = await redisStore.getMembership('hash');
  // @ts-expect-error a store may have no membership for the context
  membership['beta.g1'];
}
