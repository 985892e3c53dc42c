// cutover/web: the same API, with explicit initialisation for bundlers and hosts without
// top-level await. Call `await init()` (or `initSync({ module })`) once before anything else.
export * from './index';
export default function init(input?: { module_or_path?: RequestInfo | URL | Response | BufferSource | WebAssembly.Module } | RequestInfo | URL | Response | BufferSource | WebAssembly.Module): Promise<unknown>;
export function initSync(input: { module: BufferSource | WebAssembly.Module } | BufferSource | WebAssembly.Module): unknown;
