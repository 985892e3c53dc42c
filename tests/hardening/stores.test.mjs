// Hostile Big Segment stores: memberships with `__proto__`/`constructor`/`prototype` keys,
// non-boolean values, 100 000 entries, arrays, Maps, strings, numbers; no prototype pollution;
// and no context key or context hash in any warn/error log line (stores, Redis, migrations).
// Each test gets its own wasm instance, so one failure cannot take the others down with it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { isA, moduleLoader, sleep, watchProcess } from './helpers/harness.mjs';

const loader = moduleLoader(createRequire(import.meta.url));
test.after(() => loader.dispose());
const fresh = () => loader.fresh();
const watch = watchProcess();
test.after(() => watch.dispose());

function capture() {
  const lines = [];
  const logger = {};
  for (const level of ['debug', 'info', 'warn', 'error']) {
    logger[level] = (...args) => lines.push({ level, text: args.map((a) => String(a)).join(' ') });
  }
  return { logger, lines, loud: () => lines.filter((l) => l.level === 'warn' || l.level === 'error') };
}

const PROTO_KEYS_BEFORE = Object.getOwnPropertyNames(Object.prototype).sort();

function assertNoPollution() {
  assert.equal({}.polluted, undefined, 'Object.prototype.polluted');
  assert.equal({}['seg.g1'], undefined, "Object.prototype['seg.g1']");
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), PROTO_KEYS_BEFORE, 'Object.prototype keys changed');
  assert.equal(Object.getPrototypeOf({}), Object.prototype);
  assert.equal(typeof Object.prototype.toString, 'function');
}

function assertMembershipShape(m) {
  if (m === null) return;
  assert.equal(Object.getPrototypeOf(m), null, 'membership must have a null prototype');
  assert.ok(Object.isFrozen(m), 'membership must be frozen');
  for (const [k, v] of Object.entries(m)) assert.equal(typeof v, 'boolean', `membership[${JSON.stringify(k)}] is ${typeof v}`);
}

function storeAnswering(answer) {
  return {
    getMetadata: async () => ({ lastUpToDate: Date.now() }),
    getMembership: async () => (typeof answer === 'function' ? answer() : answer),
  };
}

async function lookup(cutover, answer, key = 'ctx-key-1') {
  const log = capture();
  const manager = new cutover.BigSegmentStoreManager({ store: storeAnswering(answer), logger: log.logger, queryTimeoutMs: 500 });
  try {
    const result = await Promise.race([
      manager.getUserMembership(key),
      sleep(2000).then(() => assert.fail('lookup did not settle')),
    ]);
    return { ...result, log };
  } finally {
    await manager.close();
  }
}

test('__proto__, constructor and prototype keys are data, never prototypes', async () => {
  const cutover = fresh();
  const answer = JSON.parse('{"__proto__": true, "constructor": false, "prototype": true, "toString": true, "hasOwnProperty": false, "seg.g1": true}');
  const { membership, status } = await lookup(cutover, answer);
  assert.equal(status, 'HEALTHY');
  assertMembershipShape(membership);
  assert.deepEqual(Object.getOwnPropertyDescriptor(membership, '__proto__'), { value: true, writable: false, enumerable: true, configurable: false });
  assert.equal(membership.constructor, false);
  assert.equal(membership.prototype, true);
  assert.equal(membership.toString, true);
  assert.equal(membership['seg.g1'], true);
  assertNoPollution();
});

test('a nested __proto__ object (the classic pollution payload) pollutes nothing', async () => {
  const cutover = fresh();
  for (const payload of [
    '{"__proto__": {"polluted": true, "seg.g1": true}}',
    '{"constructor": {"prototype": {"polluted": true}}}',
    '{"prototype": {"polluted": true}, "seg.g2": false}',
  ]) {
    const { membership } = await lookup(cutover, JSON.parse(payload));
    assertMembershipShape(membership);
    assertNoPollution();
  }
});

test('non-boolean values are dropped; booleans kept', async () => {
  const cutover = fresh();
  const answer = {
    'a.g1': true,
    'b.g1': false,
    'c.g1': 'true',
    'd.g1': 1,
    'e.g1': 0,
    'f.g1': null,
    'g.g1': undefined,
    'h.g1': {},
    'i.g1': [true],
    'j.g1': new Boolean(true), // eslint-disable-line no-new-wrappers
    'k.g1': NaN,
    'l.g1': 1n,
    'm.g1': Symbol('x'),
  };
  const { membership } = await lookup(cutover, answer);
  assertMembershipShape(membership);
  assert.deepEqual({ ...membership }, { 'a.g1': true, 'b.g1': false });
});

test('10 000-entry memberships (the bound) are copied completely and cached; 100 000 are a store error, refused unread', async () => {
  const cutover = fresh();
  const answers = { at: {}, over: {} };
  for (let i = 0; i < 10_000; i++) answers.at[`seg${i}.g1`] = i % 2 === 0;
  for (let i = 0; i < 100_000; i++) answers.over[`seg${i}.g1`] = i % 2 === 0;
  let calls = 0;
  const log = capture();
  const manager = new cutover.BigSegmentStoreManager({
    store: { getMetadata: async () => ({ lastUpToDate: Date.now() }), getMembership: async (hash) => (calls++, hash === cutover.hashContextKey('over') ? answers.over : answers.at) },
    logger: log.logger,
  });
  const first = await manager.getUserMembership('at');
  assertMembershipShape(first.membership);
  assert.equal(Object.keys(first.membership).length, 10_000);
  assert.equal(first.membership['seg9998.g1'], true);
  assert.equal(first.membership['seg9999.g1'], false);
  const second = await manager.getUserMembership('at');
  assert.equal(second.membership, first.membership, 'the cached membership is served again');
  assert.equal(calls, 1);
  const over = await manager.getUserMembership('over');
  assert.deepEqual({ ...over }, { membership: null, status: 'STORE_ERROR' });
  assert.equal((await manager.getUserMembership('over')).status, 'STORE_ERROR');
  assert.equal(calls, 3, 'a refused answer is not cached');
  await manager.close();
});

test('odd answers: arrays, Maps, Sets, strings, numbers, booleans, functions, class instances', async () => {
  const cutover = fresh();
  const seen = {};
  for (const [name, answer] of Object.entries({
    array: [true, false, 'x'],
    map: new Map([['seg.g1', true]]),
    set: new Set(['seg.g1']),
    string: 'seg.g1',
    emptyString: '',
    number: 42,
    zero: 0,
    true: true,
    false: false,
    function: Object.assign(() => {}, { 'seg.g1': true }),
    date: new Date(0),
    instance: new (class Membership {
      constructor() {
        this['seg.g1'] = true;
      }
    })(),
    frozen: Object.freeze({ 'seg.g1': true }),
    nullProto: Object.assign(Object.create(null), { 'seg.g1': false }),
  })) {
    const { membership, status, log } = await lookup(cutover, answer);
    assert.ok(['HEALTHY', 'STORE_ERROR'].includes(status), `${name}: status ${status}`);
    assertMembershipShape(membership);
    seen[name] = membership === null ? null : { ...membership };
    assert.equal(log.loud().length, status === 'STORE_ERROR' ? 1 : 0, `${name}: ${JSON.stringify(log.loud())}`);
  }
  // Documented where it is defined (API.md: Record<string, boolean>); the rest is recorded here
  // so a change of behaviour is a visible decision.
  assert.deepEqual(seen.frozen, { 'seg.g1': true });
  assert.deepEqual(seen.nullProto, { 'seg.g1': false });
  assert.deepEqual(seen.instance, { 'seg.g1': true });
  assert.deepEqual(seen.array, { 0: true, 1: false });
  for (const name of ['map', 'set', 'string', 'emptyString', 'number', 'zero', 'true', 'false', 'date']) {
    assert.deepEqual(seen[name], {}, `${name} → empty membership`);
  }
  assertNoPollution();
});

test('hostile membership objects (throwing getters, proxies, revoked proxies) fail the lookup cleanly', async () => {
  const cutover = fresh();
  const mark = watch.events.length;
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const answers = {
    getter: () => ({
      'seg.g1': true,
      get 'seg.g2'() {
        throw new Error('getter');
      },
    }),
    throwingProxy: () =>
      new Proxy(
        {},
        {
          ownKeys() {
            throw 'ownKeys';
          },
          get() {
            throw 'get';
          },
          getOwnPropertyDescriptor() {
            throw 'gopd';
          },
        },
      ),
    revoked: () => revoked,
  };
  for (const [name, answer] of Object.entries(answers)) {
    const { membership, status } = await lookup(cutover, answer, `key-${name}`);
    assert.ok(['HEALTHY', 'STORE_ERROR'].includes(status), `${name}: ${status}`);
    assertMembershipShape(membership);
  }
  await sleep(10);
  assert.deepEqual(watch.events.slice(mark).map((e) => `${e.kind}: ${String(e.error)}`), [], 'uncaught errors');
  assert.equal(cutover.hashContextKey('user-key'), 'CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=', 'module still works');
});

// ---------------------------------------------------------------------------------------------
// Privacy: no context key, no context hash in warn/error logs

const SECRET = 'ctx-secret-7f3a91';

function leaks(cutover, lines) {
  const hash = cutover.hashContextKey(SECRET);
  const forms = [SECRET, hash, hash.replace(/=+$/, ''), hash.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), encodeURIComponent(hash)];
  return lines.filter((l) => (l.level === 'warn' || l.level === 'error') && forms.some((f) => l.text.includes(f)));
}

test('store failures are logged without the context key or its hash', async () => {
  const cutover = fresh();
  const failures = {
    throwsError: () => {
      throw new Error('connection reset');
    },
    throwsString: () => {
      throw 'down';
    },
    rejects: () => Promise.reject(new TypeError('bad reply')),
    rejectsUndefined: () => Promise.reject(undefined),
    hangs: () => new Promise(() => {}),
    junk: () => 'not a membership',
  };
  for (const [name, getMembership] of Object.entries(failures)) {
    const log = capture();
    const manager = new cutover.BigSegmentStoreManager({
      store: { getMetadata: async () => ({ lastUpToDate: Date.now() }), getMembership },
      logger: log.logger,
      queryTimeoutMs: 20,
    });
    await manager.getUserMembership(SECRET);
    await manager.close();
    assert.deepEqual(leaks(cutover, log.lines), [], `${name}: context key or hash in a warn/error log`);
  }
  for (const [name, getMetadata] of Object.entries(failures)) {
    const log = capture();
    const manager = new cutover.BigSegmentStoreManager({
      store: { getMetadata, getMembership: async () => ({}) },
      logger: log.logger,
      queryTimeoutMs: 20,
    });
    await manager.getUserMembership(SECRET);
    await manager.close();
    assert.deepEqual(leaks(cutover, log.lines), [], `metadata ${name}: context key or hash in a warn/error log`);
  }
});

test('Redis store errors (schema and host) are logged without the context key or its hash', async () => {
  const cutover = fresh();
  const replies = {
    'SMEMBERS returns a number': (args) => (args[0] === 'GET' ? String(Date.now()) : 5),
    'SMEMBERS returns an object': (args) => (args[0] === 'GET' ? String(Date.now()) : { a: 1 }),
    'SMEMBERS returns non-string members': (args) => (args[0] === 'GET' ? String(Date.now()) : [1, {}, null]),
    'host throws with the command': (args) => {
      if (args[0] === 'GET') return String(Date.now());
      throw new Error('ERR unknown command');
    },
  };
  const leaked = [];
  for (const [name, reply] of Object.entries(replies)) {
    for (const withPipeline of [false, true]) {
      const log = capture();
      const host = { command: async (args) => reply(args) };
      if (withPipeline) host.pipeline = async (commands) => commands.map((c) => reply(c));
      const manager = new cutover.BigSegmentStoreManager({ store: cutover.redisBigSegmentStore(host), logger: log.logger });
      const r = await manager.getUserMembership(SECRET);
      await manager.close();
      assert.equal(r.status, 'STORE_ERROR', name);
      assert.ok(log.loud().length > 0, `${name}: the failure is logged`);
      for (const l of leaks(cutover, log.lines)) leaked.push(`${name}${withPipeline ? ' (pipeline)' : ''} → ${l.level}: ${l.text}`);
    }
  }
  assert.deepEqual(leaked, [], 'context hash in warn/error logs');
});

test('migration warnings and errors do not carry the context key', async () => {
  const cutover = fresh();
  const log = capture();
  const client = {
    migrationVariation: (key, ctx) => (ctx.key === SECRET ? { value: 'not-a-stage', reason: { kind: 'FALLTHROUGH' } } : 'off'),
    trackMigrationOp() {
      throw new Error('tracking failed');
    },
  };
  const m = new cutover.MigratorBuilder(client, { logger: log.logger })
    .read(
      () => 1,
      () => 2,
      () => {
        throw new Error('comparison failed');
      },
    )
    .write(
      () => 1,
      () => {
        throw new Error('write failed');
      },
    )
    .build();
  await m.read('flag', { kind: 'user', key: SECRET }, 'bogus-default');
  await m.read('flag', { kind: 'us er', key: SECRET }, 'shadow');
  const c = new AbortController();
  const w = m.write('flag', { kind: 'user', key: SECRET }, 'dualwrite', undefined, { signal: c.signal });
  c.abort();
  await w.catch(() => {});
  await m.write('flag', { kind: 'user', key: SECRET }, 'live');
  assert.ok(log.loud().length > 0);
  assert.deepEqual(leaks(cutover, log.lines), []);
});
