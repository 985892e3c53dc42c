// The real objects whose declared shapes shapes.test.mjs checks, made by the packed package:
// stats() snapshots of migrators run through every stage and outcome, Big Segments statuses and
// counters of a manager over an in-memory store, the tracker methods a migrator calls on a flag
// client's tracker (seen through a Proxy), cutover's own OpTracker and the stage names.
import {
  BigSegmentStoreManager,
  LDMigrationStage,
  MigratorBuilder,
  OpTracker,
  createMigration,
  fixedStage,
  migrationVariation,
  hashContextKey,
  LDMigrationSuccess,
  LDMigrationError,
} from 'cutover';

const CONTEXT = { kind: 'user', key: 'shapes' };
const SILENT = { debug() {}, info() {}, warn() {}, error() {} };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition, what, ms = 3000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/**
 * The stage names as the package states them: the list in fixedStage's refusal of a non-stage,
 * and the values of its LDMigrationStage enum. (Each is then run as a stage by migrationRun.)
 */
export function stageNames() {
  let message = '';
  try {
    fixedStage('not-a-stage');
  } catch (error) {
    message = String(error?.message);
  }
  const listed = [...message.split(', got')[0].matchAll(/'([^']+)'/g)].map((m) => m[1]);
  return { message, listed, enumValues: Object.values(LDMigrationStage) };
}

// What an origin does, chosen by the payload: the same value on both sides (consistent), a
// value of its own (inconsistent), a throw, or no answer until its timeout aborts it.
const PAYLOADS = ['same', 'differ', 'fail', 'timeout'];
const origin = (name) => (payload, signal) => {
  if (payload === 'fail') throw new Error(`${name} failed`);
  if (payload === 'timeout') return new Promise((resolve) => signal.addEventListener('abort', () => resolve('late'), { once: true }));
  return payload === 'differ' ? name : 'same';
};

/**
 * Runs reads and writes with every payload at each stage, taking stats() before anything ran,
 * after each stage, and after resetStats() (where there is one: LDMigration has none).
 * `setStage(stage)` makes the flag client serve that stage.
 */
async function runStages(migrator, stages, setStage) {
  const samples = [migrator.stats()];
  const origins = new Set();
  for (const stage of stages) {
    setStage(stage);
    for (const payload of PAYLOADS) {
      const read = await migrator.read('shapes-flag', CONTEXT, 'off', payload);
      origins.add(read.origin);
      const write = await migrator.write('shapes-flag', CONTEXT, 'off', payload);
      origins.add(write.authoritative.origin);
      if (write.nonAuthoritative) origins.add(write.nonAuthoritative.origin);
    }
    samples.push(migrator.stats());
  }
  migrator.resetStats?.();
  samples.push(migrator.stats());
  return { samples, origins };
}

/** stats() of MigratorBuilder migrators (with and without latency and error tracking). */
export async function migrationRun(stages) {
  let stage;
  const client = { migrationVariation: () => stage };
  const build = (tracking, guard) => {
    const builder = new MigratorBuilder(client, { logger: SILENT })
      .originTimeout(10)
      .trackLatency(tracking)
      .trackErrors(tracking)
      .read(origin('old'), origin('new'), (a, b) => a === b)
      .write(origin('old'), origin('new'));
    if (guard) builder.guard({ maxConsecutiveErrors: 1, minCalls: 1, cooldownMs: 1, probeRatio: 1 });
    return builder.build();
  };
  const tracked = await runStages(build(true), stages, (s) => (stage = s));
  const untracked = await runStages(build(false), stages, (s) => (stage = s));
  // With guard(): stats().guard is an object (its flags closed, tripped, probing as outcomes come).
  const guarded = await runStages(build(true, true), stages, (s) => (stage = s));
  return { samples: [...tracked.samples, ...untracked.samples, ...guarded.samples], origins: tracked.origins };
}

/** stats() of a createMigration migration over a stand-in LaunchDarkly client. */
export async function createMigrationRun(stages) {
  let stage;
  const ldClient = { migrationVariation: async () => ({ value: stage }), trackMigration() {} };
  const method = (name) => async (payload, signal) => {
    try {
      return LDMigrationSuccess(await origin(name)(payload, signal));
    } catch (error) {
      return LDMigrationError(error);
    }
  };
  const migration = (guard) => createMigration(ldClient, {
    readOld: method('old'), readNew: method('new'), writeOld: method('old'), writeNew: method('new'),
    check: (a, b) => a === b, originTimeoutMs: 10, logger: SILENT, guard,
  });
  const plain = await runStages(migration(undefined), stages, (s) => (stage = s));
  const guarded = await runStages(migration({ maxConsecutiveErrors: 1, minCalls: 1, cooldownMs: 1 }), stages, (s) => (stage = s));
  return [...plain.samples, ...guarded.samples];
}

/**
 * The names a migrator reads on a flag client's tracker, and the calls it makes: the tracker
 * is a Proxy that records every property read (and `in` test) and answers with a function that
 * records its arguments; a function argument is called, its result recorded.
 */
export async function trackerUse(stages) {
  const inspected = new Set();
  const calls = new Map();
  let events = 0;
  const tracker = new Proxy(Object.create(null), {
    get(_, name) {
      inspected.add(String(name));
      if (typeof name !== 'string') return undefined;
      return (...args) => {
        while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
        const call = { args, results: args.map((a) => (typeof a === 'function' ? a() : undefined)) };
        calls.get(name)?.push(call) ?? calls.set(name, [call]);
        // Every other createEvent makes an event, so both outcomes are exercised.
        if (name === 'createEvent') return ++events % 2 === 0 ? undefined : { kind: 'migration_op' };
        return undefined;
      };
    },
    has(_, name) {
      inspected.add(String(name));
      return true;
    },
    ownKeys() {
      inspected.add('(own keys listed)');
      return [];
    },
    getOwnPropertyDescriptor(_, name) {
      inspected.add(String(name));
      return undefined;
    },
  });
  let stage;
  const sent = [];
  const client = {
    migrationVariation: () => ({ value: stage, tracker, checkRatio: 1 }),
    trackMigrationOp: (event) => sent.push(event),
  };
  const migrator = new MigratorBuilder(client, { logger: SILENT })
    .originTimeout(10)
    .read(origin('old'), origin('new'), (a, b) => a === b)
    .write(origin('old'), origin('new'))
    .build();
  await runStages(migrator, stages, (s) => (stage = s));
  return { inspected, calls, sent };
}

/**
 * migrationVariation()'s results at each stage: over a client that answers a bare stage (the
 * tracker is then cutover's own) and over one whose answer brings its own tracker. Each result
 * is reduced to its keys, its stage and which tracker it carried.
 */
export async function variationRun(stages) {
  const own = { op() {}, invoked() {}, latency() {}, error() {}, consistency() {}, createEvent() {} };
  const results = [];
  for (const stage of stages) {
    for (const client of [fixedStage(stage), { migrationVariation: () => ({ value: stage, tracker: own }) }]) {
      const result = await migrationVariation(client, 'shapes-flag', CONTEXT, 'off');
      const tracker = result.tracker === own ? 'ExternalTracker' : result.tracker instanceof OpTracker ? 'OpTracker' : 'something else';
      results.push({ keys: Object.keys(result), stage: result.stage, tracker });
    }
  }
  return results;
}

/** The methods of cutover's OpTracker, from its prototype. */
export function opTrackerMethods() {
  return Object.getOwnPropertyNames(OpTracker.prototype).filter(
    (name) => name !== 'constructor' && typeof OpTracker.prototype[name] === 'function',
  );
}

/**
 * Big Segments objects: getStatus(), lastStatus and the listener's argument while an in-memory
 * store goes healthy → stale → unavailable → healthy, and stats() across lookups that hit, miss,
 * share a query and fail; then the same of a manager without a store.
 */
export async function segmentsRun() {
  let metadata = { lastUpToDate: Date.now() };
  let metadataFails = false;
  const broken = hashContextKey('broken');
  const store = {
    async getMetadata() {
      if (metadataFails) throw new Error('metadata unavailable');
      return metadata;
    },
    async getMembership(contextHash) {
      await sleep(1);
      if (contextHash === broken) throw new Error('membership unavailable');
      return { 'segment.g1': true };
    },
  };
  const manager = new BigSegmentStoreManager({ store, statusPollIntervalMs: 10, staleAfterMs: 60_000, logger: SILENT });
  const provider = manager.statusProvider;
  const out = { status: [], lastStatus: [provider.lastStatus], heard: [], counters: [manager.stats()], answers: [] };
  // A lookup's answer reduced to what its declaration says: its keys, frozen or not, its status,
  // and its membership's kind (a frozen null-prototype map of booleans, or null).
  const lookup = async (m, key) => {
    const answer = await m.getUserMembership(key);
    const { membership } = answer;
    out.answers.push({
      keys: Object.keys(answer), frozen: Object.isFrozen(answer), status: answer.status,
      membership: membership === null ? 'null'
        : Object.isFrozen(membership) && Object.getPrototypeOf(membership) === null && Object.values(membership).every((v) => typeof v === 'boolean') ? 'frozen map of booleans'
        : 'something else',
    });
  };
  provider.addListener((status) => out.heard.push(status));
  out.status.push(await provider.getStatus());
  await lookup(manager, 'a'); // miss
  await lookup(manager, 'a'); // hit
  await Promise.all([lookup(manager, 'b'), lookup(manager, 'b')]); // one query, shared
  await lookup(manager, 'broken'); // a failed query
  out.counters.push(manager.stats());
  manager.start();
  const phases = [
    ['stale', () => (metadata = { lastUpToDate: 0 }), (s) => s.stale],
    ['unavailable', () => (metadataFails = true), (s) => !s.available],
    ['healthy again', () => ((metadataFails = false), (metadata = { lastUpToDate: Date.now() })), (s) => s.available && !s.stale],
  ];
  for (const [name, change, reached] of phases) {
    const heard = out.heard.length;
    change();
    await until(() => out.heard.length > heard && reached(out.heard.at(-1)), `the ${name} status`);
    out.status.push(await provider.getStatus());
    out.lastStatus.push(provider.lastStatus);
    out.counters.push(manager.stats());
    await lookup(manager, `during ${name}`);
  }
  await manager.close();
  out.counters.push(manager.stats());

  const empty = new BigSegmentStoreManager({ logger: SILENT });
  out.lastStatus.push(empty.statusProvider.lastStatus);
  out.status.push(await empty.statusProvider.getStatus());
  await lookup(empty, 'a');
  out.counters.push(empty.stats());
  await empty.close();
  return out;
}
