// cutover/web: the same API, with explicit initialisation for bundlers and hosts without
// top-level await. Call `await init()` (or `initSync({ module })`) once before anything else.
export * from './index.mjs';

/** Where the wasm comes from: a URL to fetch, a response, its bytes, or a compiled module. */
export type WasmSource = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/**
 * Fetches (or takes) the wasm and initialises cutover; idempotent. Without an argument the wasm
 * is fetched from beside the module (`cutover_bg.wasm`).
 *
 * @example
 * ```ts
 * import init, { MigratorBuilder, fixedStage } from 'cutover/web';
 *
 * await init();
 * const migrator = new MigratorBuilder(fixedStage('off')).read(() => 1, () => 2).write(() => 1, () => 2).build();
 * ```
 */
export default function init(input?: { module_or_path?: WasmSource | Promise<WasmSource> } | WasmSource): Promise<unknown>;
export { init };

/**
 * Initialises cutover from wasm bytes or a compiled module, synchronously (Cloudflare Workers,
 * Vercel Edge: the wasm imported as a module).
 *
 * @example
 * ```ts
 * import { initSync } from 'cutover/web';
 * import wasm from 'cutover/cutover_bg.wasm';
 *
 * initSync({ module: wasm });
 * ```
 */
export function initSync(input: { module: BufferSource | WebAssembly.Module } | BufferSource | WebAssembly.Module): unknown;
