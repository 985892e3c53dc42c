// Builder & validation — API.md §1 "Builder", §3 "Exports"; SPEC.md A9 "Validation everywhere".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as cutover from 'cutover';
import {
  MigratorBuilder,
  MigratorConfigError,
  OpTracker,
  migrationVariation,
  launchDarklyClient,
  fixedStage,
  failure,
} from 'cutover';
import { CTX, makeClient, makeLogger, makeRecorder, setup } from './helpers/migration.mjs';

const noop = () => 'v';

test('migration exports are named exports of the expected kinds', () => {
  for (const name of [
    'MigratorBuilder',
    'MigratorConfigError',
    'OpTracker',
    'migrationVariation',
    'launchDarklyClient',
    'fixedStage',
    'failure',
  ]) {
    assert.equal(typeof cutover[name], 'function', `${name} is exported as a function/class`);
  }
  assert.equal(MigratorBuilder, cutover.MigratorBuilder);
});

test('MigratorConfigError is an Error subclass', () => {
  const e = new MigratorConfigError('boom');
  assert.ok(e instanceof Error);
  assert.ok(e instanceof MigratorConfigError);
  assert.equal(e.message, 'boom');
  assert.ok(Object.prototype.isPrototypeOf.call(Error.prototype, MigratorConfigError.prototype));
});

test('build() without any configuration throws "read configuration not provided" (read checked first)', () => {
  const b = new MigratorBuilder(makeClient().client);
  assert.throws(
    () => b.build(),
    (e) => {
      assert.ok(e instanceof MigratorConfigError, 'is a MigratorConfigError');
      assert.ok(e instanceof Error, 'is an Error');
      assert.equal(e.message, 'read configuration not provided');
      return true;
    },
  );
});

test('build() with only write configured throws "read configuration not provided"', () => {
  const b = new MigratorBuilder(makeClient().client).write(noop, noop);
  assert.throws(() => b.build(), { message: 'read configuration not provided' });
  assert.throws(() => b.build(), MigratorConfigError);
});

test('build() with only read configured throws "write configuration not provided"', () => {
  const b = new MigratorBuilder(makeClient().client).read(noop, noop);
  assert.throws(
    () => b.build(),
    (e) => e instanceof MigratorConfigError && e.message === 'write configuration not provided',
  );
});

test('MigratorConfigError from build() has name "MigratorConfigError"', () => {
  const b = new MigratorBuilder(makeClient().client);
  assert.throws(() => b.build(), { name: 'MigratorConfigError' });
});

test('builder methods are chainable and return the same builder', () => {
  const b = new MigratorBuilder(makeClient().client, { logger: makeLogger().logger });
  assert.equal(b.readExecutionOrder('serial'), b);
  assert.equal(b.readExecutionOrder('random'), b);
  assert.equal(b.readExecutionOrder('parallel'), b);
  assert.equal(b.trackLatency(false), b);
  assert.equal(b.trackErrors(false), b);
  assert.equal(b.originTimeout(1000), b);
  assert.equal(b.read(noop, noop), b);
  assert.equal(b.read(noop, noop, () => true), b);
  assert.equal(b.write(noop, noop), b);
  const m = b.build();
  assert.equal(typeof m.read, 'function');
  assert.equal(typeof m.write, 'function');
  assert.equal(typeof m.stats, 'function');
  assert.equal(typeof m.resetStats, 'function');
});

test('constructor works without options', async () => {
  const c = makeClient('off');
  const m = new MigratorBuilder(c.client).read(() => 1, () => 2).write(() => 3, () => 4).build();
  const r = await m.read('k', CTX, 'off');
  assert.equal(r.value, 1);
});

test('readExecutionOrder with an invalid value throws TypeError naming the order', () => {
  const b = new MigratorBuilder(makeClient().client);
  for (const bad of ['bogus', '', 'PARALLEL', 42, null, undefined, {}]) {
    assert.throws(
      () => b.readExecutionOrder(bad),
      (e) => e instanceof TypeError && /order/i.test(e.message),
      `readExecutionOrder(${String(bad)})`,
    );
  }
});

test('an invalid readExecutionOrder call leaves the builder usable', async () => {
  const c = makeClient('shadow');
  const b = new MigratorBuilder(c.client, { logger: makeLogger().logger });
  assert.throws(() => b.readExecutionOrder('nope'), TypeError);
  const m = b.read(() => 'o', () => 'n').write(() => 1, () => 2).build();
  const r = await m.read('k', CTX, 'off');
  assert.equal(r.value, 'o');
});

test('read() throws TypeError at once when the old origin is not a function', () => {
  const b = new MigratorBuilder(makeClient().client);
  for (const bad of [undefined, null, 'fn', 1, {}]) {
    assert.throws(() => b.read(bad, noop), (e) => e instanceof TypeError && /old/i.test(e.message));
  }
});

test('read() throws TypeError at once when the new origin is not a function', () => {
  const b = new MigratorBuilder(makeClient().client);
  for (const bad of [undefined, null, 'fn', 1, {}]) {
    assert.throws(() => b.read(noop, bad), (e) => e instanceof TypeError && /new/i.test(e.message));
  }
});

test('read() throws TypeError when the comparison is given but not a function', () => {
  const b = new MigratorBuilder(makeClient().client);
  for (const bad of ['cmp', 1, {}, true]) {
    assert.throws(() => b.read(noop, noop, bad), (e) => e instanceof TypeError && /compar/i.test(e.message));
  }
});

test('write() throws TypeError at once for non-function origins', () => {
  const b = new MigratorBuilder(makeClient().client);
  assert.throws(() => b.write('x', noop), (e) => e instanceof TypeError && /old/i.test(e.message));
  assert.throws(() => b.write(noop, 42), (e) => e instanceof TypeError && /new/i.test(e.message));
  assert.throws(() => b.write(), TypeError);
});

test('a rejected read()/write() config does not count as configured', () => {
  const b = new MigratorBuilder(makeClient().client);
  assert.throws(() => b.read(noop, 'nope'), TypeError);
  assert.throws(() => b.write(noop, noop).build(), { message: 'read configuration not provided' });
});

test('read() replaces the earlier read configuration', async () => {
  const c = makeClient('shadow');
  const calls = [];
  const b = new MigratorBuilder(c.client, { logger: makeLogger().logger })
    .read(() => calls.push('first-old'), () => calls.push('first-new'), () => {
      calls.push('first-cmp');
      return true;
    })
    .read(() => {
      calls.push('second-old');
      return 1;
    }, () => {
      calls.push('second-new');
      return 1;
    })
    .write(noop, noop);
  const m = b.build();
  const r = await m.read('k', CTX, 'off');
  assert.equal(r.value, 1);
  assert.deepEqual([...calls].sort(), ['second-new', 'second-old']);
  // the replacement had no comparison, so no consistency is measured
  assert.ok(!c.events[0].measurements.some((x) => x.key === 'consistent'));
});

test('write() replaces the earlier write configuration', async () => {
  const c = makeClient('off');
  const b = new MigratorBuilder(c.client)
    .read(noop, noop)
    .write(() => 'first', () => 'first')
    .write(() => 'second', () => 'second');
  const r = await b.build().write('k', CTX, 'off');
  assert.equal(r.authoritative.value, 'second');
});

test('build() may be called many times; each migrator is independent', async () => {
  const c = makeClient('off');
  const b = new MigratorBuilder(c.client, { logger: makeLogger().logger }).read(() => 'a', () => 'b').write(noop, noop);
  const m1 = b.build();
  const m2 = b.build();
  assert.notEqual(m1, m2);
  await m1.read('k', CTX, 'off');
  await m1.read('k', CTX, 'off');
  await m2.read('k', CTX, 'off');
  assert.equal(m1.stats().read.count, 2);
  assert.equal(m2.stats().read.count, 1);
  m1.resetStats();
  assert.equal(m1.stats().read.count, 0);
  assert.equal(m2.stats().read.count, 1);
});

test('builder changes after build() do not affect an already built migrator', async () => {
  const c = makeClient('off');
  const b = new MigratorBuilder(c.client, { logger: makeLogger().logger }).read(() => 'before', noop).write(noop, noop);
  const m = b.build();
  b.read(() => 'after', noop);
  assert.equal((await m.read('k', CTX, 'off')).value, 'before');
  assert.equal((await b.build().read('k', CTX, 'off')).value, 'after');
});

test('Migrator#read rejects with TypeError for a non-string flag key (no origin runs, no event)', async () => {
  const { migrator, rec, events, client } = setup({ stage: 'shadow' });
  for (const bad of [42, undefined, null, {}, Symbol('k')]) {
    await assert.rejects(() => migrator.read(bad, CTX, 'off'), TypeError);
  }
  assert.equal(rec.calls.length, 0);
  assert.equal(events.length, 0);
  assert.equal(client.asks.length, 0);
});

test('Migrator#write rejects with TypeError for a non-string flag key', async () => {
  const { migrator, rec, events } = setup({ stage: 'dualwrite' });
  await assert.rejects(() => migrator.write(7, CTX, 'off'), TypeError);
  await assert.rejects(() => migrator.write(null, CTX, 'off'), TypeError);
  assert.equal(rec.calls.length, 0);
  assert.equal(events.length, 0);
});

test('read/write return promises', async () => {
  const { migrator } = setup({ stage: 'off' });
  const p = migrator.read('k', CTX, 'off');
  assert.ok(p instanceof Promise);
  await p;
  const w = migrator.write('k', CTX, 'off');
  assert.ok(w instanceof Promise);
  await w;
});

test('failure and OpTracker / migrationVariation / adapters are callable shapes', () => {
  assert.equal(typeof failure(new Error('x')), 'object');
  assert.ok(new OpTracker('k', CTX, { value: 'off' }, 'off') instanceof OpTracker);
  assert.equal(typeof fixedStage('off').migrationVariation, 'function');
  assert.equal(typeof launchDarklyClient({ migrationVariation: async () => ({ value: 'off' }), trackMigration() {} }).migrationVariation, 'function');
  assert.ok(migrationVariation(makeClient('off').client, 'k', CTX, 'off') instanceof Promise);
});

test('the recorder wrapper: origins receive exactly (payload, signal)', async () => {
  const rec = makeRecorder();
  const c = makeClient('off');
  const m = new MigratorBuilder(c.client).read(rec.origin('old'), rec.origin('new')).write(noop, noop).build();
  await m.read('k', CTX, 'off', { p: 1 });
  assert.equal(rec.calls[0].argc, 2);
  assert.ok(rec.calls[0].signal instanceof AbortSignal);
});
