// cutover/migrations from CommonJS (require condition: dist/migrations/migrations.d.cts).
import migrations = require('cutover/migrations');

export const migrator = new migrations.MigratorBuilder<number, string>(migrations.fixedStage('live'))
  .read(async (n) => String(n ?? 0), () => migrations.failure(new Error('new store down')))
  .write(() => 'w', () => 'w')
  .build();
// @ts-expect-error the relay, the server half, is not in cutover/migrations
export const relay = migrations.migrationEventRelay;
