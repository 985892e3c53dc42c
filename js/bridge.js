// The bridge as the wasm imports it (src/js/bridge.rs: `raw_module = "../bridge.js"`,
// `js_namespace = bridge`): the namespace of bridge/functions.js. Through a namespace, each
// function is an entry of the glue's one import object, so wasm-opt can shorten every import
// name and the single module name (one module name for all imports: 2 KB less gzipped wasm).
import * as bridge from './bridge/functions.js';

export { bridge };
