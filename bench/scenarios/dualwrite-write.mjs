// write at stage 'dualwrite' (TestData flag), read execution 'parallel'; trivial async origins.
import { migrationScenario } from '../lib/migration.mjs';

export const { meta, cutover, launchdarkly, floor } = migrationScenario({ stage: 'dualwrite', order: 'parallel', op: 'write' });
