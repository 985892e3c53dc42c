// A Big Segments lookup's answer, made for the wasm (src/js/store.rs).

/**
 * A frozen `{ membership, status }`. An object literal: V8 gives it room for exactly its two
 * fields (40 B in Node 20), where an object made empty and given them one by one has room for
 * four (56 B); the cache keeps one per cached context (issue 32). One crossing, not four.
 * @param {unknown} membership
 * @param {unknown} status
 * @returns {unknown}
 */
export function answerObject(membership, status) {
  return Object.freeze({ membership, status });
}
