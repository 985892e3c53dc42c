// A tiny MigrationClient (cutover's host interface) standing in for a flag system:
// it serves whatever stage the operator set, and counts the migration_op events it receives.

export const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];

export class StageSwitch {
  stage = 'off';
  flagVersion = 1;
  events = 0;
  lastEvent = undefined;

  /** Moves the migration flag to another stage, as an operator would in a dashboard. */
  set(stage) {
    if (!STAGES.includes(stage)) throw new RangeError(`unknown stage ${stage}`);
    if (stage !== this.stage) this.flagVersion++;
    this.stage = stage;
  }

  migrationVariation(_flagKey, _context, _defaultStage) {
    return {
      value: this.stage,
      variationIndex: STAGES.indexOf(this.stage),
      reason: { kind: 'FALLTHROUGH' },
      flagVersion: this.flagVersion,
      checkRatio: 1, // compare every shadow/live read
      samplingRatio: 1, // send every event
    };
  }

  trackMigrationOp(event) {
    this.events++;
    this.lastEvent = event;
  }
}
