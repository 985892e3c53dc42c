// Redis Cluster hosts: an ioredis `Cluster` and a node-redis `createCluster()` client as the Redis
// store's host. A cluster host has `command` only, no `pipeline`: the store then sends a query's
// two SMEMBERS as two concurrent commands, each routed by its own key to the node that owns its
// slot (LaunchDarkly's keys carry no hash tag, so the two are usually on different nodes, and a
// pipeline across slots is an error on both clients). Still one round trip of wall time.

/** An ioredis `Cluster` (ioredis marks its own cluster client so). */
export const isIoredisCluster = (client) => client.isCluster === true;

/**
 * A node-redis cluster (`createCluster()`): its `masters` and `slots` getters (the cluster's
 * topology, arrays from construction on) are not on a single-node client, a pool or a sentinel.
 */
export function isNodeRedisCluster(client) {
  return 'masters' in client && 'slots' in client && Array.isArray(client.masters) && Array.isArray(client.slots);
}

/** ioredis Cluster: `call` routes each command by its key. */
export function ioredisClusterHost(client) {
  return Object.freeze({ command: ([name, ...args]) => client.call(name, ...args) });
}

// Commands the store sends that only read (node-redis may serve them from replicas with
// `useReplicas`); anything else goes to the master.
const READS = new Set(['GET', 'SMEMBERS']);

/** node-redis cluster: `sendCommand(firstKey, isReadonly, args)`, routed by `firstKey`. */
export function nodeRedisClusterHost(client) {
  return Object.freeze({
    command: (args) => client.sendCommand(args[1], READS.has(args[0]), args),
  });
}
