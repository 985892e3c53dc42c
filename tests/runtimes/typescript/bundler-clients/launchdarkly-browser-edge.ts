// LaunchDarkly's browser SDK (@launchdarkly/js-client-sdk 4.x) through launchDarklyBrowserClient,
// and its edge SDK (@launchdarkly/cloudflare-server-sdk 2.x) through launchDarklyClient, against
// the SDKs' own types.
import { createClient } from '@launchdarkly/js-client-sdk';
import { init } from '@launchdarkly/cloudflare-server-sdk';
import { MigratorBuilder, launchDarklyBrowserClient, launchDarklyClient, type MigrationOpEvent } from 'cutover';

const browserClient = createClient('client-side-id', { kind: 'user', key: 'u1' }, { streaming: false });
const events: MigrationOpEvent[] = [];
export const browserMigrator = new MigratorBuilder(launchDarklyBrowserClient(browserClient, { events: (e) => events.push(e), samplingRatio: 10, checkRatio: 2 }))
  .read(async (q: string) => [q], async (q: string) => [q])
  .write(async () => 1, async () => 1)
  .build();
export const read = browserMigrator.read('search-migration', browserClient.getContext() ?? { kind: 'user', key: 'u1' }, 'off', 'shoes');

declare const kv: Parameters<typeof init>[1];
export const edgeClient = launchDarklyClient(init('client-side-id', kv, { sendEvents: true }));

// @ts-expect-error the browser SDK's client has no migrationVariation/trackMigration: launchDarklyClient refuses it
launchDarklyClient(browserClient);
// @ts-expect-error events is a callback, not a URL
launchDarklyBrowserClient(browserClient, { events: '/migration-events' });
