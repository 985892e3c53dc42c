// A module resolution hook (node:module register): `@launchdarkly/node-server-sdk` imported by
// anything but offline-sdk.mjs itself resolves to offline-sdk.mjs.
const SDK = '@launchdarkly/node-server-sdk';
const OFFLINE = new URL('./offline-sdk.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === SDK && context.parentURL !== OFFLINE) return { url: OFFLINE, shortCircuit: true };
  return nextResolve(specifier, context);
}
