// Big Segments: stores, the store manager and its status, and the stores cutover's core runs.
import type { BigSegmentsMeterLike, Logger } from './common.js';
import type { DynamoDbHost, RedisCommand, RedisHost } from './hosts.js';

/** What a store says about its data. */
export interface BigSegmentStoreMetadata {
  /** Epoch ms of the store's last synchronization. */
  lastUpToDate?: number | null;
}

/** Segment ref (`key.gN`) → included (true) or excluded (false); over 10,000 entries: a store error. */
export type StoreMembership = Record<string, boolean>;

/**
 * A store written in JavaScript: `getMetadata()` and `getMembership(contextHash)`.
 * LaunchDarkly's JS stores (`getUserMembership`) plug in as they are.
 */
export type BigSegmentStore = {
  /** The store's metadata (when it last synchronized). */
  getMetadata(): Promise<BigSegmentStoreMetadata | null | undefined>;
  /** Releases the store's resources, at the manager's close(). */
  close?(): Promise<void> | void;
} & (
  | {
      /** The memberships of the context whose key hashes to `contextHash`. */
      getMembership(contextHash: string): Promise<StoreMembership | null | undefined>;
    }
  | {
      /** LaunchDarkly's name for `getMembership`, accepted as an alias. */
      getUserMembership(contextHash: string): Promise<StoreMembership | null | undefined>;
    }
);

/** A store cutover's core runs (`redisBigSegmentStore`, `dynamoDbBigSegmentStore`), frozen. */
export interface CoreBigSegmentStore {
  /** `lastUpToDate`: epoch ms of the last synchronization, null when never synchronized. */
  getMetadata(): Promise<{ lastUpToDate: number | null }>;
  /** A null-prototype map of the context's memberships, or null when the store has none. */
  getMembership(contextHash: string): Promise<StoreMembership | null>;
  /** Does nothing: the caller closes its own Redis or DynamoDB client. */
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
  logger?: Logger;
  /** Records `cutover.big_segments.*` (lookups, cache hits, store queries and their duration, the status gauge). */
  meter?: BigSegmentsMeterLike;
}

/** The status of a lookup's answer. */
export type BigSegmentsStatus = 'HEALTHY' | 'STALE' | 'STORE_ERROR' | 'NOT_CONFIGURED';

/** The store's status. */
export interface BigSegmentStoreStatus {
  available: boolean;
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
  /** Calls `listener` with the new status whenever `available` or `stale` changes. */
  addListener(listener: (status: BigSegmentStoreStatus) => void): void;
  /** Removes one registration of `listener`. */
  removeListener(listener: (status: BigSegmentStoreStatus) => void): void;
}

/** A manager's running counts. */
export interface BigSegmentsManagerStats {
  lookups: number;
  cacheHits: number;
  cacheMisses: number;
  /** Misses that joined a store query already in flight for the same context. */
  coalescedLookups: number;
  membershipQueries: number;
  membershipErrors: number;
  statusPolls: number;
  statusErrors: number;
}

/** Memberships of contexts in Big Segments, from a store, cached, with the store's status. */
export class BigSegmentStoreManager {
  /** @throws RangeError / TypeError naming the invalid option. */
  constructor(options: BigSegmentsOptions);
  /** Background status polling every statusPollIntervalMs; idempotent; never keeps Node alive. */
  start(): void;
  /** The context's memberships and the store's status; frozen, and shared by warm lookups. */
  getUserMembership(contextKey: string): Promise<Readonly<{ membership: Membership | null; status: BigSegmentsStatus }>>;
  readonly statusProvider: BigSegmentStoreStatusProvider;
  /** Running counts since construction. */
  stats(): BigSegmentsManagerStats;
  /** Stops polling, then awaits the store's close(); idempotent; later lookups reject. */
  close(): Promise<void>;
}

/**
 * base64(SHA-256(UTF-8 key)), padded: the key stores use.
 * @example
 * ```ts
 * const hash = hashContextKey('user-123');
 * ```
 */
export function hashContextKey(contextKey: string): string;

/**
 * `${segmentKey}.g${generation}`: a segment's name in a membership.
 * @example
 * ```ts
 * const inBeta = membership?.[bigSegmentRef('beta-testers', 3)] === true;
 * ```
 */
export function bigSegmentRef(segmentKey: string, generation: number): string;

/**
 * A Big Segment store over Redis in the Relay Proxy's schema; `prefix` defaults to 'launchdarkly'
 * (also when ''). One round trip per membership query.
 *
 * @throws TypeError when `host` is neither a function nor an object with `command`.
 * @example
 * ```ts
 * const membership = await redisBigSegmentStore(nodeRedisHost(redis)).getMembership(hashContextKey('u1'));
 * ```
 */
export function redisBigSegmentStore(host: RedisHost | RedisCommand, options?: { prefix?: string }): CoreBigSegmentStore;

/**
 * A Big Segment store over a DynamoDB table in the Relay Proxy's schema (docs/STORES.md):
 * one consistent GetItem per query and per metadata read; `prefix` (none by default) is
 * prepended as `prefix:` to the namespaces. An answer of another shape fails the query.
 *
 * @throws TypeError / RangeError naming a bad `host`, `options.tableName` or `options.prefix`.
 * @example
 * ```ts
 * const store = dynamoDbBigSegmentStore(awsDynamoDbHost(client, GetItemCommand), { tableName: 'ld-big-segments' });
 * ```
 */
export function dynamoDbBigSegmentStore(host: DynamoDbHost, options: { tableName: string; prefix?: string }): CoreBigSegmentStore;
