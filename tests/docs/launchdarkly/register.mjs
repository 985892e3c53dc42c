// Preloaded into every block's process (`node --import`): LaunchDarkly's SDK, when a block
// imports it, is offline-sdk.mjs, the real SDK whose `init` serves flags from TestData and never
// opens a connection. The docs show `init(sdkKey, …)` as a reader writes it; there is no
// network here, and the docs' tests must not depend on LaunchDarkly's service.
import { register } from 'node:module';

register('./resolve-hook.mjs', import.meta.url);
