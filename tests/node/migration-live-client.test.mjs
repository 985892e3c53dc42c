// Everything the caller owns is read live — API.md §1 (MigrationClient, ExternalTracker, builder
// `logger`), §3 (Logger); SPEC.md A6 (sending the event), A7 (asking the client), A9 (tracker
// delegation). A migrator keeps the caller's objects, not copies of their methods taken at build():
// a method replaced, added or deleted afterwards is what the next operation sees, and every call
// is made with the caller's object as `this`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MigratorBuilder } from 'cutover';
import { CTX, makeLogger } from './helpers/migration.mjs';

const T = { timeout: 5000 };

/** A migrator over `client` whose origins return 'old-read'/'new-read' and 'old-write'/'new-write'. */
function build(client, opts = {}) {
  const log = opts.log ?? makeLogger();
  const builder = new MigratorBuilder(client, { logger: opts.logger ?? log.logger });
  if (opts.comparison) builder.read(() => 'old-read', () => 'new-read', opts.comparison);
  else builder.read(() => 'old-read', () => 'new-read');
  builder.write(() => 'old-write', () => 'new-write');
  return { migrator: builder.build(), log };
}

/** Like jest.spyOn: keeps the original, installs a recording wrapper that calls it, can restore. */
function spyOn(object, name) {
  const original = object[name];
  const calls = [];
  object[name] = function spy(...args) {
    calls.push({ self: this, args });
    return original.apply(this, args);
  };
  return {
    calls,
    restore() {
      object[name] = original;
    },
  };
}

/** A plain client whose own methods count their calls and record `this`. */
function plainClient(stage = 'off', { track = true } = {}) {
  const state = { asks: [], events: [], askThis: [], trackThis: [] };
  state.client = {
    migrationVariation(key, context, defaultStage) {
      state.asks.push({ key, context, defaultStage });
      state.askThis.push(this);
      return stage;
    },
  };
  if (track) {
    state.client.trackMigrationOp = function (event) {
      state.events.push(event);
      state.trackThis.push(this);
    };
  }
  return state;
}

/** An ExternalTracker whose six methods record `[name, this, ...args]`. */
function recordingTracker(event = { kind: 'migration_op', fromTracker: 1 }) {
  const calls = [];
  const tracker = {
    op(operation) {
      calls.push(['op', this, operation]);
    },
    invoked(origin) {
      calls.push(['invoked', this, origin]);
    },
    latency(origin, ms) {
      calls.push(['latency', this, origin, ms]);
    },
    error(origin) {
      calls.push(['error', this, origin]);
    },
    consistency(check) {
      calls.push(['consistency', this, typeof check]);
      check();
    },
    createEvent() {
      calls.push(['createEvent', this]);
      return event;
    },
  };
  return { tracker, calls, event, names: () => calls.map((c) => c[0]) };
}

// ---- client.migrationVariation ----

test('migrationVariation replaced by plain assignment after build() is used by the next read', T, async () => {
  const c = plainClient('off');
  const { migrator } = build(c.client);
  assert.equal((await migrator.read('flag', CTX, 'off')).value, 'old-read');
  assert.equal(c.asks.length, 1);

  let replacementCalls = 0;
  c.client.migrationVariation = () => {
    replacementCalls++;
    return 'complete';
  };
  const r = await migrator.read('flag', CTX, 'off');
  assert.equal(replacementCalls, 1, 'the replacement was asked');
  assert.equal(c.asks.length, 1, 'the original is not asked any more');
  assert.equal(r.value, 'new-read', 'the replacement\'s stage (complete) ran');
  assert.equal(r.origin, 'new');
  assert.equal(c.events.at(-1).evaluation.value, 'complete');
});

test('migrationVariation replaced by plain assignment after build() is used by the next write', T, async () => {
  const c = plainClient('off');
  const { migrator } = build(c.client);
  assert.equal((await migrator.write('flag', CTX, 'off')).authoritative.origin, 'old');

  c.client.migrationVariation = () => 'complete';
  const w = await migrator.write('flag', CTX, 'off');
  assert.equal(w.authoritative.origin, 'new');
  assert.equal(w.authoritative.value, 'new-write');
  assert.equal(w.nonAuthoritative, undefined);
  assert.equal(c.asks.length, 1, 'the original is not asked any more');
  assert.equal(c.events.at(-1).evaluation.value, 'complete');
});

test('migrationVariation replaced before the first operation (right after build) is used', T, async () => {
  const c = plainClient('off');
  const { migrator } = build(c.client);
  c.client.migrationVariation = async () => ({ value: 'rampdown', flagVersion: 4 });
  const r = await migrator.read('flag', CTX, 'off');
  assert.equal(r.origin, 'new');
  assert.equal(c.asks.length, 0, 'the build-time method is never asked');
  assert.equal(c.events[0].evaluation.value, 'rampdown');
  assert.equal(c.events[0].evaluation.version, 4);
});

test('a spy wrapper installed on migrationVariation after build() sees the next read and write; restore stops it', T, async () => {
  const c = plainClient('shadow');
  const { migrator } = build(c.client);
  await migrator.read('flag', CTX, 'off'); // before the spy: nothing to record

  const spy = spyOn(c.client, 'migrationVariation');
  const r = await migrator.read('flag-r', CTX, 'live', 'payload');
  assert.equal(r.value, 'old-read', 'the wrapper passes the original\'s answer (shadow) through');
  assert.equal(spy.calls.length, 1, 'the wrapper saw the read');
  assert.deepEqual(spy.calls[0].args, ['flag-r', CTX, 'live']);
  assert.ok(spy.calls[0].self === c.client, 'the wrapper is called with the client as this');

  const w = await migrator.write('flag-w', CTX, 'rampdown');
  assert.equal(w.authoritative.origin, 'old');
  assert.equal(spy.calls.length, 2, 'the wrapper saw the write');
  assert.deepEqual(spy.calls[1].args, ['flag-w', CTX, 'rampdown']);
  assert.equal(c.asks.length, 3, 'the original ran through the wrapper');

  spy.restore();
  await migrator.read('flag', CTX, 'off');
  assert.equal(spy.calls.length, 2, 'after restore the wrapper is not called');
  assert.equal(c.asks.length, 4);
});

test('migrationVariation is called with the client as this', T, async () => {
  const c = plainClient('off');
  const { migrator } = build(c.client);
  await migrator.read('flag', CTX, 'off');
  await migrator.write('flag', CTX, 'off');
  assert.equal(c.askThis.length, 2);
  assert.ok(c.askThis.every((self) => self === c.client), 'this === the client');
});

// ---- client.trackMigrationOp ----

test('trackMigrationOp added after build() to a client that had none: the next read and write events are delivered', T, async () => {
  const c = plainClient('off', { track: false });
  const { migrator, log } = build(c.client);
  await migrator.read('flag', CTX, 'off'); // nothing to deliver to yet

  const events = [];
  const selves = [];
  c.client.trackMigrationOp = function (event) {
    events.push(event);
    selves.push(this);
  };
  await migrator.read('flag', CTX, 'off');
  assert.equal(events.length, 1, 'the added trackMigrationOp got the read event');
  assert.equal(events[0].kind, 'migration_op');
  assert.equal(events[0].operation, 'read');
  await migrator.write('flag', CTX, 'off');
  assert.equal(events.length, 2, 'and the write event');
  assert.equal(events[1].operation, 'write');
  assert.ok(selves.every((self) => self === c.client), 'called with the client as this');
  assert.deepEqual(log.texts('error'), []);
});

test('trackMigrationOp replaced after build(): the new function gets the next event, the old one does not', T, async () => {
  const c = plainClient('shadow');
  const { migrator } = build(c.client);
  await migrator.read('flag', CTX, 'off');
  assert.equal(c.events.length, 1);

  const events = [];
  c.client.trackMigrationOp = (event) => events.push(event);
  await migrator.read('flag', CTX, 'off');
  await migrator.write('flag', CTX, 'off');
  assert.equal(c.events.length, 1, 'the build-time trackMigrationOp gets nothing more');
  assert.deepEqual(events.map((e) => e.operation), ['read', 'write']);
});

test('a spy wrapper installed on trackMigrationOp after build() sees the next event', T, async () => {
  const c = plainClient('live');
  const { migrator } = build(c.client);
  const spy = spyOn(c.client, 'trackMigrationOp');
  await migrator.write('flag', CTX, 'off');
  assert.equal(spy.calls.length, 1);
  assert.ok(spy.calls[0].self === c.client, 'this === the client');
  assert.equal(spy.calls[0].args.length, 1);
  assert.ok(spy.calls[0].args[0] === c.events[0], 'the wrapper passed the very event to the original');
  assert.equal(c.events[0].operation, 'write');
});

test('trackMigrationOp deleted after build(): no event, nothing thrown, operations resolve normally', T, async () => {
  const c = plainClient('shadow');
  const { migrator, log } = build(c.client);
  await migrator.read('flag', CTX, 'off');
  assert.equal(c.events.length, 1);

  delete c.client.trackMigrationOp;
  const r = await migrator.read('flag', CTX, 'off');
  assert.equal(r.success, true);
  assert.equal(r.value, 'old-read');
  const w = await migrator.write('flag', CTX, 'off');
  assert.equal(w.authoritative.success, true);
  assert.equal(w.nonAuthoritative.success, true);
  assert.equal(c.events.length, 1, 'the deleted function is not called');
  assert.deepEqual(log.texts('error'), [], 'a client without trackMigrationOp is not an error');
});

test('trackMigrationOp set to undefined after build(): no event, nothing thrown', T, async () => {
  const c = plainClient('off');
  const { migrator, log } = build(c.client);
  c.client.trackMigrationOp = undefined;
  assert.equal((await migrator.read('flag', CTX, 'off')).value, 'old-read');
  assert.equal((await migrator.write('flag', CTX, 'off')).authoritative.value, 'old-write');
  assert.equal(c.events.length, 0);
  assert.deepEqual(log.texts('error'), []);
});

// ---- a class instance whose prototype methods change ----

test('a class-instance client: prototype methods replaced after build() are used, with the instance as this', T, async () => {
  class FlagClient {
    constructor() {
      this.stage = 'off';
      this.events = [];
      this.legacyEvents = [];
    }
    migrationVariation() {
      return this.stage;
    }
    trackMigrationOp(event) {
      this.legacyEvents.push(event);
    }
  }
  const instance = new FlagClient();
  const { migrator } = build(instance);
  assert.equal((await migrator.read('flag', CTX, 'off')).origin, 'old');
  assert.equal(instance.legacyEvents.length, 1);

  const seen = [];
  FlagClient.prototype.migrationVariation = function (key, context, defaultStage) {
    seen.push({ self: this, key, context, defaultStage });
    return { value: 'complete', flagVersion: this.events.length + 10 };
  };
  FlagClient.prototype.trackMigrationOp = function (event) {
    this.events.push(event);
  };

  const r = await migrator.read('flag', CTX, 'live');
  assert.equal(r.origin, 'new', 'the new prototype method\'s stage (complete) ran');
  assert.equal(seen.length, 1);
  assert.ok(seen[0].self === instance, 'this === the instance');
  assert.deepEqual([seen[0].key, seen[0].context, seen[0].defaultStage], ['flag', CTX, 'live']);
  assert.equal(instance.events.length, 1, 'the new prototype trackMigrationOp got the event (this === instance)');
  assert.equal(instance.events[0].evaluation.version, 10);
  assert.equal(instance.legacyEvents.length, 1, 'the old prototype trackMigrationOp is not called');

  const w = await migrator.write('flag', CTX, 'off');
  assert.equal(w.authoritative.origin, 'new');
  assert.equal(instance.events.length, 2);
});

test('a class-instance client: an own property shadowing the prototype method after build() is used', T, async () => {
  class FlagClient {
    migrationVariation() {
      return 'off';
    }
  }
  const instance = new FlagClient();
  const { migrator } = build(instance);
  assert.equal((await migrator.read('flag', CTX, 'off')).origin, 'old');
  instance.migrationVariation = () => 'rampdown';
  assert.equal((await migrator.read('flag', CTX, 'off')).origin, 'new');
  delete instance.migrationVariation; // the prototype's again
  assert.equal((await migrator.read('flag', CTX, 'off')).origin, 'old');
});

// ---- an external tracker ----

test('an external tracker returned on every op: all six methods are called with the tracker as this', T, async () => {
  const t = recordingTracker();
  const events = [];
  const client = {
    migrationVariation: () => ({ value: 'shadow', tracker: t.tracker }),
    trackMigrationOp: (e) => events.push(e),
  };
  const { migrator } = build(client, { comparison: (a, b) => a === b });
  const r = await migrator.read('flag', CTX, 'off');
  assert.equal(r.value, 'old-read');
  const names = new Set(t.names());
  for (const name of ['op', 'invoked', 'latency', 'consistency', 'createEvent']) assert.ok(names.has(name), `${name} called`);
  assert.ok(t.calls.every((c) => c[1] === t.tracker), 'every tracker method is called with the tracker as this');
  assert.equal(events.length, 1);
  assert.ok(events[0] === t.event, 'the createEvent() object is what trackMigrationOp receives');

  // error() too: a failing origin
  const t2 = recordingTracker();
  const client2 = { migrationVariation: () => ({ value: 'off', tracker: t2.tracker }) };
  const b2 = new MigratorBuilder(client2, { logger: makeLogger().logger })
    .read(() => { throw new Error('boom'); }, () => 'n')
    .write(() => 1, () => 2)
    .build();
  assert.equal((await b2.read('flag', CTX, 'off')).success, false);
  const err = t2.calls.find((c) => c[0] === 'error');
  assert.ok(err, 'error() called');
  assert.ok(err[1] === t2.tracker, 'error() called with the tracker as this');
  assert.equal(err[2], 'old');
});

test('an external tracker: tracker.latency replaced between operations → the replacement is called on the next one', T, async () => {
  const t = recordingTracker();
  const client = { migrationVariation: () => ({ value: 'shadow', tracker: t.tracker }), trackMigrationOp() {} };
  const { migrator } = build(client);
  await migrator.read('flag', CTX, 'off');
  const originalLatencies = t.calls.filter((c) => c[0] === 'latency').length;
  assert.equal(originalLatencies, 2, 'the original latency() was called for old and new');

  const replaced = [];
  t.tracker.latency = function (origin, ms) {
    replaced.push({ self: this, origin, ms });
  };
  await migrator.read('flag', CTX, 'off');
  assert.deepEqual(replaced.map((c) => c.origin).sort(), ['new', 'old'], 'the replacement got both latencies');
  assert.ok(replaced.every((c) => typeof c.ms === 'number' && c.ms >= 0));
  assert.ok(replaced.every((c) => c.self === t.tracker), 'this === the tracker');
  assert.equal(t.calls.filter((c) => c[0] === 'latency').length, originalLatencies, 'the original is not called again');
  // the rest of the tracker is still used
  assert.equal(t.calls.filter((c) => c[0] === 'op').length, 2);
});

test('an external tracker: tracker.createEvent replaced between operations → its object is what trackMigrationOp receives', T, async () => {
  const first = { kind: 'migration_op', n: 1 };
  const second = { kind: 'migration_op', n: 2 };
  const t = recordingTracker(first);
  const events = [];
  const client = {
    migrationVariation: () => ({ value: 'live', tracker: t.tracker }),
    trackMigrationOp: (e) => events.push(e),
  };
  const { migrator } = build(client);
  await migrator.write('flag', CTX, 'off');
  assert.equal(events.length, 1);
  assert.ok(events[0] === first, 'the original createEvent() object is sent');

  let calls = 0;
  let self;
  t.tracker.createEvent = function () {
    calls++;
    self = this;
    return second;
  };
  await migrator.write('flag', CTX, 'off');
  assert.equal(calls, 1, 'the replacement createEvent() is called once for the operation');
  assert.ok(self === t.tracker, 'this === the tracker');
  assert.equal(events.length, 2);
  assert.ok(events[1] === second, 'the replacement\'s object is sent');
  assert.equal(t.calls.filter((c) => c[0] === 'createEvent').length, 1, 'the original createEvent() is not called again');
});

test('an external tracker: a spy wrapper installed on tracker.op and tracker.invoked between operations sees the next one', T, async () => {
  const t = recordingTracker();
  const client = { migrationVariation: () => ({ value: 'rampdown', tracker: t.tracker }) };
  const { migrator } = build(client);
  await migrator.read('flag', CTX, 'off');
  const op = spyOn(t.tracker, 'op');
  const invoked = spyOn(t.tracker, 'invoked');
  await migrator.write('flag', CTX, 'off');
  assert.deepEqual(op.calls.map((c) => c.args[0]), ['write']);
  assert.deepEqual(invoked.calls.map((c) => c.args[0]), ['new', 'old'], 'rampdown write: new then old');
  assert.ok([...op.calls, ...invoked.calls].every((c) => c.self === t.tracker), 'this === the tracker');
  op.restore();
  invoked.restore();
  await migrator.read('flag', CTX, 'off');
  assert.equal(op.calls.length, 1, 'restored: the wrapper is not called');
});

test('an external tracker: tracker.consistency replaced between operations → the replacement decides the next check', T, async () => {
  const t = recordingTracker();
  let compared = 0;
  const client = { migrationVariation: () => ({ value: 'shadow', tracker: t.tracker }) };
  const { migrator } = build(client, { comparison: () => { compared++; return true; } });
  await migrator.read('flag', CTX, 'off');
  assert.equal(compared, 1, 'the original consistency() ran the check');

  const results = [];
  let self;
  t.tracker.consistency = function (check) {
    self = this;
    results.push(check());
    results.push(check());
  };
  await migrator.read('flag', CTX, 'off');
  assert.deepEqual(results, [true, true], 'the replacement ran the check (twice, its own choice)');
  assert.ok(self === t.tracker, 'this === the tracker');
  assert.equal(compared, 3);
  assert.equal(t.calls.filter((c) => c[0] === 'consistency').length, 1, 'the original is not called again');
});

// ---- the builder's logger ----

test('logger.error replaced after build(): a throwing comparison is logged to the replacement, with the logger as this', T, async () => {
  const original = [];
  const logger = {
    debug() {},
    info() {},
    warn() {},
    error: (...a) => original.push(a),
  };
  const client = { migrationVariation: () => 'shadow' };
  const migrator = new MigratorBuilder(client, { logger })
    .read(() => 1, () => 1, () => { throw new Error('comparison exploded'); })
    .write(() => 1, () => 1)
    .build();
  await migrator.read('flag', CTX, 'off');
  assert.equal(original.length, 1, 'the build-time logger.error got the first comparison error');

  const replacement = [];
  logger.error = function (...a) {
    replacement.push({ self: this, text: a.map(String).join(' ') });
  };
  const r = await migrator.read('flag', CTX, 'off');
  assert.equal(r.success, true, 'a throwing comparison never fails the read');
  assert.equal(replacement.length, 1, 'the replacement got the next error-level log');
  assert.ok(replacement[0].self === logger, 'this === the logger');
  assert.equal(original.length, 1, 'the build-time error method is not called again');
});

test('logger.error replaced after build(): an invalid default stage is logged to the replacement', T, async () => {
  const log = makeLogger();
  const c = plainClient('not-served');
  const { migrator } = build(c.client, { log });
  const replacement = [];
  log.logger.error = function (...a) {
    replacement.push({ self: this, text: a.map(String).join(' ') });
  };
  await migrator.write('flag', CTX, 'bogus');
  assert.ok(
    replacement.some((c) => c.text.includes(`default stage "bogus" is not a valid stage; using 'off' instead`)),
    JSON.stringify(replacement.map((c) => c.text)),
  );
  assert.ok(replacement.every((c) => c.self === log.logger), 'this === the logger');
  assert.equal(log.calls.filter((c) => c.level === 'error').length, 0, 'the build-time error method is not called');
});

test('logger.error deleted after build(): nothing breaks; added back, the new one gets the next error', T, async () => {
  const dropped = [];
  const logger = { debug() {}, info() {}, warn() {}, error: (...a) => dropped.push(a) };
  const events = [];
  const client = { migrationVariation: () => 'off', trackMigrationOp: (e) => events.push(e) };
  const migrator = new MigratorBuilder(client, { logger }).read(() => 1, () => 2).write(() => 1, () => 2).build();

  delete logger.error;
  // invalid context: an error-level log with nowhere to go
  assert.equal((await migrator.read('flag', { kind: 'multi' }, 'off')).value, 1);
  assert.equal((await migrator.write('flag', { kind: 'multi' }, 'off')).authoritative.value, 1);
  assert.equal(dropped.length, 0, 'the deleted method is not called');

  const lines = [];
  logger.error = function (...a) {
    lines.push({ self: this, text: a.map(String).join(' ') });
  };
  await migrator.read('flag', { kind: 'multi' }, 'off');
  assert.deepEqual(
    lines.map((l) => l.text),
    ['error generating migration op event provided context was invalid; no event will be emitted'],
  );
  assert.ok(lines[0].self === logger, 'this === the logger');
  assert.equal(events.length, 0);
});
