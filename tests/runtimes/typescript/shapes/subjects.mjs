// What shapes.test.mjs compares: each declared type of index.d.ts (as a type expression over
// the package's exports) with what the packed package really produced (observe.mjs), as the
// checks of shape.mjs; and the self-check, the same checks against deliberately wrong types.
import * as observe from './observe.mjs';
import { cloneShape, render, shapeAt, shapeChecks, shapeOf, stringUnion, union } from './shape.mjs';

export const IMPORTS = [
  'import type { BigSegmentStoreManager, BigSegmentStoreStatusProvider, BigSegmentsManagerStats, BigSegmentsStatus, ExternalTracker, ' +
    "LDMigration, LDMigrationStage, Migrator, OpTracker, Origin, Stage, migrationVariation } from 'cutover';",
  "import type { LDMigrationTracker } from '@launchdarkly/node-server-sdk';",
  "import type { Elem, IfDeclared, Obj, OptionalKeys, Prop, ReadonlyKeys, Same, SameKeys, SameOptional, SameReadonly } from './compare.mjs';",
];

/**
 * stats() samples with `consistency.paths` taken out, after checking that each is a plain object of
 * counts: a dictionary keyed by path (`Record<string, number>`), whose keys no set of samples can
 * list; the declared side leaves it out too (`OMIT_PATHS`).
 */
function withoutPaths(samples) {
  return samples.map((sample) => {
    const copy = structuredClone(sample);
    for (const op of ['read', 'write']) {
      const { paths, ...consistency } = copy[op].consistency;
      if (Object.getPrototypeOf(paths) !== Object.prototype || !Object.values(paths).every((n) => typeof n === 'number')) {
        throw new Error(`stats().${op}.consistency.paths is not a plain object of counts`);
      }
      copy[op].consistency = consistency;
    }
    // `guard.flags` is a dictionary keyed by flag key too: each entry checked here, then left out.
    if (copy.guard !== null) {
      const { flags, ...guard } = copy.guard;
      const entry = (v) => typeof v.state === 'string' && typeof v.since === 'number' && (v.reason === null || typeof v.reason === 'string') && Object.keys(v).length === 3;
      if (Object.getPrototypeOf(flags) !== Object.prototype || !Object.values(flags).every(entry)) {
        throw new Error('stats().guard.flags is not a plain object of { state, since, reason }');
      }
      copy.guard = guard;
    }
    return copy;
  });
}

/** A stats() type with `consistency.paths` and `guard.flags` left out (see withoutPaths). */
const OMIT_PATHS = (t) =>
  `{ [K in keyof ${t}]: K extends 'guard' ? Omit<NonNullable<${t}[K]>, 'flags'> | null : ` +
  `{ [L in keyof ${t}[K]]: L extends 'consistency' ? Omit<${t}[K][L], 'paths'> : ${t}[K][L] } }`;

/** Everything the checks compare against, made by the packed package. */
export async function observeAll() {
  const names = observe.stageNames();
  const migration = await observe.migrationRun(names.listed);
  const segments = await observe.segmentsRun();
  const byStage = new Set(migration.samples.flatMap((s) => [...Object.keys(s.read.byStage), ...Object.keys(s.write.byStage)]));
  return {
    names,
    // The stage names as the wasm itself writes them: stats() keys its per-stage counts by them.
    stages: [...byStage],
    origins: [...migration.origins],
    shapes: {
      'Migrator#stats()': shapeOf(withoutPaths(migration.samples)),
      'LDMigration#stats()': shapeOf(withoutPaths(await observe.createMigrationRun(names.listed))),
      'statusProvider.getStatus()': shapeOf(segments.status),
      'statusProvider.lastStatus': shapeOf(segments.lastStatus),
      'status listener argument': shapeOf(segments.heard),
      'BigSegmentStoreManager#stats()': shapeOf(segments.counters),
    },
    answers: segments.answers,
    variations: await observe.variationRun(names.listed),
    tracker: await observe.trackerUse(names.listed),
    opTrackerMethods: observe.opTrackerMethods(),
  };
}

/** The declared type of each observed object, as a type expression. */
const DECLARED = {
  'Migrator#stats()': OMIT_PATHS("ReturnType<Migrator['stats']>"),
  'LDMigration#stats()': OMIT_PATHS("ReturnType<LDMigration<unknown, unknown>['stats']>"),
  'statusProvider.getStatus()': "Awaited<ReturnType<BigSegmentStoreStatusProvider['getStatus']>>",
  'statusProvider.lastStatus': "BigSegmentStoreStatusProvider['lastStatus']",
  'status listener argument': "Parameters<Parameters<BigSegmentStoreStatusProvider['addListener']>[0]>[0]",
  'BigSegmentStoreManager#stats()': "ReturnType<BigSegmentStoreManager['stats']>",
};

/**
 * The parameter list of a tracker method as its calls had them: a string argument as the
 * literals it was, a function argument as `() => R` with R the kinds of what calling it gave.
 * An argument some call left out is optional.
 */
function parameters(calls) {
  const length = Math.max(...calls.map((c) => c.args.length));
  const shortest = Math.min(...calls.map((c) => c.args.length));
  const params = [];
  for (let i = 0; i < length; i++) {
    const at = calls.filter((c) => c.args.length > i);
    const strings = new Set();
    const kinds = new Set();
    for (const { args } of at) {
      const arg = args[i];
      if (typeof arg === 'string') strings.add(arg);
      else if (typeof arg === 'function') {
        if (arg.length !== 0) throw new Error(`a tracker callback with ${arg.length} parameters: extend parameters()`);
        kinds.add(`(() => ${render(shapeOf(at.map((c) => c.results[i])))})`);
      } else kinds.add(arg === null ? 'null' : typeof arg);
    }
    const type = [...(strings.size ? [stringUnion(strings)] : []), ...kinds].join(' | ');
    params.push(i >= shortest ? `(${type})?` : type);
  }
  return `[${params.join(', ')}]`;
}

/** The tracker checks of `declared` (ExternalTracker, or a wrong one in the self-check). */
function trackerChecks(label, declared, tracker) {
  const q = JSON.stringify;
  const out = [
    [`${label}: the names a migrator reads on it`, `SameKeys<${q(label)}, keyof ${declared}, ${stringUnion(tracker.inspected)}>`],
    [`${label}: the methods a migrator calls`, `SameKeys<${q(label)}, keyof ${declared}, ${stringUnion(tracker.calls.keys())}>`],
  ];
  for (const [name, calls] of tracker.calls) {
    const path = `${label}.${name}() parameters`;
    out.push([path, `IfDeclared<${declared}, ${q(name)}, Same<${q(path)}, Parameters<Prop<${declared}, ${q(name)}>>, ${parameters(calls)}>>`]);
  }
  return out;
}

/**
 * Checks of objects reduced to facts by observe.mjs (each `{ keys, ... }`): the keys, those
 * some object lacked, and one check per fact, given as [label, declared type, observed type].
 */
function factChecks(path, declared, objects, facts) {
  const q = JSON.stringify;
  const keys = new Set(objects.flatMap((o) => o.keys));
  const optional = [...keys].filter((k) => objects.some((o) => !o.keys.includes(k)));
  const out = [
    [`${path}: keys`, `SameKeys<${q(path)}, keyof ${declared}, ${stringUnion(keys)}>`],
    [`${path}: optional keys`, `SameOptional<${q(path)}, OptionalKeys<${declared}>, ${stringUnion(optional)}>`],
  ];
  for (const [what, type, observed] of facts) out.push([`${path}: ${what}`, `Same<${q(`${path}: ${what}`)}, ${type}, ${observed}>`]);
  return out;
}

/** migrationVariation()'s result and a lookup's answer (their facts, see observe.mjs). */
function resultChecks(obs) {
  const variation = 'Awaited<ReturnType<typeof migrationVariation>>';
  const answer = "Awaited<ReturnType<BigSegmentStoreManager['getUserMembership']>>";
  const answers = obs.answers;
  const memberships = new Set(answers.map((a) => a.membership));
  const statuses = stringUnion(new Set(answers.map((a) => a.status)));
  return [
    ...factChecks('migrationVariation()', variation, obs.variations, [
      ['stage', `Prop<${variation}, "stage">`, stringUnion(new Set(obs.variations.map((v) => v.stage)))],
      ['tracker', `Prop<${variation}, "tracker">`, union([...new Set(obs.variations.map((v) => v.tracker))].sort())],
    ]),
    ...factChecks('getUserMembership()', answer, answers, [
      ['readonly keys', `ReadonlyKeys<${answer}>`, answers.every((a) => a.frozen) ? stringUnion(new Set(answers.flatMap((a) => a.keys))) : 'never'],
      ['status', `Prop<${answer}, "status">`, statuses],
      ['membership without one', `Exclude<Prop<${answer}, "membership">, object>`, memberships.has('null') ? 'null' : 'never'],
      ['membership map', `Obj<Prop<${answer}, "membership">>`, memberships.has('frozen map of booleans') ? 'Readonly<Record<string, boolean>>' : 'never'],
    ]),
    ['BigSegmentsStatus', `Same<"BigSegmentsStatus", BigSegmentsStatus, ${statuses}>`],
  ];
}

/** The checks index.d.ts must pass. */
export function declaredChecks(obs) {
  const out = [];
  for (const [name, shape] of Object.entries(obs.shapes)) out.push(...shapeChecks(name, DECLARED[name], shape));
  out.push(...resultChecks(obs));
  out.push(...trackerChecks('ExternalTracker', 'ExternalTracker', obs.tracker));
  out.push(
    ['OpTracker: methods', `SameKeys<"OpTracker", keyof OpTracker, ${stringUnion(obs.opTrackerMethods)}>`],
    // LaunchDarkly's own tracker is what ExternalTracker describes: it must stay assignable.
    ["LaunchDarkly's LDMigrationTracker is an ExternalTracker", 'Same<"LDMigrationTracker", LDMigrationTracker extends ExternalTracker ? true : false, true>'],
    ['Stage', `Same<"Stage", Stage, ${stringUnion(obs.stages)}>`],
    ['LDMigrationStage', `Same<"LDMigrationStage", \`\${LDMigrationStage}\`, ${stringUnion(obs.stages)}>`],
    ['Origin', `Same<"Origin", Origin, ${stringUnion(obs.origins)}>`],
  );
  return out;
}

/**
 * Deliberately wrong declarations, each with the checks that must fail on it (and no other).
 * Returns { checks, mustFail } with mustFail the set of the labels that must fail.
 */
export function selfChecks(obs) {
  const checks = [];
  const mustFail = new Set();
  const mistake = (list, failing) => {
    checks.push(...list);
    for (const label of failing) mustFail.add(label);
  };

  // The real declaration with a key added and a key taken away.
  const counters = 'mistake: counters';
  mistake(shapeChecks(counters, 'Omit<BigSegmentsManagerStats, "statusErrors"> & { bogus: number }', obs.shapes['BigSegmentStoreManager#stats()']),
    [`${counters}: identical to the observed type`, `${counters}: keys`]);

  // Mistakes deep inside stats(): the observed shape, edited, written out as the declaration.
  const stats = 'mistake: stats';
  const wrong = cloneShape(obs.shapes['Migrator#stats()']);
  shapeAt(wrong, 'read.old.latencyMs').object.keys.delete('p99'); // a key missing
  const consistency = shapeAt(wrong, 'write.consistency').object;
  consistency.keys.set('extra', { present: consistency.count, shape: shapeOf([1]) }); // a key too many
  const byStage = shapeAt(wrong, 'read.byStage').object;
  byStage.keys.get('off').present = byStage.count; // an optional key declared required
  shapeAt(wrong, 'write.count').kinds = new Set(['string']); // a number declared a string
  shapeAt(wrong, 'read.new.latencyMs').kinds.delete('null'); // a nullable object declared never null
  const frozen = shapeAt(wrong, 'read.consistency').object;
  frozen.frozen = frozen.count; // a mutable object declared readonly
  mistake(shapeChecks(stats, render(wrong), obs.shapes['Migrator#stats()']), [
    `${stats}: identical to the observed type`,
    `${stats}.read.old.latencyMs: keys`,
    `${stats}.write.consistency: keys`,
    `${stats}.read.byStage: optional keys`,
    `${stats}.write.count: kinds`,
    `${stats}.read.new.latencyMs: kinds`,
    `${stats}.read.consistency: readonly keys`,
  ]);

  // A tracker without createEvent, with a method never called, and a latency without its ms.
  const tracker = 'mistake: tracker';
  mistake(trackerChecks(tracker, '(Omit<ExternalTracker, "createEvent" | "latency"> & { flush(): void; latency(origin: Origin): void })', obs.tracker), [
    `${tracker}: the names a migrator reads on it`,
    `${tracker}: the methods a migrator calls`,
    `${tracker}.latency() parameters`,
  ]);

  // A stage union with a name the wasm does not use, and without one it does.
  mistake([['mistake: Stage', `Same<"mistake: Stage", Exclude<Stage, "rampdown"> | "paused", ${stringUnion(obs.stages)}>`]], ['mistake: Stage']);
  return { checks, mustFail };
}
