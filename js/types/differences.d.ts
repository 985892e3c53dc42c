// Differences: `sameStructure`, the structural comparison computed by cutover's core, and
// `sameResponse`, the comparison of two fetch Responses built on it (HTTP shadowing).

/** `sameStructure()`'s options. */
export interface SameStructureOptions {
  /**
   * JSON Pointers (RFC 6901) of the positions not to compare: a pattern covers the value it
   * matches and everything under it, and a segment `*` matches any one key or index (`'/items/*'`
   * ignores every item, and a pattern `/items/` `*` `/etag` every item's `etag`). `''` ignores
   * everything. A pattern that is not a JSON Pointer throws a
   * `TypeError` naming it.
   */
  ignore?: readonly string[];
}

/**
 * A consistency comparison, `(oldValue, newValue) => boolean`, as `sameStructure()` makes it:
 * usable anywhere a comparison is, and run by the core itself when passed to
 * `MigratorBuilder#read`.
 */
export type StructuralComparison = (oldValue: unknown, newValue: unknown) => boolean;

/**
 * A comparison computed by cutover's core: `true` when the two values have the same structure.
 *
 * - Plain objects (prototype `Object.prototype` or `null`) compare by their own enumerable
 *   string keys and values, whatever the keys' order (a key whose value is `undefined` is still a
 *   key); arrays by index (a hole reads as `undefined`); primitives by value, `NaN` equal to
 *   `NaN` and `+0` to `-0`; `Date`s by time; anything else (class instances, functions, `Map`s,
 *   symbols) by identity.
 * - Cycles are safe. Values are read by reference, never copied, and every read is guarded: a
 *   getter that throws or a revoked proxy makes the answer `false`, never a throw. A getter may
 *   run comparisons of its own (a migrator's read included): each answers as it would alone.
 * - Bounded: at most 10,000 nodes per value and 64 levels deep; a pair too large or too deep to
 *   compare within those bounds answers `false` (cutover cannot vouch for what it did not
 *   compare).
 *
 * @throws TypeError when `options` is not an object, names an unknown option, or `ignore` is not
 * an array of JSON Pointers.
 * @example
 * ```ts
 * const comparison = sameStructure({ ignore: ['/updatedAt', '/etags/*'] });
 * comparison({ id: 1, updatedAt: 5 }, { updatedAt: 6, id: 1 }); // true
 * const migrator = new MigratorBuilder(fixedStage('shadow'))
 *   .read(readOld, readNew, comparison)
 *   .write(writeOld, writeNew)
 *   .build();
 * ```
 */
export function sameStructure(options?: SameStructureOptions): StructuralComparison;

/** `sameResponse()`'s options. */
export interface SameResponseOptions {
  /**
   * The headers compared, by name (any case; compared as lower-case names, an absent header as
   * `null`). Default: none. A name that is not an HTTP token throws a `TypeError` naming it.
   */
  headers?: readonly string[];
  /**
   * JSON Pointers of the positions not to compare, as `sameStructure`'s `ignore`, over the
   * snapshot `{ status, headers, body }`: `'/body/requestId'`, `'/headers/date'`, or a
   * pattern `/body/items/` `*` `/etag` for every item's `etag`.
   */
  ignore?: readonly string[];
  /**
   * The most bytes of a body read, default 1 MiB (1,048,576): a longer body is not read to its
   * end, and its read records no consistency value. A positive integer, else a `RangeError`.
   */
  maxBodyBytes?: number;
}

/**
 * What `sameResponse()` compares of a fetch `Response`, read from a clone of it: the caller's
 * Response keeps its body unread.
 */
export interface ResponseSnapshot {
  status: number;
  /** The headers `headers` named, by lower-case name; `null` when absent. */
  headers: Record<string, string | null>;
  /**
   * The body: parsed as JSON when the content type is JSON (`application/json`, `text/json`,
   * `…+json`) and it parses, else its text (UTF-8). `''` when there is none.
   */
  body: unknown;
}

/**
 * A comparison of two fetch `Response`s, for HTTP shadowing (an old and a new API behind a
 * Worker): their status, the listed headers and their bodies, as {@link ResponseSnapshot}s
 * compared by `sameStructure`'s rules with `ignore`.
 *
 * Passed to `MigratorBuilder#read`, each origin's `Response` is snapshotted when its origin
 * settles: the caller gets the authoritative `Response` with its body unread, and the comparison
 * runs once both bodies have been read, after the read has resolved — as the operation's
 * background part, in foreground mode too: `settled()` and `waitUntil` wait for it, and the
 * one `migration_op` event, sent after it, carries `consistent`. A body longer than
 * `maxBodyBytes`, one that fails, or bodies not read within `originTimeout` record no
 * consistency value (logged at warn level). A value that is not a `Response` is compared as
 * it is. With `mismatches()`, the differences of two JSON APIs come as `/body/items/3/price`
 * (normalised with `*` for the index in `stats().read.consistency.paths`), and a mismatch's `old` and
 * `new` are the snapshots.
 *
 * Called directly, the function compares two values that are not Responses (two snapshots);
 * given a `Response` it throws a `TypeError`, as its body can only be read asynchronously.
 *
 * @throws TypeError when `options` is not an object, names an unknown option, `headers` is not
 * an array of header names or `ignore` not an array of JSON Pointers; RangeError when
 * `maxBodyBytes` is not a positive integer.
 * @example
 * ```ts
 * const migrator = new MigratorBuilder(fixedStage('shadow'))
 *   .read(
 *     () => fetch('https://old.example/items'),
 *     () => fetch('https://new.example/items'),
 *     sameResponse({ headers: ['content-type'], ignore: ['/body/requestId'] }),
 *   )
 *   .write(writeOld, writeNew)
 *   .background({ waitUntil: (p) => ctx.waitUntil(p) })
 *   .build();
 * const { value } = await migrator.read('items-api', context, 'off');
 * return value as Response; // its body unread
 * ```
 */
export function sameResponse(options?: SameResponseOptions): StructuralComparison;
