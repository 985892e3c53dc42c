// openFeatureClient over an object shaped like OpenFeature's server Client (structural types only).
import { MigratorBuilder, openFeatureClient, type Context, type MigrationClient, type OpenFeatureMigrationDetails } from 'cutover';

interface EvaluationDetails<T> { flagKey: string; value: T; variant?: string; reason?: string; errorCode?: string;
  flagMetadata: Readonly<Record<string, string | number | boolean>> }
interface ServerClient {
  getStringDetails(flagKey: string, defaultValue: string, context?: Record<string, unknown>): Promise<EvaluationDetails<string>>;
  track(name: string, context?: Record<string, unknown>, details?: Record<string, unknown>): void;
}
declare const client: ServerClient;

const adapted: MigrationClient = openFeatureClient(client);
export const migrator = new MigratorBuilder(adapted).read(() => 1, () => 1).write(() => 2, () => 2).build();
export const details: OpenFeatureMigrationDetails = {
  flagKey: 'f', stage: 'live', operation: 'read', invokedOld: true, invokedNew: false, samplingRatio: 1,
};
// @ts-expect-error a client needs getStringDetails
openFeatureClient({ track() {} });

// OpenFeature evaluation contexts are contexts: targetingKey as the key, single or multi-kind.
export const contexts: Context[] = [
  { targetingKey: 'u1' },
  { targetingKey: 'o1', kind: 'org', plan: 'pro' },
  { kind: 'multi', user: { targetingKey: 'u1' }, org: { targetingKey: 'o1' } },
];
export const read = migrator.read('f', { targetingKey: 'u1', email: 'a@b.c' }, 'off');
// @ts-expect-error a single-kind context needs key or targetingKey
migrator.read('f', { kind: 'org', name: 'N' }, 'off');
// @ts-expect-error targetingKey is a string
migrator.read('f', { targetingKey: 1 }, 'off');
export const withProvider: MigrationClient = openFeatureClient(client, { provider: { runsOn: 'server' } });
// @ts-expect-error options.provider is an object
openFeatureClient(client, { provider: 'p' });
