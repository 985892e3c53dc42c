// The services the docs' blocks run against, and the environment variables that point the blocks
// at them (run.mjs's SERVICE_VARIABLES). A block needs a service when its source, or the source
// of a stand-in it names, reads the service's variable:
//   REDIS_URL           Redis: `npm test`'s private redis-server (a private one when unset), in
//                       a database no other suite uses (9; the self-check's, 10), so the blocks'
//                       default prefix `launchdarkly` is theirs alone
//   REDIS_CLUSTER_URLS  a private three-master Redis Cluster (scripts/redis-cluster.sh)
//   DYNAMODB_ENDPOINT   dynalite with the table `ld-big-segments`
// Each holds the data LaunchDarkly's Relay Proxy would have written, so the blocks' lookups answer
// as the docs say: user-123 is in `beta-testers.g3` (prefix `launchdarkly` for Redis, `my-env` for
// DynamoDB), synchronized now. LaunchDarkly's SDK is always offline (launchdarkly/offline-sdk.mjs);
// LAUNCHDARKLY_SDK_KEY is a made-up key for it.
import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import { redisUrl, deleteKeys, writeMembership } from '../node/helpers/redis-env.mjs';
import { startCluster } from '../node/helpers/redis-cluster.mjs';
import { createTable, relayWriter, startDynamo } from '../node/helpers/dynamodb-env.mjs';
import { BETA_TESTERS } from './launchdarkly/flags.mjs';

const MEMBER = 'user-123';
const REF = `${BETA_TESTERS.key}.g${BETA_TESTERS.generation}`;
// The key stores are keyed by, as cutover's hashContextKey computes it (base64 SHA-256).
const hashContextKey = (key) => createHash('sha256').update(key).digest('base64');

/** Variables every block gets, whatever it needs. */
const BASE_ENV = {
  LAUNCHDARKLY_SDK_KEY: 'sdk-docs-offline',
  // A service a block starts (README.md's first) listens on a free port: blocks run two at a time.
  PORT: '0',
  // The AWS SDK's credential chain would look for an instance role on the network without these.
  AWS_ACCESS_KEY_ID: 'docs',
  AWS_SECRET_ACCESS_KEY: 'docs',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** Starts the `services` (a Set of names), Redis in `database`; `{ env, stop() }`. */
export async function startEnvironment(services, { database = 9 } = {}) {
  const env = { ...BASE_ENV };
  const stops = [];
  try {
    if (services.has('redis')) {
      const url = new URL(await redisUrl());
      url.pathname = `/${database}`;
      env.REDIS_URL = url.href;
      const client = await createClient({ url: url.href }).on('error', () => {}).connect();
      await deleteKeys(client, 'launchdarkly:*');
      await client.sendCommand(['SET', 'launchdarkly:big_segments_synchronized_on', String(Date.now())]);
      await writeMembership(client, 'launchdarkly', hashContextKey(MEMBER), { include: [REF] });
      stops.push(async () => {
        await deleteKeys(client, 'launchdarkly:*');
        await client.close();
      });
    }
    if (services.has('cluster')) {
      const cluster = await startCluster();
      stops.push(() => cluster.stop());
      env.REDIS_CLUSTER_URLS = cluster.urls.join(' ');
      // Each key is written on the master that owns its slot.
      const onOwner = async (args) => {
        const owner = cluster.owner(args[1]);
        const c = await createClient({ url: `redis://127.0.0.1:${owner}` }).on('error', () => {}).connect();
        await c.sendCommand(args);
        await c.close();
      };
      await onOwner(['SET', 'launchdarkly:big_segments_synchronized_on', String(Date.now())]);
      await onOwner(['SADD', `launchdarkly:big_segment_include:${hashContextKey(MEMBER)}`, REF]);
    }
    if (services.has('dynamodb')) {
      const dynamo = await startDynamo();
      stops.push(() => dynamo.stop());
      env.DYNAMODB_ENDPOINT = dynamo.endpoint;
      const TableName = await createTable(dynamo.client, undefined, 'ld-big-segments');
      const relay = relayWriter(dynamo.client, TableName, 'my-env');
      await relay.synchronizedOn(Date.now());
      await relay.include(hashContextKey(MEMBER), REF);
    }
  } catch (e) {
    for (const stop of stops.reverse()) await stop();
    throw e;
  }
  return {
    env,
    async stop() {
      for (const stop of stops.reverse()) await stop();
    },
  };
}
