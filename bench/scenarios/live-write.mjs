// write at stage 'live' (TestData flag), read execution 'parallel'; trivial async origins.
import { migrationScenario } from '../lib/migration.mjs';

export const { meta, cutover, launchdarkly, floor } = migrationScenario({ stage: 'live', order: 'parallel', op: 'write' });
