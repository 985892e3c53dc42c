// read at stage 'shadow' (TestData flag), read execution 'parallel'; trivial async origins.
import { migrationScenario } from '../lib/migration.mjs';

export const { meta, cutover, launchdarkly, floor } = migrationScenario({ stage: 'shadow', order: 'parallel', op: 'read' });
