// LaunchDarkly's Node server SDK as the docs' blocks get it: everything the real SDK exports,
// with an `init` whose client gets its flags from TestData (unless the caller passes its own
// updateProcessor, as docs/STORES.md's createMigration example does), sends no events and no
// diagnostics, and has every service URL on a closed loopback port, so that nothing leaves the
// machine even by mistake.
import * as sdk from '@launchdarkly/node-server-sdk';
import { docsTestData } from './flags.mjs';

export * from '@launchdarkly/node-server-sdk';

const NOWHERE = 'http://127.0.0.1:9'; // the discard port: nothing listens there
const testData = await docsTestData(sdk.integrations.TestData);

export function init(sdkKey, options = {}) {
  return sdk.init(sdkKey, {
    ...options,
    updateProcessor: options.updateProcessor ?? testData.getFactory(),
    sendEvents: false,
    diagnosticOptOut: true,
    baseUri: NOWHERE,
    streamUri: NOWHERE,
    eventsUri: NOWHERE,
  });
}
