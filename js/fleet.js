// redisFleet (API.md §2d): the fleet's store in the Redis a service already runs. Each process
// writes its compact snapshot (console/fleet-doc.js: counts, guard states, paths and latency
// histograms; never values or context keys) into one field of one hash with ONE command per
// interval (`HSET key instance doc`, Redis 2.0+); readers take the whole hash (`HGETALL`) and
// the core decides which instances are alive (fleetStandings: `ttlMs`, at most 256), and the
// expired fields are deleted by the reader that finds them (`HDEL`). Nothing newer than Redis 6.2.
import { OptionsOf, checkOptionNames } from './wasm/cutover.js';
import { describe, read } from './util.js';

const NAME = 'redisFleet';
/** The brand of a FleetStore: what migrationConsole accepts as `fleet`. */
export const FLEET = Symbol('cutover.fleet');
/** Expired fields deleted by one reader at a time, at most. */
const FORGET_AT_ONCE = 64;

export const isFleetStore = (value) => value !== null && typeof value === 'object' && read(value, FLEET) !== undefined;

function wholeOption(options, name, fallback, min) {
  const value = read(options, name);
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${NAME}: ${name} must be a number, ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${NAME}: ${name} must be an integer of at least ${min}, ${describe(value)}`);
  return value;
}

function textOption(options, name, fallback) {
  const value = read(options, name);
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value === '' || value.length > 200) {
    throw new TypeError(`${NAME}: ${name} must be a non-empty string of at most 200 characters, ${describe(value)}`);
  }
  return value;
}

/** A name for this process: its pid where there is one, and random characters. */
function defaultInstance() {
  const host = read(globalThis, 'process');
  const pid = host !== null && typeof host === 'object' ? read(host, 'pid') : undefined;
  const random = globalThis.crypto.randomUUID().slice(0, 8);
  return typeof pid === 'number' ? `pid${pid}-${random}` : random;
}

/** A reply of HGETALL as [field, value] pairs: node-redis answers an object, ioredis and Upstash a flat array. */
function pairsOf(reply) {
  if (Array.isArray(reply)) {
    const pairs = [];
    for (let i = 0; i + 1 < reply.length; i += 2) pairs.push([String(reply[i]), reply[i + 1]]);
    return pairs;
  }
  if (reply !== null && typeof reply === 'object') return Object.entries(reply);
  return [];
}

/**
 * @param {any} host a RedisHost ({ command }) or a RedisCommand function
 * @param {any} [options]
 */
export function redisFleet(host, options) {
  const command = typeof host === 'function' ? host : read(host, 'command');
  if (typeof command !== 'function') {
    throw new TypeError(`${NAME}: host must be a Redis host function or an object with a command method (nodeRedisHost, ioredisHost, upstashHost), ${describe(host)}`);
  }
  if (options !== undefined) {
    if (options === null || typeof options !== 'object') throw new TypeError(`${NAME}: options must be an object, ${describe(options)}`);
    checkOptionNames(OptionsOf.RedisFleet, options);
  }
  const key = textOption(options, 'key', 'cutover:fleet');
  const instance = textOption(options, 'instance', undefined) ?? defaultInstance();
  const intervalMs = wholeOption(options, 'intervalMs', 5000, 100);
  const ttlMs = wholeOption(options, 'ttlMs', 30000, 1);
  if (ttlMs <= intervalMs) {
    throw new RangeError(`${NAME}: ttlMs must be longer than intervalMs (${intervalMs}), ${describe(ttlMs)}`);
  }
  const send = (args) => Promise.resolve().then(() => (typeof host === 'function' ? host(args) : command.call(host, args)));
  return Object.freeze({
    key,
    instance,
    intervalMs,
    ttlMs,
    [FLEET]: Object.freeze({
      /** Writes this process's document: one command. */
      publish: (doc) => send(['HSET', key, instance, doc]),
      /** Every instance's [field, document] pairs. */
      read: async () => pairsOf(await send(['HGETALL', key])),
      /** Deletes fields the core found expired (at most FORGET_AT_ONCE at a time). */
      forget: (fields) => (fields.length === 0 ? Promise.resolve() : send(['HDEL', key, ...fields.slice(0, FORGET_AT_ONCE)])),
    }),
  });
}
