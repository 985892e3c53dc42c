// write at stage 'dualwrite' (TestData flag), read execution 'parallel'; trivial async origins.
import { cutoverMigration, ldMigration } from '../lib/migration.mjs';

const config = { stage: 'dualwrite', order: 'parallel', op: 'write' };
export const meta = {
  unit: 'µs/op',
  note: "stage 'dualwrite' from an LD TestData flag for both; cutover via launchDarklyClient(real LD client), LD via createMigration (LDConcurrentExecution); origins async (p) => p (LD: LDMigrationSuccess(p))",
};
export const cutover = () => cutoverMigration(config);
export const launchdarkly = () => ldMigration(config);
