// Shadow read, parallel, cutover with fixedStage('shadow'): cutover's own cost without a flag system.
import { cutoverFixed } from '../lib/migration.mjs';

export const meta = {
  unit: 'µs/op',
  note: "cutover with fixedStage('shadow') (no flag SDK, own OpTracker); LD has no equivalent",
};
export const cutover = () => cutoverFixed({ stage: 'shadow', order: 'parallel', op: 'read' });
