// Shadow read, parallel, cutover with fixedStage('shadow'): cutover's own cost without a flag system.
// Two sides in paired rounds: `cutover`, the read as LaunchDarkly's semantics have it (the caller
// waits for both origins), and `background`, the same migrator with .background() (issue 21),
// whose every timed window ends with `await migrator.settled()`: CPU per operation, the
// background part included. Target: background ÷ foreground ≤ 1.1 per round (upper quartile). `guarded`: the same migrator with a closed
// .guard() (issue 30): what the guard's bookkeeping costs per operation, ≤ 1.05 × (upper quartile).
import { cutoverFixed } from '../lib/migration.mjs';

const config = { stage: 'shadow', order: 'parallel', op: 'read' };
export const meta = {
  unit: 'µs/op',
  note:
    "cutover with fixedStage('shadow') (no flag SDK, own OpTracker); LD has no equivalent. " +
    'background: the same with .background() (maxInFlight 100), each window closed by await migrator.settled(), ' +
    'so the background parts are inside the time; no operation shed',
  figures: [
    { key: 'value', side: 'background', label: 'cutover with .background(), background part included', unit: 'µs/op' },
    { key: 'backgroundToForeground', ratioOf: ['background', 'cutover'], label: '.background() ÷ foreground, CPU per operation, per round', max: 1.1 },
    { key: 'value', side: 'guarded', label: 'cutover with a closed .guard()', unit: 'µs/op' },
    { key: 'guardedToPlain', ratioOf: ['guarded', 'cutover'], label: 'closed .guard() ÷ without, per round', max: 1.05 },
  ],
};
export const cutover = () => cutoverFixed(config);
export const background = () => cutoverFixed({ ...config, background: true });
export const guarded = () => cutoverFixed({ ...config, guard: true });
