// Contexts cross by reference — API.md §1 (Context, MigrationClient, MigrationOpEvent); SPEC.md A5.4
// (which contexts are valid), A6 (`context` as given), A7 (asking the client).
// The caller's context object is what the flag client is asked with and what the event carries
// (`===`), however large, cyclic, deep or hostile its other attributes are: cutover reads `kind`,
// `key` (and, for a multi-kind context, each nested context's `key`) and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MigratorBuilder } from 'cutover';
import { makeLogger } from './helpers/migration.mjs';

const T = { timeout: 5000 };
const INVALID = 'error generating migration op event provided context was invalid; no event will be emitted';

/** A migrator whose client serves `stage` and records every ask and event. */
function setup(stage = 'off') {
  const asks = [];
  const events = [];
  const log = makeLogger();
  const client = {
    migrationVariation(flagKey, context, defaultStage) {
      asks.push({ flagKey, context, defaultStage });
      return stage;
    },
    trackMigrationOp(event) {
      events.push(event);
    },
  };
  const migrator = new MigratorBuilder(client, { logger: log.logger })
    .read(() => 'old-read', () => 'new-read')
    .write(() => 'old-write', () => 'new-write')
    .build();
  return { migrator, asks, events, log };
}

const errorsOf = (log) => JSON.stringify(log.calls.filter((c) => c.level === 'error').map((c) => c.text));

/** Reads (and writes) with `ctx` and asserts the ask and the event carry the very object. */
async function assertCrossesByReference(ctx, { stage = 'off', write = true } = {}) {
  const { migrator, asks, events, log } = setup(stage);
  const r = await migrator.read('flag', ctx, 'off');
  assert.equal(r.success, true);
  assert.equal(r.value, ['off', 'dualwrite', 'shadow'].includes(stage) ? 'old-read' : 'new-read');
  assert.equal(asks.length, 1);
  assert.ok(asks[0].context === ctx, 'migrationVariation receives the caller\'s context object (===)');
  assert.equal(events.length, 1, `one event (error logs: ${errorsOf(log)})`);
  assert.ok(events[0].context === ctx, 'the read event\'s context is the caller\'s object (===)');
  if (write) {
    const w = await migrator.write('flag', ctx, 'off');
    assert.equal(w.authoritative.success, true);
    assert.ok(asks[1].context === ctx, 'migrationVariation receives the caller\'s context object on write (===)');
    assert.equal(events.length, 2, `two events (error logs: ${errorsOf(log)})`);
    assert.ok(events[1].context === ctx, 'the write event\'s context is the caller\'s object (===)');
  }
  assert.deepEqual(log.texts('error'), []);
  return { migrator, asks, events, log };
}

// ---- identity ----

test('single-kind context: the event carries the same object that was passed to read()/write()', T, async () => {
  await assertCrossesByReference({ kind: 'user', key: 'u1', name: 'Ann', tags: ['a', 'b'] });
});

test('multi-kind context: the event carries the same object (nested contexts included)', T, async () => {
  const ctx = { kind: 'multi', user: { key: 'u' }, org: { key: 'o' } };
  const { events } = await assertCrossesByReference(ctx, { stage: 'shadow' });
  assert.ok(events[0].context.user === ctx.user && events[0].context.org === ctx.org, 'nested contexts are the caller\'s');
});

test('legacy user { key }: the event carries the same object', T, async () => {
  await assertCrossesByReference({ key: 'legacy-user', email: 'x@example.com' }, { stage: 'complete' });
});

test('a frozen context crosses by reference too', T, async () => {
  await assertCrossesByReference(Object.freeze({ kind: 'org', key: 'o1', nested: Object.freeze({ a: 1 }) }));
});

test('migrationVariation receives the caller\'s context by identity, with flag key and default stage', T, async () => {
  const { migrator, asks } = setup('live');
  const contexts = [
    { kind: 'user', key: 'u' },
    { kind: 'multi', user: { key: 'u' }, org: { key: 'o' } },
    { key: 'legacy' },
  ];
  for (const ctx of contexts) {
    await migrator.read('flag-r', ctx, 'rampdown');
    await migrator.write('flag-w', ctx, 'dualwrite');
  }
  assert.equal(asks.length, 6);
  contexts.forEach((ctx, i) => {
    assert.ok(asks[2 * i].context === ctx, `read ask ${i} got the caller's object`);
    assert.ok(asks[2 * i + 1].context === ctx, `write ask ${i} got the caller's object`);
  });
  assert.deepEqual(
    asks.map((a) => [a.flagKey, a.defaultStage]),
    [['flag-r', 'rampdown'], ['flag-w', 'dualwrite'], ['flag-r', 'rampdown'], ['flag-w', 'dualwrite'], ['flag-r', 'rampdown'], ['flag-w', 'dualwrite']],
  );
});

test('attributes changed after the operation show in the event: it holds the object, not a snapshot', T, async () => {
  const ctx = { kind: 'user', key: 'u', plan: 'free' };
  const { migrator, events } = setup('off');
  await migrator.read('flag', ctx, 'off');
  ctx.plan = 'pro';
  assert.equal(events[0].context.plan, 'pro');
});

// ---- large, cyclic, deep and hostile attributes ----

test('a context with 10,000 attributes: reads return normally and every event carries the caller\'s object', T, async () => {
  const ctx = { kind: 'user', key: 'big' };
  for (let i = 0; i < 10_000; i++) ctx[`attr${i}`] = `value-${i}`;
  const { migrator, asks, events, log } = setup('shadow');
  for (let i = 0; i < 20; i++) {
    const r = await migrator.read('flag', ctx, 'off');
    assert.equal(r.value, 'old-read');
  }
  assert.equal(events.length, 20, `20 events (error logs: ${errorsOf(log)})`);
  assert.ok(events.every((e) => e.context === ctx), 'every event carries the caller\'s object');
  assert.ok(asks.every((a) => a.context === ctx), 'every ask carries the caller\'s object');
  assert.deepEqual(log.texts('error'), []);
});

test('a cyclic context (ctx.self = ctx): the read succeeds and the event carries the caller\'s object', T, async () => {
  const ctx = { kind: 'user', key: 'loop' };
  ctx.self = ctx;
  await assertCrossesByReference(ctx);
});

test('a multi-kind context with a cycle through a nested context: the event carries the caller\'s object', T, async () => {
  const ctx = { kind: 'multi', user: { key: 'u' }, org: { key: 'o' } };
  ctx.user.parent = ctx;
  await assertCrossesByReference(ctx);
});

test('a context nested 10,000 levels deep: the read succeeds and the event carries the caller\'s object', T, async () => {
  let deep = { leaf: true };
  for (let i = 0; i < 10_000; i++) deep = { child: deep };
  let deepArray = [];
  for (let i = 0; i < 10_000; i++) deepArray = [deepArray];
  await assertCrossesByReference({ kind: 'user', key: 'deep', deep, deepArray });
});

function throwingGetter(target, name, counter) {
  Object.defineProperty(target, name, {
    enumerable: true,
    configurable: true,
    get() {
      counter.count++;
      throw new Error(`attribute ${name} must not be read`);
    },
  });
}

test('a getter that throws on an attribute other than kind/key is never invoked; the event carries the object', T, async () => {
  const counter = { count: 0 };
  const ctx = { kind: 'user', key: 'g' };
  throwingGetter(ctx, 'secret', counter);
  throwingGetter(ctx, 'name', counter);
  await assertCrossesByReference(ctx, { stage: 'live' });
  assert.equal(counter.count, 0, 'the throwing getters were never invoked');
});

test('a throwing getter on a legacy user\'s other attribute is never invoked', T, async () => {
  const counter = { count: 0 };
  const ctx = { key: 'legacy' };
  throwingGetter(ctx, 'email', counter);
  await assertCrossesByReference(ctx);
  assert.equal(counter.count, 0);
});

test('a throwing getter on a nested context\'s other attribute (multi-kind) is never invoked', T, async () => {
  const counter = { count: 0 };
  const ctx = { kind: 'multi', user: { key: 'u' }, org: { key: 'o' } };
  throwingGetter(ctx.user, 'email', counter);
  throwingGetter(ctx.org, 'name', counter);
  await assertCrossesByReference(ctx);
  assert.equal(counter.count, 0);
});

const PROXY_TRAPS = [
  'getPrototypeOf', 'setPrototypeOf', 'isExtensible', 'preventExtensions', 'getOwnPropertyDescriptor',
  'defineProperty', 'has', 'set', 'deleteProperty', 'ownKeys', 'apply', 'construct',
];

/** A proxy over `target` whose only working operation is `get` of 'kind' and 'key'. */
function hostileProxy(target) {
  const other = [];
  const handler = {
    get(t, prop) {
      if (prop === 'kind' || prop === 'key') return t[prop];
      other.push(`get ${String(prop)}`);
      throw new Error(`get ${String(prop)} is not allowed`);
    },
  };
  for (const trap of PROXY_TRAPS) {
    handler[trap] = (t, prop) => {
      other.push(`${trap}${typeof prop === 'string' || typeof prop === 'symbol' ? ` ${String(prop)}` : ''}`);
      throw new Error(`${trap} is not allowed`);
    };
  }
  return { proxy: new Proxy(target, handler), other };
}

test('a Proxy context whose every trap but get of kind/key throws: the read succeeds, no other trap runs', T, async () => {
  const { proxy, other } = hostileProxy({ kind: 'user', key: 'p', name: 'hidden', nested: { a: 1 } });
  const { migrator, asks, events, log } = setup('shadow');
  const r = await migrator.read('flag', proxy, 'off');
  assert.equal(r.success, true);
  assert.equal(r.value, 'old-read');
  assert.deepEqual(other, [], 'no trap other than get of kind/key was invoked');
  assert.ok(asks[0].context === proxy, 'migrationVariation receives the proxy itself');
  assert.equal(events.length, 1, `one event (error logs: ${errorsOf(log)})`);
  assert.ok(events[0].context === proxy, 'the event carries the proxy itself');

  const w = await migrator.write('flag', proxy, 'off');
  assert.equal(w.authoritative.success, true);
  assert.equal(events.length, 2);
  assert.ok(events[1].context === proxy);
  assert.deepEqual(other, [], 'no trap other than get of kind/key was invoked (write)');
  assert.deepEqual(log.texts('error'), []);
});

// ---- SPEC A5.4: hostile kind/key still validated ----

function throwingKey(target = {}) {
  Object.defineProperty(target, 'key', {
    enumerable: true,
    get() {
      throw new Error('key getter throws');
    },
  });
  return target;
}

const INVALID_CONTEXTS = {
  'key getter that throws': () => throwingKey({ kind: 'user' }),
  'legacy user whose key getter throws': () => throwingKey({}),
  'key that is a number': () => ({ kind: 'user', key: 42 }),
  'empty key': () => ({ kind: 'user', key: '' }),
  'kind "multi" with a key': () => ({ kind: 'multi', key: 'x', user: { key: 'u' } }),
  'kind "kind"': () => ({ kind: 'kind', key: 'x' }),
  'kind with a space': () => ({ kind: 'us er', key: 'x' }),
  'multi whose nested context\'s key getter throws': () => ({ kind: 'multi', user: throwingKey({ name: 'n' }) }),
  'multi with one good and one nested key getter that throws': () => ({ kind: 'multi', org: { key: 'o' }, user: throwingKey() }),
  'multi-kind with no nested contexts': () => ({ kind: 'multi' }),
};

for (const [name, make] of Object.entries(INVALID_CONTEXTS)) {
  test(`invalid context (${name}): the operation runs, no event, the A5.4 build error is logged`, T, async () => {
    const ctx = make();
    const { migrator, asks, events, log } = setup('off');
    const r = await migrator.read('flag', ctx, 'off');
    assert.equal(r.success, true);
    assert.equal(r.value, 'old-read');
    const w = await migrator.write('flag', ctx, 'off');
    assert.equal(w.authoritative.value, 'old-write');
    assert.ok(asks.length === 2 && asks.every((a) => a.context === ctx), 'the client is still asked with the caller\'s object');
    assert.equal(events.length, 0, 'no event is sent');
    assert.deepEqual(log.texts('error'), [INVALID, INVALID], errorsOf(log));
  });
}

const VALID_CONTEXTS = {
  'kind with . _ - characters': () => ({ kind: 'my.org_kind-2', key: 'k' }),
  'kind of digits and letters': () => ({ kind: 'Device9', key: 'd' }),
  '_meta at the top of a single context': () => ({ kind: 'org', key: 'o', _meta: { privateAttributes: ['name'] }, name: 'x' }),
  'multi with punctuated nested kinds': () => ({ kind: 'multi', 'my.org': { key: 'o' }, user_2: { key: 'u' }, 'dev-ice': { key: 'd' } }),
};

for (const [name, make] of Object.entries(VALID_CONTEXTS)) {
  test(`valid context (${name}) produces events carrying the caller's object`, T, async () => {
    await assertCrossesByReference(make());
  });
}

// ---- the evaluation reason crosses by reference too ----

test("the flag's reason object is the event's evaluation.reason (===), never read or copied", T, async () => {
  const events = [];
  let reads = 0;
  // A reason whose attributes count every read: cutover must not look inside it.
  const reason = new Proxy({ kind: 'RULE_MATCH', ruleIndex: 2 }, {
    get(target, name) {
      reads++;
      return target[name];
    },
    ownKeys(target) {
      reads++;
      return Reflect.ownKeys(target);
    },
  });
  const client = {
    migrationVariation: () => ({ value: 'live', reason, variationIndex: 3 }),
    trackMigrationOp: (event) => events.push(event),
  };
  const migrator = new MigratorBuilder(client).read(() => 'o', () => 'n').write(() => 'o', () => 'n').build();
  const r = await migrator.read('flag', { kind: 'user', key: 'u' }, 'off');
  assert.equal(r.value, 'n');
  assert.equal(events.length, 1);
  assert.ok(events[0].evaluation.reason === reason, 'the reason is the flag client\'s own object');
  assert.equal(reads, 0, 'no attribute of the reason was read');
  assert.deepEqual(events[0].evaluation, { key: 'flag', value: 'live', default: 'off', reason, variation: 3 });
});

test("cutover's own error reason when the flag serves a non-stage value", T, async () => {
  const events = [];
  const client = {
    migrationVariation: () => ({ value: 'sideways', reason: { kind: 'FALLTHROUGH' } }),
    trackMigrationOp: (event) => events.push(event),
  };
  const migrator = new MigratorBuilder(client, { logger: makeLogger().logger })
    .read(() => 'o', () => 'n')
    .write(() => 'o', () => 'n')
    .build();
  await migrator.read('flag', { kind: 'user', key: 'u' }, 'shadow');
  assert.deepEqual(events[0].evaluation.reason, { kind: 'ERROR', errorKind: 'WRONG_TYPE' });
});
