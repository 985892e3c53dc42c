// The host factories, contexts and createMigration against the real clients' own types: node-redis
// (redis 6), ioredis 5, @upstash/redis, @aws-sdk/client-dynamodb and LaunchDarkly's server SDK.
// Compiled with skipLibCheck (tsconfig.clients.json): those packages' declarations need Node's
// types, which the repository does not install; cutover's are checked by tsconfig.json.
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { LDClient, LDContext, LDMigration, LDMigrationOptions, LDMigrationStage as LDStage, LDOptions } from '@launchdarkly/node-server-sdk';
import { OpenFeature, type EvaluationContext } from '@openfeature/server-sdk';
import { Redis as Upstash } from '@upstash/redis';
import { Cluster, Redis as IORedis } from 'ioredis';
import { createClient, createCluster } from 'redis';
import {
  LDMigrationSuccess,
  MigratorBuilder,
  awsDynamoDbHost,
  createMigration,
  dynamoDbBigSegmentStore,
  fixedStage,
  ioredisHost,
  launchDarklyBigSegmentStore,
  launchDarklyClient,
  nodeRedisHost,
  openFeatureClient,
  redisBigSegmentStore,
  upstashHost,
  type Context,
} from 'cutover';

declare const nodeRedis: ReturnType<typeof createClient>;
declare const nodeRedisCluster: ReturnType<typeof createCluster>;
declare const ioredis: IORedis;
declare const ioredisCluster: Cluster;
declare const upstash: Upstash;
declare const dynamo: DynamoDBClient;

export const stores = [
  redisBigSegmentStore(nodeRedisHost(nodeRedis)),
  redisBigSegmentStore(nodeRedisHost(nodeRedisCluster)),
  redisBigSegmentStore(nodeRedisHost(createClient({ url: 'redis://localhost' }))),
  redisBigSegmentStore(ioredisHost(ioredis)),
  redisBigSegmentStore(ioredisHost(ioredisCluster)),
  redisBigSegmentStore(upstashHost(upstash)),
  redisBigSegmentStore(upstashHost(new Upstash({ url: 'https://example.upstash.io', token: 't' }))),
  dynamoDbBigSegmentStore(awsDynamoDbHost(dynamo, GetItemCommand), { tableName: 'ld-big-segments' }),
];

// ---- a real client of the wrong kind
// @ts-expect-error an ioredis client is not a node-redis client
nodeRedisHost(ioredis);
// @ts-expect-error a node-redis client is not an ioredis client
ioredisHost(nodeRedis);
// @ts-expect-error a node-redis client is not an @upstash/redis client
upstashHost(nodeRedis);
// @ts-expect-error an ioredis client is not an @upstash/redis client
upstashHost(ioredis);
// @ts-expect-error the command must be GetItemCommand
awsDynamoDbHost(dynamo, PutItemCommand);
// @ts-expect-error a DynamoDB client is not a Redis client
nodeRedisHost(dynamo);

// ---- LaunchDarkly: its client, contexts, store option and createMigration annotations
declare const ldClient: LDClient;
declare const ldContext: LDContext;
declare const stage: LDStage;
interface Row {
  id: string;
  name: string;
}
export const asContext: Context = ldContext;
export const migrator = new MigratorBuilder(launchDarklyClient(ldClient))
  .read(async (id: string) => ({ id, name: 'old' }), async (id) => ({ id, name: 'new' }))
  .write(async (row: Row) => row.id, async (row) => row.id)
  .build();
export const read = migrator.read('flag', ldContext, stage, 'id-1');
export const options: LDOptions = { bigSegments: { store: launchDarklyBigSegmentStore(redisBigSegmentStore(nodeRedisHost(nodeRedis))) } };

// A user's annotations with LaunchDarkly's own types still compile over cutover's createMigration.
const ldOptions: LDMigrationOptions<Row, boolean, string, Row> = {
  readOld: async (id?: string) => LDMigrationSuccess({ id: id ?? '', name: 'old' }),
  readNew: async (id?: string) => LDMigrationSuccess({ id: id ?? '', name: 'new' }),
  writeOld: async () => LDMigrationSuccess(true),
  writeNew: async () => LDMigrationSuccess(true),
};
export const annotated: LDMigration<Row, boolean, string, Row> = createMigration(ldClient, ldOptions);
// Inferred from the options: no `key?: string`, no explicit type arguments.
export const inferred: LDMigration<Row, boolean, string, Row> = createMigration(ldClient, {
  readOld: async (id: string) => LDMigrationSuccess({ id, name: 'old' }),
  readNew: async (id: string) => LDMigrationSuccess({ id, name: 'new' }),
  writeOld: async (row: Row) => LDMigrationSuccess(row.id !== ''),
  writeNew: async (row: Row) => LDMigrationSuccess(row.id !== ''),
  check: (a, b) => a.name === b.name,
});
export const defaults: LDMigration<string, number> = createMigration(ldClient, {
  readOld: async (key) => LDMigrationSuccess(`old:${String(key)}`),
  readNew: async (key) => LDMigrationSuccess(`new:${String(key)}`),
  writeOld: async () => LDMigrationSuccess(1),
  writeNew: async () => LDMigrationSuccess(2),
});
export const ldRead = inferred.read('flag', ldContext, stage, 'id-1');

// @ts-expect-error LaunchDarkly's LDMigration of other types
export const wrongTypes: LDMigration<number, boolean, string, Row> = createMigration(ldClient, ldOptions);
// @ts-expect-error fixedStage is not a LaunchDarkly client
createMigration(fixedStage('off'), ldOptions);

// ---- OpenFeature's server SDK: its client, and its contexts
declare const evaluationContext: EvaluationContext;
export const openFeature = new MigratorBuilder(openFeatureClient(OpenFeature.getClient()))
  .read(async (id: string) => id, async (id) => id)
  .write(async () => true, async () => true)
  .build();
export const ofRead = openFeature.read('flag', evaluationContext, 'off', 'id-1');
// @ts-expect-error an OpenFeature provider is not a client
openFeatureClient(OpenFeature.getProvider());
