// The record (src/js/record.rs): the wasm's numbers for calls wider than six arguments, as a
// Float64Array over wasm memory, asked for again when memory has grown (the old view then has
// length 0).
import { recordView } from '../wasm/cutover.js';

/** @type {Float64Array | undefined} */
let view;

/** @returns {Float64Array} */
export function record() {
  if (view === undefined || view.length === 0) view = recordView();
  return view;
}
