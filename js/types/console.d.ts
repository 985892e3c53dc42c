// migrationConsole and redisFleet: a service's migrations, live in a browser, for one process or a
// whole fleet through Redis (API.md §2d).
import type { BigSegmentStoreManager } from './big-segments.js';
import type { RedisCommand, RedisHost } from './hosts.js';

/** Anything with the statistics of a {@link Migrator} (`stats()`, and `mismatches()` when it has them). */
export interface ConsoleMigrator {
  /** The running statistics (`Migrator#stats()`), read once a second and at each snapshot. */
  stats(): object;
  /** The kept mismatches (`Migrator#mismatches()`); the newest 10 are shown. */
  mismatches?(): readonly object[];
}

/** `migrationConsole()`'s options. */
export interface MigrationConsoleOptions {
  /** Display name → migrator (at most 64). */
  migrators?: Record<string, ConsoleMigrator>;
  /** Display name → Big Segments manager (at most 64). */
  managers?: Record<string, Pick<BigSegmentStoreManager, 'stats' | 'statusProvider'>>;
  /**
   * Asked for every request, the page's files and each stream included: only `true` (or a
   * promise of it) lets it in; anything else, or a throw, answers 401 with no data. Required:
   * write `() => true` to let everyone in.
   */
  authorize: (request: Request) => boolean | Promise<boolean>;
  /** Where the console lives: a path of plain segments starting with '/'. Default '/cutover'. */
  basePath?: string;
  /** Show mismatches' values, their differences' old/new values and context keys. Default false: redacted. */
  showValues?: boolean;
  /** The fleet this process publishes to and shows (from {@link redisFleet}). */
  fleet?: FleetStore;
  /** Seconds of history the charts show, one sample a second per series: 10 to 3600, default 900. */
  historySeconds?: number;
  /** Live streams at once (server-sent events): 1 to 1000, default 16; one more answers 503. */
  maxStreams?: number;
}

/** The handler {@link migrationConsole} returns. */
export interface MigrationConsole {
  /** The fetch-style handler: a path outside `basePath` answers 404. Never rejects. */
  (request: Request): Promise<Response>;
  /** Node's http, Express and Connect: a path outside `basePath` goes to `next()` (404 without one). */
  node(req: unknown, res: unknown, next?: () => void): void;
  /** Stops sampling and publishing (this process's fleet entry is deleted) and ends open streams; later requests answer 503. */
  close(): void;
}

/**
 * A read-only web console of this service's migrators and Big Segments managers, live, as a
 * fetch-style handler with `.node()`:
 * - `GET <basePath>/` the page; `/console.js` and `/console.css` its files (no inline script or
 *   style, nothing from another origin); `/api/snapshot` the snapshot as JSON; `/api/stream`
 *   server-sent events, one snapshot a second and a heartbeat;
 * - any other path under `basePath` → 404; a method other than GET or HEAD → 405;
 * - every response carries `Content-Security-Policy: default-src 'self'; frame-ancestors 'none'…`,
 *   `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer` and `Cache-Control: no-store`.
 *
 * It samples once a second (its timers never keep a process alive; in a Worker, where a global
 * scope may not start timers, from the first request on).
 *
 * @throws TypeError when `authorize` is not a function, an option has the wrong type or is unknown,
 * or `basePath` is not a plain path starting with '/'.
 * @throws RangeError when `historySeconds`, `maxStreams` or the number of migrators or managers is out of range.
 * @example
 * ```ts
 * const cutoverConsole = migrationConsole({ migrators: { orders: migrator }, authorize: (request) => isAdmin(request) });
 * http.createServer((req, res) => cutoverConsole.node(req, res, () => app(req, res)));
 * ```
 */
export function migrationConsole(options: MigrationConsoleOptions): MigrationConsole;

/** Where a fleet's processes publish and read their snapshots; made by {@link redisFleet}. */
export interface FleetStore {
  /** The Redis hash that holds one field per process. */
  readonly key: string;
  /** This process's field. */
  readonly instance: string;
  /** How often this process publishes, in ms. */
  readonly intervalMs: number;
  /** How long an instance that stopped publishing is still shown, in ms. */
  readonly ttlMs: number;
}

/** `redisFleet()`'s options. */
export interface RedisFleetOptions {
  /** The hash's key. Default 'cutover:fleet'. */
  key?: string;
  /** This process's name in the fleet. Default its pid and 8 random characters. */
  instance?: string;
  /** How often this process publishes (one HSET), in ms: at least 100, default 5000. */
  intervalMs?: number;
  /** An instance silent for longer is gone (and its field deleted), in ms: more than intervalMs, default 30000. */
  ttlMs?: number;
}

/**
 * A fleet in Redis for {@link migrationConsole}: each process writes a compact snapshot (counts,
 * guard states, mismatch paths and its latency histograms; never a value or a context key) into
 * one field of one hash, with one command per interval (`HSET`); the console reads the hash
 * (`HGETALL`) and shows the fleet's totals, with percentiles of the merged histograms (not
 * averages), and each instance. At most 256 instances are shown. Commands of Redis 2.0; any host
 * of {@link nodeRedisHost}, {@link ioredisHost}, {@link upstashHost}, or a command function.
 *
 * @throws TypeError when `host` is neither a host nor a function, or an option has the wrong type.
 * @throws RangeError when `intervalMs` or `ttlMs` is out of range, or `ttlMs` is not longer than `intervalMs`.
 */
export function redisFleet(host: RedisHost | RedisCommand, options?: RedisFleetOptions): FleetStore;
