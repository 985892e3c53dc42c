// cutover/web: the same API, with explicit initialisation for bundlers and hosts without
// top-level await. Call `await init()` (or `initSync({ module })`) once before anything else.
export * from './index.mjs';

/** Where the wasm comes from: a URL to fetch, a response, its bytes, or a compiled module. */
export type WasmSource = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/**
 * Fetches (or takes) the wasm and initialises cutover; idempotent.
 * @example
 * ```ts
 * await init(); // then use the API
 * ```
 */
export default function init(input?: { module_or_path?: WasmSource | Promise<WasmSource> } | WasmSource): Promise<unknown>;
export { init };

/**
 * Initialises cutover from wasm bytes or a compiled module, synchronously.
 * @example
 * ```ts
 * initSync({ module: wasmModule }); // workerd, edge-light: the wasm imported as a module
 * ```
 */
export function initSync(input: { module: BufferSource | WebAssembly.Module } | BufferSource | WebAssembly.Module): unknown;
