// Shadow read, parallel, through a plain flag client that takes cutover's own events (no flag SDK),
// against LaunchDarkly's whole read through createMigration at shadow. Target: cutover ≤ LD.
import { cutover as promiseAllFloor } from './raw-promise-all.mjs';
import { cutoverOwnEvents, ldMigration } from '../lib/migration.mjs';

const config = { stage: 'shadow', order: 'parallel', op: 'read' };
export const meta = {
  unit: 'µs/op',
  note:
    "shadow read, parallel, context {kind, key}. cutover: a plain client { migrationVariation: () => 'shadow', " +
    'trackMigrationOp(event) (counts) } (cutover\'s own tracker and migration_op events); LD: createMigration ' +
    '(LDConcurrentExecution) at shadow from a TestData flag (checkRatio 1), its own tracker and events; ' +
    'origins async (p) => p (LD: LDMigrationSuccess(p)); comparison a === b. Target: ratio ≤ 1',
  floor: 'await Promise.all([old(p), new(p)]) + compare, plain JS, no library: what any parallel shadow read costs',
  maxRatio: 1,
};
export const cutover = () => cutoverOwnEvents(config);
export const launchdarkly = () => ldMigration(config);
export const floor = promiseAllFloor;
