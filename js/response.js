// HTTP shadowing: `sameResponse`, a comparison of two fetch Responses that the Rust core runs
// (src/diff/response.rs its options, src/js/same_response.rs the binding). Passed to
// `MigratorBuilder#read`, each origin's Response is snapshotted as it settles (js/bridge/
// same_response.js) and the snapshots are compared once both bodies are read, after the caller's
// read has resolved; the caller gets its Response with the body unread.
import * as wasm from './wasm/cutover.js';
import { OptionsOf, TapeStatus } from './wasm/cutover.js';
import { isResponse } from './bridge/same_response.js';
import { flatten } from './bridge/tape.js';
import { keepNative } from './diff.js';
import { describe, read } from './util.js';

/** The functions `sameResponse` returned (for createMigration's `check`). */
const made = new WeakSet();

/** Whether `check` is a function `sameResponse` returned. */
export const isSameResponse = (check) => made.has(check);

/** A comparison of Responses as `{ status, headers, body }`, with sameStructure's `ignore`. */
export function sameResponse(options) {
  let headers, ignore, maxBodyBytes;
  if (options !== undefined) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`sameResponse: options must be an object, ${describe(options)}`);
    }
    wasm.checkOptionNames(OptionsOf.SameResponse, options);
    headers = read(options, 'headers');
    ignore = read(options, 'ignore');
    maxBodyBytes = read(options, 'maxBodyBytes');
  }
  const native = wasm.WasmSameStructure.forResponses(headers, ignore, maxBodyBytes);
  const { maxNodes, maxDepth } = native;
  const written = TapeStatus.Written;
  // Called by itself (or by a tracker, with two snapshots), it compares what it is given; a
  // Response's body can only be read asynchronously, which a migrator does first.
  const comparison = (oldValue, newValue) => {
    if (isResponse(oldValue) || isResponse(newValue)) {
      throw new TypeError(
        'sameResponse: a Response is compared by a migrator, which reads its body first: pass this comparison to MigratorBuilder#read',
      );
    }
    return flatten(oldValue, newValue, maxNodes, maxDepth, false) === written && native.compareTape();
  };
  keepNative(comparison, native);
  made.add(comparison);
  return comparison;
}
