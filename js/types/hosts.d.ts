// Hosts: how the stores of cutover's core reach Redis and DynamoDB through the caller's own client.
// Each client is described by the members its adapter uses, so that node-redis, ioredis,
// @upstash/redis and the AWS SDK's clients are accepted by their own types and anything else is not.

/** Sends one Redis command, e.g. `['SMEMBERS', key]` → `string[]`. */
export type RedisCommand = (args: string[]) => Promise<unknown>;

/** How a Redis store sends its commands. */
export interface RedisHost {
  /** Sends one command. */
  command: RedisCommand;
  /** Sends several commands in one round trip; replies in order. */
  pipeline?(commands: string[][]): Promise<unknown[]>;
}

/** A Redis host that pipelines (one round trip per membership query). */
export interface PipelinedRedisHost extends RedisHost {
  /** Sends several commands in one round trip; replies in order. */
  pipeline(commands: string[][]): Promise<unknown[]>;
}

/** A node-redis (v4+) client as `nodeRedisHost` uses it: `createClient()`. */
export interface NodeRedisClientLike {
  /** Sends a raw command. */
  sendCommand(args: string[]): Promise<unknown>;
  /** Starts a batch, sent with `execAsPipeline()` (or `exec()`). */
  multi(): {
    /** Queues a raw command. */
    addCommand(args: string[]): unknown;
    /** Sends the batch as a transaction. */
    exec(): Promise<unknown>;
  };
}

/** A node-redis cluster client as `nodeRedisHost` uses it: `createCluster()`. */
export interface NodeRedisClusterLike {
  /** Sends a raw command to the node that owns `firstKey`. */
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  /** Present on every node-redis client (checked by `nodeRedisHost`). */
  multi(): unknown;
  /** The cluster's masters: how `nodeRedisHost` tells a cluster. */
  readonly masters: readonly unknown[];
  /** The cluster's slots: how `nodeRedisHost` tells a cluster. */
  readonly slots: readonly unknown[];
}

/** An ioredis client (`new Redis()`) or cluster (`new Cluster()`) as `ioredisHost` uses it. */
export interface IoredisClientLike {
  /** Sends a raw command. */
  call(command: string, ...args: string[]): Promise<unknown>;
  /** Starts a pipeline of the given commands. */
  pipeline(commands: string[][]): {
    /** Sends it: `[error, reply]` per command. */
    exec(): Promise<unknown>;
  };
  /** True on a `Cluster`: then the two SMEMBERS of a query go to their own nodes. */
  readonly isCluster?: boolean;
}

/**
 * An `@upstash/redis` client (`new Redis({ url, token })`), by the public members that tell one;
 * `upstashHost` sends raw commands through its requester.
 */
export interface UpstashRedisLike {
  /** Starts a pipeline. */
  pipeline(): unknown;
  /** `SMEMBERS`. */
  smembers(key: string): Promise<unknown>;
  /** Makes a Lua script object. */
  createScript(script: string): unknown;
}

/**
 * node-redis v4+ (`sendCommand`, `multi`), or a node-redis cluster from `createCluster()`: then a
 * query's two SMEMBERS go out concurrently, each to the node that owns its key.
 *
 * @throws TypeError when `client` lacks `sendCommand` or `multi`.
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { BigSegmentStoreManager, nodeRedisHost, redisBigSegmentStore } from 'cutover';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const manager = new BigSegmentStoreManager({ store: redisBigSegmentStore(nodeRedisHost(redis)) });
 * ```
 */
export function nodeRedisHost(client: NodeRedisClientLike | NodeRedisClusterLike): RedisHost;

/**
 * ioredis (`call`, `pipeline`), or an ioredis `Cluster` (`isCluster === true`): then a query's two
 * SMEMBERS go out concurrently, each to the node that owns its key, never as a cross-slot pipeline.
 *
 * @throws TypeError when `client` lacks `call` or `pipeline`.
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { BigSegmentStoreManager, ioredisHost, redisBigSegmentStore } from 'cutover';
 *
 * const manager = new BigSegmentStoreManager({ store: redisBigSegmentStore(ioredisHost(new Redis())) });
 * ```
 */
export function ioredisHost(client: IoredisClientLike): RedisHost;

/**
 * @upstash/redis (HTTP, edge-friendly): raw commands through the client's requester, one HTTP
 * request per pipeline.
 *
 * @throws TypeError when `client` is not an @upstash/redis client.
 * @example
 * ```ts
 * import { Redis } from '@upstash/redis';
 * import { BigSegmentStoreManager, redisBigSegmentStore, upstashHost } from 'cutover';
 *
 * const redis = new Redis({ url: 'https://example.upstash.io', token: 'token' });
 * const manager = new BigSegmentStoreManager({ store: redisBigSegmentStore(upstashHost(redis)) });
 * ```
 */
export function upstashHost(client: UpstashRedisLike): PipelinedRedisHost;

/** A DynamoDB attribute value as GetItem answers it (`{ S }`, `{ N }`, `{ SS }`, …). */
export type DynamoDbAttributeValue = {
  /** A string. */
  S?: string;
  /** A number, as a string. */
  N?: string;
  /** A string set. */
  SS?: string[];
  /** The other attribute types. */
  [type: string]: unknown;
};

/** DynamoDB's GetItem input, as the DynamoDB store sends it. */
export interface DynamoDbGetItemInput {
  /** The table. */
  TableName: string;
  /** The item's partition and sort keys. */
  Key: { namespace: { S: string }; key: { S: string } };
  /** The store's reads are consistent. */
  ConsistentRead?: boolean;
}

/** DynamoDB's GetItem output, as much as the store reads: no `Item` when there is none. */
export interface DynamoDbGetItemOutput {
  /** The item's attributes. */
  Item?: Record<string, DynamoDbAttributeValue> | undefined;
}

/** Sends one GetItem, in DynamoDB's own shapes. */
export interface DynamoDbHost {
  /** Sends one GetItem. */
  getItem(input: DynamoDbGetItemInput): Promise<DynamoDbGetItemOutput>;
}

/** An AWS SDK v3 client as `awsDynamoDbHost` uses it: `send(command)`, with the command type it takes. */
export interface AwsDynamoDbClientLike<TCommand> {
  /** Sends a command. */
  send(command: TCommand): Promise<unknown>;
}

/**
 * `@aws-sdk/client-dynamodb` v3: `client.send(new GetItemCommand(input))`. Pass the SDK's own
 * `DynamoDBClient` and `GetItemCommand`; cutover does not depend on the SDK. The command type is
 * the class's, and the client must send it.
 *
 * @throws TypeError when `client` has no send method or `GetItemCommand` is not a class.
 * @example
 * ```ts
 * import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
 * import { awsDynamoDbHost, dynamoDbBigSegmentStore } from 'cutover';
 *
 * const client = new DynamoDBClient({ region: 'us-east-1' });
 * const store = dynamoDbBigSegmentStore(awsDynamoDbHost(client, GetItemCommand), { tableName: 'ld-big-segments' });
 * ```
 */
export function awsDynamoDbHost<TCommand>(
  client: AwsDynamoDbClientLike<NoInfer<TCommand>>,
  GetItemCommand: new (input: DynamoDbGetItemInput) => TCommand,
): DynamoDbHost;
