// Big Segments: stores, the store manager and its status, and the stores cutover's core runs.
import type { BigSegmentsMeterLike, Logger } from './common.js';
import type { DynamoDbHost, RedisCommand, RedisHost } from './hosts.js';

/** What a store says about its data. */
export interface BigSegmentStoreMetadata {
  /** Epoch ms of the store's last synchronization. */
  lastUpToDate?: number | null;
}

/** Segment ref (`key.gN`) → included (true) or excluded (false), as a store answers it. */
export type StoreMembership = Record<string, boolean>;

/**
 * A store written in JavaScript: `getMetadata()` and `getMembership(contextHash)`.
 * LaunchDarkly's JS stores (`getUserMembership`) plug in as they are.
 */
export type BigSegmentStore = {
  /** The store's metadata (null or undefined: none). */
  getMetadata(): Promise<BigSegmentStoreMetadata | null | undefined>;
  /** Awaited by `BigSegmentStoreManager#close()`. */
  close?(): Promise<void> | void;
} & (
  | {
      /** The memberships of the context whose key hashes to `contextHash` (null or undefined: none). */
      getMembership(contextHash: string): Promise<StoreMembership | null | undefined>;
    }
  | {
      /** LaunchDarkly's name for `getMembership`. */
      getUserMembership(contextHash: string): Promise<StoreMembership | null | undefined>;
    }
);

/**
 * A store cutover's core runs (`redisBigSegmentStore`, `dynamoDbBigSegmentStore`): a frozen
 * object whose methods answer what the store holds. A manager or `launchDarklyBigSegmentStore`
 * over it queries the core directly.
 */
export interface CoreBigSegmentStore {
  /** `lastUpToDate`: epoch ms of the last synchronization, null when never synchronized. */
  getMetadata(): Promise<{ lastUpToDate: number | null }>;
  /** A null-prototype map of the context's memberships, or null when the store has none. */
  getMembership(contextHash: string): Promise<StoreMembership | null>;
  /** Does nothing: the client belongs to the caller. */
  close(): void;
}

/** The options of `new BigSegmentStoreManager(options)`. */
export interface BigSegmentsOptions {
  /** Absent or null: every lookup is NOT_CONFIGURED. */
  store?: BigSegmentStore | null;
  /** Default 1000; a positive integer. */
  contextCacheSize?: number;
  /** Default 5000; absolute TTL from insertion. */
  contextCacheTimeMs?: number;
  /** Default 5000. */
  statusPollIntervalMs?: number;
  /** Default 120000. */
  staleAfterMs?: number;
  /** Default 10000; a slower store call counts as a store error. */
  queryTimeoutMs?: number;
  /** Default: console, level 'warn'. */
  logger?: Logger;
  /** Records `cutover.big_segments.*` (lookups, cache hits, store queries and their duration, the status gauge). */
  meter?: BigSegmentsMeterLike;
}

/** The status of a lookup's answer. */
export type BigSegmentsStatus = 'HEALTHY' | 'STALE' | 'STORE_ERROR' | 'NOT_CONFIGURED';

/** The store's status. */
export interface BigSegmentStoreStatus {
  /** The last metadata read succeeded. */
  available: boolean;
  /** The data is older than `staleAfterMs`. */
  stale: boolean;
}

/** Segment ref (`key.gN`) → included (true) or excluded (false). Null-prototype and frozen. */
export type Membership = Readonly<Record<string, boolean>>;

/** The store's status, polled. */
export interface BigSegmentStoreStatusProvider {
  /** The last status, or polls now if there is none. */
  getStatus(): Promise<BigSegmentStoreStatus>;
  /** The last status (undefined before the first poll). */
  readonly lastStatus: BigSegmentStoreStatus | undefined;
  /** Calls `listener` with each status that differs from the one before. */
  addListener(listener: (status: BigSegmentStoreStatus) => void): void;
  /** Removes a listener added once (one of several additions of the same function). */
  removeListener(listener: (status: BigSegmentStoreStatus) => void): void;
}

/** A manager's running counts. */
export interface BigSegmentsManagerStats {
  /** Lookups. */
  lookups: number;
  /** Lookups answered from the cache. */
  cacheHits: number;
  /** Lookups that were not. */
  cacheMisses: number;
  /** Misses that joined a store query already in flight for the same context. */
  coalescedLookups: number;
  /** Membership queries sent to the store. */
  membershipQueries: number;
  /** Those that failed. */
  membershipErrors: number;
  /** Status polls. */
  statusPolls: number;
  /** Those that failed. */
  statusErrors: number;
}

/** Memberships of contexts in Big Segments, from a store, cached, with the store's status. */
export class BigSegmentStoreManager {
  /** @throws RangeError / TypeError naming the invalid option. */
  constructor(options: BigSegmentsOptions);
  /** Background status polling every statusPollIntervalMs; idempotent; never keeps Node alive. */
  start(): void;
  /**
   * The context's memberships and the store's status. The answer is frozen, and a warm lookup
   * may hand out the same answer object again — and the same resolved promise of it. The
   * store call of a miss runs in the caller's async context (a query shared by concurrent
   * misses, in the first caller's).
   */
  getUserMembership(contextKey: string): Promise<Readonly<{ membership: Membership | null; status: BigSegmentsStatus }>>;
  /** The store's status. */
  readonly statusProvider: BigSegmentStoreStatusProvider;
  /** Running counts since construction. */
  stats(): BigSegmentsManagerStats;
  /** Stops polling, then awaits the store's close(); idempotent; later lookups reject. */
  close(): Promise<void>;
}

/**
 * base64(SHA-256(UTF-8 key)), padded: the key stores use.
 *
 * @example
 * ```ts
 * import { hashContextKey } from 'cutover';
 *
 * console.log(hashContextKey('user-123')); // 44 characters of base64
 * ```
 */
export function hashContextKey(contextKey: string): string;

/**
 * `${segmentKey}.g${generation}`: the name a membership gives a segment.
 *
 * @example
 * ```ts
 * import { bigSegmentRef } from 'cutover';
 *
 * console.log(bigSegmentRef('beta-testers', 3)); // 'beta-testers.g3'
 * ```
 */
export function bigSegmentRef(segmentKey: string, generation: number): string;

/**
 * A Big Segment store over Redis as LaunchDarkly's Relay Proxy writes it. `prefix` defaults to
 * 'launchdarkly' (also when ''). One round trip per membership query.
 *
 * @throws TypeError when `host` is neither a function nor an object with `command`.
 * @example
 * ```ts
 * import { redisBigSegmentStore, hashContextKey } from 'cutover';
 *
 * const sets = new Map([['launchdarkly:big_segment_include:' + hashContextKey('u1'), ['beta.g1']]]);
 * const store = redisBigSegmentStore(async ([name, key]) => (name === 'SMEMBERS' ? sets.get(key ?? '') ?? [] : null));
 * console.log(await store.getMembership(hashContextKey('u1'))); // { 'beta.g1': true }
 * ```
 */
export function redisBigSegmentStore(host: RedisHost | RedisCommand, options?: { prefix?: string }): CoreBigSegmentStore;

/**
 * A Big Segment store over a DynamoDB table as LaunchDarkly's Relay Proxy writes it: partition
 * key `namespace`, sort key `key`; the metadata item (`big_segments_metadata`, number attribute
 * `synchronizedOn` in epoch ms) and one item per context in namespace `big_segments_user` keyed
 * by the context hash, with the string sets `included` and `excluded` (include wins). `prefix`
 * is prepended as `prefix:` to the namespaces (none by default, also when ''). One GetItem per
 * membership query and per metadata read (consistent reads). An output or attribute of any other
 * shape (an `Item` that is not a map, `included` that is not a string set, …) fails the query.
 *
 * @throws TypeError when `host` has no getItem method, `options.tableName` is not a string or
 *   `options.prefix` is neither a string nor undefined; RangeError when the table name is not a
 *   DynamoDB table name.
 * @example
 * ```ts
 * import { dynamoDbBigSegmentStore, hashContextKey } from 'cutover';
 *
 * const store = dynamoDbBigSegmentStore(
 *   { getItem: async (input) => (input.Key.namespace.S === 'big_segments_user' ? { Item: { included: { SS: ['beta.g1'] } } } : {}) },
 *   { tableName: 'ld-big-segments' },
 * );
 * console.log(await store.getMembership(hashContextKey('u1'))); // { 'beta.g1': true }
 * ```
 */
export function dynamoDbBigSegmentStore(host: DynamoDbHost, options: { tableName: string; prefix?: string }): CoreBigSegmentStore;
