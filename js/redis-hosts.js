// Redis hosts: node-redis, ioredis and @upstash/redis clients as the Redis store's host.
import { describe } from './util.js';
import { ioredisClusterHost, isIoredisCluster, isNodeRedisCluster, nodeRedisClusterHost } from './redis-cluster-hosts.js';

function requireMethods(adapter, client, names) {
  for (const name of names) {
    if (client === null || typeof client !== 'object' || typeof client[name] !== 'function') {
      throw new TypeError(`${adapter}: client must have a ${name} method, ${describe(client)}`);
    }
  }
}

/**
 * node-redis v4+: `sendCommand`, and `multi().addCommand()…execAsPipeline()` for one round trip;
 * a `createCluster()` client gets the cluster host (js/redis-cluster-hosts.js).
 */
export function nodeRedisHost(client) {
  requireMethods('nodeRedisHost', client, ['sendCommand', 'multi']);
  if (isNodeRedisCluster(client)) return nodeRedisClusterHost(client);
  return Object.freeze({
    command: (args) => client.sendCommand(args),
    pipeline(commands) {
      const batch = client.multi();
      for (const args of commands) batch.addCommand(args);
      return typeof batch.execAsPipeline === 'function' ? batch.execAsPipeline() : batch.exec();
    },
  });
}

/** ioredis: `call`, and `pipeline(commands).exec()` for one round trip; a `Cluster` gets the cluster host. */
export function ioredisHost(client) {
  requireMethods('ioredisHost', client, ['call', 'pipeline']);
  if (isIoredisCluster(client)) return ioredisClusterHost(client);
  return Object.freeze({
    command: ([name, ...args]) => client.call(name, ...args),
    async pipeline(commands) {
      // ioredis finds pipelined commands by their lower-case method names.
      const batch = commands.map(([name, ...args]) => [String(name).toLowerCase(), ...args]);
      const replies = await client.pipeline(batch).exec();
      if (!Array.isArray(replies)) throw new TypeError('ioredisHost: pipeline exec() did not return an array');
      return replies.map((entry) => {
        if (!Array.isArray(entry)) throw new TypeError('ioredisHost: pipeline exec() returned a malformed entry');
        const [error, reply] = entry;
        if (error) throw error instanceof Error ? error : new Error(`ioredis: ${String(error)}`);
        return reply;
      });
    },
  });
}

/**
 * @upstash/redis (HTTP, edge-friendly). Commands go through the client's own requester, raw:
 * no JSON deserialization of replies, one HTTP request per pipeline.
 */
export function upstashHost(client) {
  const requester = client && typeof client === 'object' ? client.client : undefined;
  if (!requester || typeof requester.request !== 'function') {
    throw new TypeError(`upstashHost: client must be an @upstash/redis Redis client, ${describe(client)}`);
  }
  const reply = ({ result, error }) => {
    if (error) throw new Error(`Upstash: ${error}`);
    return result;
  };
  return Object.freeze({
    command: async (args) => reply(await requester.request({ body: args })),
    async pipeline(commands) {
      const replies = await requester.request({ path: ['pipeline'], body: commands });
      return replies.map(reply);
    },
  });
}
