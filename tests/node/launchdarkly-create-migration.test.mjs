// cutover's createMigration against LaunchDarkly's own (@launchdarkly/node-server-sdk), API.md §1
// "createMigration": the same options, helpers, result shapes and migration_op events.
//
// The SDK gets its flags from TestData and posts its events to a local HTTP server. Every
// scenario runs the same LDMigrationOptions (built by one factory from one namespace of exports)
// through LaunchDarkly's createMigration and through cutover's, and compares what came back, the
// order the methods ran in, and the events LaunchDarkly's tracker sent (all but creationDate and
// the latency numbers).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import * as launchDarkly from '@launchdarkly/node-server-sdk';
import * as cutover from 'cutover';
import { bulkEvents, eventShape, migrationOps, startLaunchDarkly } from './helpers/launchdarkly.mjs';

const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];
const CONTEXT = Object.freeze({ kind: 'user', key: 'u1', name: 'Ann' });
const HELPERS = [
  'LDMigrationSuccess', 'LDMigrationError', 'LDSerialExecution', 'LDConcurrentExecution',
  'LDExecutionOrdering', 'LDExecution', 'LDMigrationStage',
];

// ---------------------------------------------------------------------------------------------
// Fixture: event capture server, TestData, LaunchDarkly client (helpers/launchdarkly.mjs)
// ---------------------------------------------------------------------------------------------

let ld;
let td;
let ldClient;

before(async () => {
  ld = await startLaunchDarkly('sdk-create-migration-test');
  ({ td, client: ldClient } = ld);
  for (const stage of STAGES) {
    await td.update(td.flag(`cm-${stage}`).variations(...STAGES).fallthroughVariation(STAGES.indexOf(stage)).checkRatio(1));
  }
});

after(async () => {
  await ld?.close();
});

/** Flushes LaunchDarkly's queue; the migration_op events posted since the last drain. */
const drain = async () => migrationOps(bulkEvents(await ld.flush()));

/** An event without creationDate (a number), latency numbers replaced by their type. */
function shape(ev) {
  assert.equal(typeof ev.creationDate, 'number');
  return eventShape(ev);
}

// ---------------------------------------------------------------------------------------------
// LaunchDarkly's documented example (migration configuration, Node.js server-side SDK), as a
// function of the namespace it imports from: `ns` stands for the import line, which is the one
// thing a user changes (`from '@launchdarkly/node-server-sdk'` → `from 'cutover'`).
// ---------------------------------------------------------------------------------------------

function documentedExample(ns, client, log) {
  const { createMigration, LDMigrationSuccess, LDSerialExecution, LDExecutionOrdering } = ns;

  const options = {
    readNew: async (key) => {
      log.push(`readNew ${key}`);
      return LDMigrationSuccess(`new ${key}`);
    },
    writeNew: async (params) => {
      log.push(`writeNew ${params}`);
      return LDMigrationSuccess(`wrote new ${params}`);
    },
    readOld: async (key) => {
      log.push(`readOld ${key}`);
      return LDMigrationSuccess(`old ${key}`);
    },
    writeOld: async (params) => {
      log.push(`writeOld ${params}`);
      return LDMigrationSuccess(`wrote old ${params}`);
    },
    check: (a, b) => a === b,
    latencyTracking: true,
    errorTracking: true,
    execution: new LDSerialExecution(LDExecutionOrdering.Fixed),
  };
  const migration = createMigration(client, options);

  return {
    async read(flagKey, context) {
      const result = await migration.read(flagKey, context, 'off', 'key-1');
      return result.success ? { ok: result.result, origin: result.origin } : { failed: result.error, origin: result.origin };
    },
    async write(flagKey, context) {
      const result = await migration.write(flagKey, context, 'off', 'row-1');
      return result;
    },
  };
}

test('createMigration: the helpers are exported under LaunchDarkly names with LaunchDarkly values', () => {
  for (const name of HELPERS) assert.equal(typeof cutover[name], typeof launchDarkly[name], name);
  assert.deepEqual({ ...cutover.LDMigrationStage }, { ...launchDarkly.LDMigrationStage });
  assert.deepEqual({ ...cutover.LDExecutionOrdering }, { ...launchDarkly.LDExecutionOrdering });
  assert.deepEqual({ ...cutover.LDExecution }, { ...launchDarkly.LDExecution });
  assert.deepEqual({ ...new cutover.LDSerialExecution(cutover.LDExecutionOrdering.Random) },
    { ...new launchDarkly.LDSerialExecution(launchDarkly.LDExecutionOrdering.Random) });
  assert.deepEqual({ ...new cutover.LDConcurrentExecution() }, { ...new launchDarkly.LDConcurrentExecution() });
  const e = new Error('x');
  assert.deepEqual(cutover.LDMigrationSuccess(7), launchDarkly.LDMigrationSuccess(7));
  assert.deepEqual(cutover.LDMigrationError(e), launchDarkly.LDMigrationError(e));
});

test('createMigration: LaunchDarkly\'s documented example runs unchanged, same results, calls and events, every stage', async () => {
  for (const stage of STAGES) {
    for (const op of ['read', 'write']) {
      await drain();
      const ldLog = [];
      const ldResult = await documentedExample(launchDarkly, ldClient, ldLog)[op](`cm-${stage}`, CONTEXT);
      const ldEvents = await drain();
      const ourLog = [];
      const ourResult = await documentedExample(cutover, ldClient, ourLog)[op](`cm-${stage}`, CONTEXT);
      const ourEvents = await drain();
      const where = `${op} at ${stage}`;
      assert.deepEqual(ourResult, ldResult, `${where}: result`);
      assert.deepEqual(ourLog, ldLog, `${where}: calls, in order`);
      assert.equal(ldEvents.length, 1, `${where}: LaunchDarkly sends one event`);
      assert.deepEqual(ourEvents.map(shape), ldEvents.map(shape), `${where}: events`);
    }
  }
});

// ---------------------------------------------------------------------------------------------
// The matrix: every stage × every execution × read/write, failures and the tracking switches
// ---------------------------------------------------------------------------------------------

const EXECUTIONS = {
  fixed: (ns) => new ns.LDSerialExecution(ns.LDExecutionOrdering.Fixed),
  random: (ns) => new ns.LDSerialExecution(ns.LDExecutionOrdering.Random),
  concurrent: (ns) => new ns.LDConcurrentExecution(),
  omitted: () => undefined,
};

/**
 * LDMigrationOptions for `ns`: each method sleeps `ms`, logs its start and end, and answers
 * `spec[name]`: a value, or { error } (LDMigrationError) or { throws } (a throw). The error
 * objects are shared, so the two implementations' results can deep-equal.
 */
function optionsFor(ns, spec, log, extra = {}) {
  const method = (name, ms) => async (payload) => {
    log.push(`${name} start`);
    await sleep(ms);
    log.push(`${name} end`);
    const answer = spec[name];
    if (answer?.throws) throw answer.throws;
    if (answer?.error) return ns.LDMigrationError(answer.error);
    return ns.LDMigrationSuccess(`${answer ?? name}:${payload}`);
  };
  const options = {
    readOld: method('readOld', 6),
    readNew: method('readNew', 3),
    writeOld: method('writeOld', 2),
    writeNew: method('writeNew', 2),
    check: (a, b) => a.split(':')[1] === b.split(':')[1],
    ...extra,
  };
  return options;
}

async function compareOne({ stage, op, execution, spec = {}, extra = {} }) {
  await drain();
  const ldLog = [];
  const ldOptions = optionsFor(launchDarkly, spec, ldLog, { execution: EXECUTIONS[execution](launchDarkly), ...extra });
  const ldResult = await launchDarkly.createMigration(ldClient, ldOptions)[op](`cm-${stage}`, CONTEXT, 'off', 'p');
  const ldEvents = await drain();
  const ourLog = [];
  const ourOptions = optionsFor(cutover, spec, ourLog, { execution: EXECUTIONS[execution](cutover), ...extra });
  const migration = cutover.createMigration(ldClient, ourOptions);
  const ourResult = await migration[op](`cm-${stage}`, CONTEXT, 'off', 'p');
  const ourEvents = await drain();
  const where = `${op} at ${stage}, ${execution}, ${JSON.stringify(spec)} ${JSON.stringify(extra)}`;
  assert.deepEqual(ourResult, ldResult, `${where}: result`);
  assert.equal(ldEvents.length, 1, `${where}: one LaunchDarkly event`);
  assert.deepEqual(ourEvents.map(shape), ldEvents.map(shape), `${where}: events`);
  return { ldLog, ourLog, where, migration, ourEvents };
}

const started = (log) => log.filter((l) => l.endsWith(' start')).map((l) => l.split(' ')[0]);

test('createMigration: every stage × execution × operation: results, events and calls as LaunchDarkly\'s', async () => {
  for (const stage of STAGES) {
    for (const execution of Object.keys(EXECUTIONS)) {
      for (const op of ['read', 'write']) {
        const { ldLog, ourLog, where } = await compareOne({ stage, op, execution });
        if (op === 'write' || execution === 'fixed') {
          assert.deepEqual(ourLog, ldLog, `${where}: call order`);
        } else {
          assert.deepEqual(started(ourLog).sort(), started(ldLog).sort(), `${where}: the same origins ran`);
        }
      }
    }
  }
});

test('createMigration: Fixed ordering runs old to completion, then new, at every stage that reads both', async () => {
  for (const stage of ['shadow', 'live']) {
    for (let i = 0; i < 5; i++) {
      const { ourLog } = await compareOne({ stage, op: 'read', execution: 'fixed' });
      assert.deepEqual(ourLog, ['readOld start', 'readOld end', 'readNew start', 'readNew end'], stage);
    }
  }
});

test('createMigration: Random ordering is serial and flips a coin per read', async () => {
  const log = [];
  const migration = cutover.createMigration(ldClient, optionsFor(cutover, {}, log, { execution: EXECUTIONS.random(cutover) }));
  const firsts = new Set();
  for (let i = 0; i < 40; i++) {
    log.length = 0;
    await migration.read('cm-live', CONTEXT, 'off', 'p');
    assert.equal(log.length, 4);
    assert.ok(log[1].endsWith(' end') && log[0].split(' ')[0] === log[1].split(' ')[0], `serial: ${log}`);
    firsts.add(log[0]);
  }
  assert.deepEqual([...firsts].sort(), ['readNew start', 'readOld start'], 'both orders occur over 40 reads');
  await drain();
});

test('createMigration: concurrent execution starts both reads before either ends', async () => {
  const log = [];
  const migration = cutover.createMigration(ldClient, optionsFor(cutover, {}, log));
  await migration.read('cm-shadow', CONTEXT, 'off', 'p');
  assert.deepEqual(log.slice(0, 2).sort(), ['readNew start', 'readOld start']);
  await drain();
});

test('createMigration: failures (LDMigrationError and throws) give LaunchDarkly\'s results and events', async () => {
  const boom = new Error('boom');
  const thrown = new TypeError('thrown');
  const specs = [
    { readOld: { error: boom } },
    { readNew: { throws: thrown } },
    { readOld: { throws: thrown }, readNew: { error: boom } },
    { writeOld: { error: boom } },
    { writeNew: { throws: thrown } },
    { readNew: 'different' }, // inconsistent reads
  ];
  for (const spec of specs) {
    for (const stage of STAGES) {
      for (const op of ['read', 'write']) await compareOne({ stage, op, execution: 'fixed', spec });
    }
  }
});

test('createMigration: latencyTracking and errorTracking false leave those measurements out, as LaunchDarkly does', async () => {
  const boom = new Error('boom');
  for (const extra of [{ latencyTracking: false }, { errorTracking: false }, { latencyTracking: false, errorTracking: false }]) {
    for (const stage of ['off', 'shadow', 'live', 'complete']) {
      for (const op of ['read', 'write']) {
        const spec = { readOld: { error: boom }, writeNew: { error: boom } };
        const { ourEvents, where } = await compareOne({ stage, op, execution: 'concurrent', spec, extra });
        const keys = ourEvents[0].measurements.map((m) => m.key);
        if (extra.latencyTracking === false) assert.ok(!keys.includes('latency_ms'), `${where}: ${keys}`);
        else assert.ok(keys.includes('latency_ms'), `${where}: ${keys}`);
        if (extra.errorTracking === false) assert.ok(!keys.includes('error'), `${where}: ${keys}`);
      }
    }
  }
});

test('createMigration: a multi-kind context reaches the event as LaunchDarkly sends it', async () => {
  const context = { kind: 'multi', user: { key: 'u1' }, org: { key: 'o1', name: 'Acme' } };
  await drain();
  const ld = launchDarkly.createMigration(ldClient, optionsFor(launchDarkly, {}, []));
  assert.equal((await ld.read('cm-shadow', context, 'off')).success, true);
  const ldEvents = await drain();
  const ours = cutover.createMigration(ldClient, optionsFor(cutover, {}, []));
  assert.equal((await ours.read('cm-shadow', context, 'off')).success, true);
  const ourEvents = await drain();
  assert.deepEqual(ourEvents.map(shape), ldEvents.map(shape));
  assert.deepEqual(ourEvents[0].context, context);
});

// ---------------------------------------------------------------------------------------------
// Options: live method lookup, `this`, TypeErrors naming the option, cutover's extras
// ---------------------------------------------------------------------------------------------

test('createMigration: methods are looked up on the options at each call, with the options as this', async () => {
  const log = [];
  const options = optionsFor(cutover, {}, log);
  const migration = cutover.createMigration(ldClient, options);
  let self;
  options.readOld = async function (payload) {
    self = this;
    return cutover.LDMigrationSuccess(`replaced:${payload}`);
  };
  assert.deepEqual(await migration.read('cm-off', CONTEXT, 'off', 'p'), { origin: 'old', success: true, result: 'replaced:p' });
  assert.equal(self, options);
  await drain();
});

test('createMigration: methods may answer synchronously or with a thenable, as LaunchDarkly awaits them', async () => {
  const options = optionsFor(cutover, {}, []);
  options.readOld = () => cutover.LDMigrationSuccess('sync');
  options.readNew = () => ({ then: (ok) => ok(cutover.LDMigrationSuccess('thenable')) });
  const migration = cutover.createMigration(ldClient, options);
  assert.deepEqual(await migration.read('cm-off', CONTEXT, 'off'), { origin: 'old', success: true, result: 'sync' });
  assert.deepEqual(await migration.read('cm-complete', CONTEXT, 'off'), { origin: 'new', success: true, result: 'thenable' });
  await drain();
});

test('createMigration: a method answering something other than an LDMethodResult fails that origin', async () => {
  const options = optionsFor(cutover, {}, []);
  options.readOld = async () => 'just a string';
  const r = await cutover.createMigration(ldClient, options).read('cm-off', CONTEXT, 'off');
  assert.equal(r.success, false);
  assert.equal(r.origin, 'old');
  assert.ok(r.error instanceof TypeError && /options\.readOld must return an LDMethodResult/.test(r.error.message), r.error.message);
  await drain();
});

test('createMigration: bad arguments are TypeErrors naming the option', () => {
  const good = optionsFor(cutover, {}, []);
  const cases = [
    [() => cutover.createMigration({}, good), /ldClient must be a LaunchDarkly client with a migrationVariation method/],
    [() => cutover.createMigration(ldClient, null), /options must be an object/],
    [() => cutover.createMigration(ldClient, { ...good, readNew: undefined }), /options\.readNew must be a function, got undefined/],
    [() => cutover.createMigration(ldClient, { ...good, writeOld: 'x' }), /options\.writeOld must be a function, got string/],
    [() => cutover.createMigration(ldClient, { ...good, check: 1 }), /options\.check must be a function/],
    [() => cutover.createMigration(ldClient, { ...good, execution: 'serial' }), /options\.execution must be new LDSerialExecution/],
    [() => cutover.createMigration(ldClient, { ...good, execution: new cutover.LDSerialExecution(7) }), /options\.execution\.ordering/],
    [() => cutover.createMigration(ldClient, { ...good, latencyTracking: 'yes' }), /options\.latencyTracking must be a boolean/],
    [() => cutover.createMigration(ldClient, { ...good, errorTracking: 0 }), /options\.errorTracking must be a boolean/],
  ];
  for (const [fn, message] of cases) assert.throws(fn, (e) => e instanceof TypeError && message.test(e.message), String(message));
  assert.throws(() => cutover.createMigration(ldClient, { ...good, originTimeoutMs: -1 }), RangeError);
  // LaunchDarkly's own execution objects are accepted too (same tags).
  cutover.createMigration(ldClient, { ...good, execution: new launchDarkly.LDSerialExecution(launchDarkly.LDExecutionOrdering.Fixed) });
});

test('createMigration extras: originTimeoutMs fails a slow origin and aborts its signal; stats() counts it', async () => {
  let aborted;
  const options = optionsFor(cutover, {}, [], { originTimeoutMs: 20 });
  options.readNew = (payload, signal) =>
    new Promise((resolve) => {
      signal.addEventListener('abort', () => {
        aborted = signal.reason;
        resolve(cutover.LDMigrationSuccess('late'));
      });
    });
  const migration = cutover.createMigration(ldClient, options);
  const r = await migration.read('cm-live', CONTEXT, 'off', 'p');
  assert.equal(r.success, false);
  assert.equal(r.origin, 'new');
  assert.equal(r.error.name, 'TimeoutError');
  assert.equal(aborted?.name, 'TimeoutError');
  const s = migration.stats();
  assert.equal(s.read.count, 1);
  assert.deepEqual([s.read.new.invoked, s.read.new.errors, s.read.new.timeouts], [1, 1, 1]);
  const [event] = await drain();
  assert.deepEqual(event.measurements.find((m) => m.key === 'error'), { key: 'error', values: { new: true } });
});

test('createMigration extras: { signal } after the payload rejects the operation with its reason', async () => {
  const options = optionsFor(cutover, {}, []);
  options.readOld = () => new Promise(() => {}); // never settles
  const migration = cutover.createMigration(ldClient, options);
  const controller = new AbortController();
  const reason = new Error('caller gave up');
  const pending = migration.read('cm-off', CONTEXT, 'off', 'p', { signal: controller.signal });
  setTimeout(() => controller.abort(reason), 5);
  await assert.rejects(pending, (e) => e === reason);
  assert.equal(migration.stats().read.count, 0, 'an aborted operation is not counted');
  assert.deepEqual(await drain(), [], 'and sends no event');
});

test('createMigration extras: logger receives cutover\'s own warnings', async () => {
  const lines = [];
  const log = (...a) => lines.push(a.join(' '));
  const logger = { debug() {}, info() {}, warn: log, error: log };
  const migration = cutover.createMigration(ldClient, optionsFor(cutover, {}, [], { logger }));
  const r = await migration.read('cm-missing', CONTEXT, 'sideways', 'p');
  assert.deepEqual(r, { origin: 'old', success: true, result: 'readOld:p' }, 'an invalid default stage becomes off');
  assert.ok(lines.some((l) => l.includes('sideways')), lines.join('\n'));
  await drain();
});
