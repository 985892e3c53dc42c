// read at stage 'off' (TestData flag), read execution 'parallel'; trivial async origins.
import { migrationScenario } from '../lib/migration.mjs';

export const { meta, cutover, launchdarkly, floor } = migrationScenario({ stage: 'off', order: 'parallel', op: 'read' });
