// LaunchDarkly's Node server SDK as the docs' blocks get it: everything the real SDK exports,
// with an `init` whose client gets its flags from TestData (unless the caller passes its own
// updateProcessor, as docs/STORES.md's createMigration example does), sends no diagnostics and no
// events (but to a loopback eventsUri the block runs itself, as docs/LAUNCHDARKLY.md's), and has
// every other service URL on a closed loopback port, so that nothing leaves the machine even by
// mistake.
import * as sdk from '@launchdarkly/node-server-sdk';
import { docsTestData } from './flags.mjs';

export * from '@launchdarkly/node-server-sdk';

const NOWHERE = 'http://127.0.0.1:9'; // the discard port: nothing listens there
const testData = await docsTestData(sdk.integrations.TestData);

/** Whether a block's `eventsUri` is a local endpoint it runs itself (docs/LAUNCHDARKLY.md). */
const isLocal = (uri) => typeof uri === 'string' && /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(uri);

export function init(sdkKey, options = {}) {
  // Events go to a block's own loopback endpoint when it names one, else nowhere.
  const local = isLocal(options.eventsUri);
  return sdk.init(sdkKey, {
    ...options,
    updateProcessor: options.updateProcessor ?? testData.getFactory(),
    sendEvents: local ? (options.sendEvents ?? true) : false,
    diagnosticOptOut: true,
    baseUri: NOWHERE,
    streamUri: NOWHERE,
    eventsUri: local ? options.eventsUri : NOWHERE,
  });
}
