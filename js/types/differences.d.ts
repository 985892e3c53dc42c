// Differences: `sameStructure`, the structural comparison computed by cutover's core.

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
 *   getter that throws or a revoked proxy makes the answer `false`, never a throw.
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
