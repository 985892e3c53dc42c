// openFeatureClient over the real @openfeature/web-sdk (synchronous evaluation) in Chromium.
import init, { MigratorBuilder, openFeatureClient } from 'cutover/web';
import { OpenFeature, InMemoryProvider } from '@openfeature/web-sdk';

class TrackingProvider extends InMemoryProvider {
  tracked = [];
  track(name, context, details) {
    this.tracked.push({ name, details });
  }
}

export async function run() {
  await init();
  const provider = new TrackingProvider({
    'mig-live': { variants: { '3': 'live', off: 'off' }, defaultVariant: '3', disabled: false },
  });
  await OpenFeature.setContext({ targetingKey: 'u1' });
  await OpenFeature.setProviderAndWait(provider);
  const events = [];
  const adapter = openFeatureClient(OpenFeature.getClient());
  const client = { migrationVariation: adapter.migrationVariation, trackMigrationOp: (e) => (events.push(e), adapter.trackMigrationOp(e)) };
  const migrator = new MigratorBuilder(client).read(async () => 'o', async () => 'n', (a, b) => a === b)
    .write(async () => 1, async () => 2).build();
  const live = await migrator.read('mig-live', { kind: 'user', key: 'u1' }, 'off');
  const missing = await migrator.read('mig-missing', { kind: 'user', key: 'u1' }, 'shadow');
  return { live: live.origin, missing: missing.origin, evaluations: events.map((e) => e.evaluation), tracked: provider.tracked };
}
