// read at stage 'shadow' (TestData flag), read execution 'parallel'; trivial async origins.
import { cutoverMigration, ldMigration } from '../lib/migration.mjs';

const config = { stage: 'shadow', order: 'parallel', op: 'read' };
export const meta = {
  unit: 'µs/op',
  note: "stage 'shadow' from an LD TestData flag for both; cutover via launchDarklyClient(real LD client), LD via createMigration (LDConcurrentExecution); origins async (p) => p (LD: LDMigrationSuccess(p)); comparison a === b (checkRatio 1)",
};
export const cutover = () => cutoverMigration(config);
export const launchdarkly = () => ldMigration(config);
