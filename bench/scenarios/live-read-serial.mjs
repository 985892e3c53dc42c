// read at stage 'live' (TestData flag), read execution 'serial'; trivial async origins.
import { cutoverMigration, ldMigration } from '../lib/migration.mjs';

const config = { stage: 'live', order: 'serial', op: 'read' };
export const meta = {
  unit: 'µs/op',
  note: "stage 'live' from an LD TestData flag for both; cutover via launchDarklyClient(real LD client), LD via createMigration (LDSerialExecution(Fixed)); origins async (p) => p (LD: LDMigrationSuccess(p)); comparison a === b (checkRatio 1)",
};
export const cutover = () => cutoverMigration(config);
export const launchdarkly = () => ldMigration(config);
