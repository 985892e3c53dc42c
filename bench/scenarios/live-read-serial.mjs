// read at stage 'live' (TestData flag), read execution 'serial'; trivial async origins.
import { migrationScenario } from '../lib/migration.mjs';

export const { meta, cutover, launchdarkly, floor } = migrationScenario({ stage: 'live', order: 'serial', op: 'read' });
