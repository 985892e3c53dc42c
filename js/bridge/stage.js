// The names the wasm's codes stand for (src/js/codes.rs), told once when the wasm starts
// (`started`, src/js/stage.rs): stage names by `Answer` code, origins and operations by index,
// tracker methods by `TrackerMethod`. Exported as live bindings.

/** @type {Map<unknown, number>} a stage name → its `Answer` code */
export let stageCodes = new Map();
/** @type {string[]} */
export let stageNames = [];
/** @type {string[]} */
export let originNames = [];
/** @type {string[]} */
export let operationNames = [];
/** @type {string[]} */
export let trackerMethods = [];

/**
 * @param {string[]} stages
 * @param {string[]} origins
 * @param {string[]} operations
 * @param {string[]} methods
 */
export function started(stages, origins, operations, methods) {
  stageNames = stages;
  stageCodes = new Map(stages.map((name, code) => [name, code]));
  originNames = origins;
  operationNames = operations;
  trackerMethods = methods;
}
