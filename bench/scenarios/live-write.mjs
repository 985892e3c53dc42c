// write at stage 'live' (TestData flag), read execution 'parallel'; trivial async origins.
import { cutoverMigration, ldMigration } from '../lib/migration.mjs';

const config = { stage: 'live', order: 'parallel', op: 'write' };
export const meta = {
  unit: 'µs/op',
  note: "stage 'live' from an LD TestData flag for both; cutover via launchDarklyClient(real LD client), LD via createMigration (LDConcurrentExecution); origins async (p) => p (LD: LDMigrationSuccess(p))",
};
export const cutover = () => cutoverMigration(config);
export const launchdarkly = () => ldMigration(config);
