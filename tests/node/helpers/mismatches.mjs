// Helpers for the mismatches() suites (issue 22, API.md §1 "Differences"): a migrator whose read
// origins answer what the read's payload says (`{ old, new }`), so each read chooses the pair of
// values it compares, with or without mismatches(), in the foreground or in background mode.
import assert from 'node:assert/strict';
import { MigratorBuilder } from 'cutover';
import { makeClient, makeLogger } from './migration.mjs';

export { CTX, makeClient, makeFakeTracker, makeLogger, measurement, sleep } from './migration.mjs';

/** The read origins of `mmSetup`: each answers its side of the payload. */
const side = (name) => (payload) => payload?.[name];

/**
 * A migrator over a fake client serving `stage` (default 'shadow'). Options:
 *   comparison: the read's comparison (default `() => false`: every check is a mismatch);
 *     `null`: none;
 *   mismatches: the options of `mismatches()`; `true` → `mismatches()` with no argument;
 *     `undefined`/`false` → not called;
 *   background: `true` → `background()`; readOld/readNew replace the payload-driven origins;
 *   meter, logger, client (a MigrationClient replacing the fake one).
 * `read(old, new, ctx?)` reads with that pair (`flagKey` 'mig', default 'off').
 */
export function mmSetup(opts = {}) {
  const fake = makeClient(opts.evaluation ?? opts.stage ?? 'shadow');
  const log = makeLogger();
  const builder = new MigratorBuilder(opts.client ?? fake.client, { logger: opts.logger ?? log.logger });
  if (opts.meter) builder.meter(opts.meter);
  if (opts.background) builder.background();
  if (opts.order) builder.readExecutionOrder(opts.order);
  if (opts.mismatches === true) assert.equal(builder.mismatches(), builder);
  else if (opts.mismatches) assert.equal(builder.mismatches(opts.mismatches), builder);
  const comparison = opts.comparison === undefined ? () => false : opts.comparison;
  const readOld = opts.readOld ?? side('old');
  const readNew = opts.readNew ?? side('new');
  if (comparison) builder.read(readOld, readNew, comparison);
  else builder.read(readOld, readNew);
  builder.write(
    () => 'old-written',
    () => 'new-written',
  );
  const migrator = builder.build();
  const CTX0 = { kind: 'user', key: 'mm-user' };
  return {
    migrator,
    builder,
    client: fake,
    events: fake.events,
    log,
    read: (oldValue, newValue, context = CTX0, flagKey = 'mig') => migrator.read(flagKey, context, 'off', { old: oldValue, new: newValue }),
  };
}

/** The differences of a mismatch as [path, kind] pairs. */
export const pathsAndKinds = (mismatch) => mismatch.differences.map((d) => [d.path, d.kind]);

/** Asserts a difference has exactly the `old`/`new` given (by identity; `undefined` when absent). */
export function assertSides(difference, oldValue, newValue, where = difference.path) {
  assert.ok(Object.is(difference.old, oldValue), `${where}: old is ${String(difference.old)}, expected ${String(oldValue)}`);
  assert.ok(Object.is(difference.new, newValue), `${where}: new is ${String(difference.new)}, expected ${String(newValue)}`);
}

/** An object whose `key` is a getter counting its reads (to see whether anything walked it). */
export function counted(value = 1) {
  const reads = { n: 0 };
  const o = {};
  Object.defineProperty(o, 'key', {
    enumerable: true,
    configurable: true,
    get() {
      reads.n++;
      return value;
    },
  });
  return { o, reads };
}
