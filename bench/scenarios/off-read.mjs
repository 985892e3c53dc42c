// read at stage 'off' (TestData flag), read execution 'parallel'; trivial async origins.
import { cutoverMigration, ldMigration, ldSdkFloor } from '../lib/migration.mjs';

const config = { stage: 'off', order: 'parallel', op: 'read' };
export const meta = {
  unit: 'µs/op',
  note: "stage 'off' from an LD TestData flag for both; cutover via launchDarklyClient(real LD client), LD via createMigration (LDConcurrentExecution); origins async (p) => p (LD: LDMigrationSuccess(p))",
  floor: "LD's own SDK calls per operation through launchDarklyClient: migrationVariation, the tracker's op/invoked/latency(/consistency) calls for this stage, createEvent, trackMigration; no origins, no orchestration",
};
export const cutover = () => cutoverMigration(config);
export const launchdarkly = () => ldMigration(config);
// The calls into LD's SDK alone (see ldSdkFloor): no implementation through launchDarklyClient can go below.
export const floor = () => ldSdkFloor(config);
