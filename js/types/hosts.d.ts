// Hosts: how the stores of cutover's core reach Redis and DynamoDB through the caller's own client.
// Each client is described by the members its adapter uses, so that node-redis, ioredis,
// @upstash/redis and the AWS SDK's clients are accepted by their own types and anything else is not.

/** Sends one Redis command, e.g. `['SMEMBERS', key]` → `string[]`. */
export type RedisCommand = (args: string[]) => Promise<unknown>;

/** How a Redis store sends its commands. */
export interface RedisHost {
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
  /** Sends one command, e.g. `['SMEMBERS', key]`. */
  sendCommand(args: string[]): Promise<unknown>;
  /** Starts a batch of commands (the host's pipeline). */
  multi(): {
    /** Adds one command to the batch. */
    addCommand(args: string[]): unknown;
    /** Sends the batch; resolves to the replies in order. */
    exec(): Promise<unknown>;
  };
}

/** A node-redis cluster client as `nodeRedisHost` uses it: `createCluster()`. */
export interface NodeRedisClusterLike {
  /** Sends one command to the node that owns `firstKey`. */
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  /** Required to be present; never called on a cluster (no cross-slot pipeline). */
  multi(): unknown;
  readonly masters: readonly unknown[];
  readonly slots: readonly unknown[];
}

/** An ioredis client (`new Redis()`) or cluster (`new Cluster()`) as `ioredisHost` uses it. */
export interface IoredisClientLike {
  /** Sends one command, e.g. `call('SMEMBERS', key)`. */
  call(command: string, ...args: string[]): Promise<unknown>;
  /** A pipeline of `commands` (not used on a cluster). */
  pipeline(commands: string[][]): {
    /** Sends the pipeline; resolves to `[error, reply]` pairs in order. */
    exec(): Promise<unknown>;
  };
  readonly isCluster?: boolean;
}

/** An `@upstash/redis` client, by public members that tell one (commands go through its requester). */
export interface UpstashRedisLike {
  /** The client's own pipeline; only identifies the type, never called. */
  pipeline(): unknown;
  /** The client's own SMEMBERS; only identifies the type, never called. */
  smembers(key: string): Promise<unknown>;
  /** The client's own script helper; only identifies the type, never called. */
  createScript(script: string): unknown;
}

/**
 * node-redis v4+ (`sendCommand`, `multi`), or a `createCluster()` client: then a query's two
 * SMEMBERS go out concurrently, each to the node that owns its key.
 *
 * @throws TypeError when `client` lacks `sendCommand` or `multi`.
 * @example
 * ```ts
 * const store = redisBigSegmentStore(nodeRedisHost(await createClient({ url }).connect()));
 * ```
 */
export function nodeRedisHost(client: NodeRedisClientLike | NodeRedisClusterLike): RedisHost;

/**
 * ioredis (`call`, `pipeline`), or an ioredis `Cluster`: then a query's two SMEMBERS go out
 * concurrently, each to the node that owns its key, never as a cross-slot pipeline.
 *
 * @throws TypeError when `client` lacks `call` or `pipeline`.
 * @example
 * ```ts
 * const store = redisBigSegmentStore(ioredisHost(new Redis(url)));
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
 * const store = redisBigSegmentStore(upstashHost(new Redis({ url, token })));
 * ```
 */
export function upstashHost(client: UpstashRedisLike): PipelinedRedisHost;

/** A DynamoDB attribute value as GetItem answers it (`{ S }`, `{ N }`, `{ SS }`, …). */
export type DynamoDbAttributeValue = {
  S?: string;
  N?: string;
  SS?: string[];
  [type: string]: unknown;
};

/** DynamoDB's GetItem input, as the DynamoDB store sends it. */
export interface DynamoDbGetItemInput {
  TableName: string;
  Key: { namespace: { S: string }; key: { S: string } };
  ConsistentRead?: boolean;
}

/** DynamoDB's GetItem output, as much as the store reads: no `Item` when there is none. */
export interface DynamoDbGetItemOutput {
  Item?: Record<string, DynamoDbAttributeValue> | undefined;
}

/** Sends one GetItem, in DynamoDB's own shapes. */
export interface DynamoDbHost {
  /** Sends one GetItem; resolves to its output. */
  getItem(input: DynamoDbGetItemInput): Promise<DynamoDbGetItemOutput>;
}

/** An AWS SDK v3 client as `awsDynamoDbHost` uses it: `send(command)`, with the command type it takes. */
export interface AwsDynamoDbClientLike<TCommand> {
  /** Sends one command (a `GetItemCommand`); resolves to its output. */
  send(command: TCommand): Promise<unknown>;
}

/**
 * `@aws-sdk/client-dynamodb` v3: `client.send(new GetItemCommand(input))` with the SDK's own
 * client and command class (cutover does not depend on the SDK).
 *
 * @throws TypeError when `client` has no send method or `GetItemCommand` is not a class.
 * @example
 * ```ts
 * const host = awsDynamoDbHost(new DynamoDBClient({ region }), GetItemCommand);
 * ```
 */
export function awsDynamoDbHost<TCommand>(
  client: AwsDynamoDbClientLike<NoInfer<TCommand>>,
  GetItemCommand: new (input: DynamoDbGetItemInput) => TCommand,
): DynamoDbHost;
