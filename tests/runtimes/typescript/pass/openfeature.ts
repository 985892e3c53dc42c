// openFeatureClient over an object shaped like OpenFeature's server Client (structural types only).
import { MigratorBuilder, openFeatureClient, type MigrationClient, type OpenFeatureMigrationDetails } from 'cutover';

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
