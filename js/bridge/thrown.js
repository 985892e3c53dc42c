// The value a caller's method threw, left for the wasm by the bridge call that answered
// `Threw` and taken at once (src/js/bridge.rs says why it is not returned).

let thrown;

/** @param {unknown} error */
export function keepThrown(error) {
  thrown = error;
}

/** @returns {unknown} */
export function takeThrown() {
  const error = thrown;
  thrown = undefined;
  return error;
}
