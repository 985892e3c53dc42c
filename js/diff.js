// Differences: `sameStructure`, a comparison the Rust core computes (src/diff; the binding is
// src/js/same_structure.rs). Each call flattens the pair onto the wasm's tape in one loop
// (js/bridge/tape.js) and asks the wasm once; passed to `MigratorBuilder#read`, the migrator
// runs it without calling back into this function (`nativeComparison`).
import * as wasm from './wasm/cutover.js';
import { OptionsOf, TapeStatus } from './wasm/cutover.js';
import { flatten } from './bridge/tape.js';
import { describe, read } from './util.js';

/** The core of each function `sameStructure` (or `sameResponse`) returned, for `MigratorBuilder#read`. */
const natives = new WeakMap();

/** Keeps `native`, the wasm core of `comparison`, for `nativeComparison` (js/response.js). */
export function keepNative(comparison, native) {
  natives.set(comparison, native);
}

/** A comparison of structures: plain objects, arrays and primitives by value, the rest by identity. */
export function sameStructure(options) {
  let ignore;
  if (options !== undefined) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`sameStructure: options must be an object, ${describe(options)}`);
    }
    wasm.checkOptionNames(OptionsOf.SameStructure, options);
    ignore = read(options, 'ignore');
  }
  const native = new wasm.WasmSameStructure(ignore);
  const { maxNodes, maxDepth } = native;
  const written = TapeStatus.Written;
  const comparison = (oldValue, newValue) =>
    flatten(oldValue, newValue, maxNodes, maxDepth, false) === written && native.compareTape();
  natives.set(comparison, native);
  return comparison;
}

/** The wasm core of a function `sameStructure` or `sameResponse` returned; undefined for any other value. */
export function nativeComparison(comparison) {
  return typeof comparison === 'function' ? natives.get(comparison) : undefined;
}
