// Membership objects: frozen, null-prototype, copied; `__proto__` is data — API.md §2, SPEC.md B5.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BigSegmentStoreManager } from 'cutover';
import { makeStore } from './helpers/segments.mjs';

function managerFor(answer, options = {}) {
  const { store } = makeStore({ membership: () => (typeof answer === 'function' ? answer() : answer) });
  return new BigSegmentStoreManager({ store, contextCacheTimeMs: 60_000, ...options });
}

function assertFrozenNullProto(membership, label) {
  assert.equal(Object.getPrototypeOf(membership), null, `${label}: null prototype`);
  assert.ok(Object.isFrozen(membership), `${label}: frozen`);
  // ESM is strict mode: writes to a frozen object throw.
  assert.throws(() => {
    membership['new.g1'] = true;
  }, TypeError);
  const firstKey = Object.keys(membership)[0];
  if (firstKey !== undefined) {
    assert.throws(() => {
      delete membership[firstKey];
    }, TypeError);
  }
}

test('memberships are frozen null-prototype objects (miss, hit and empty)', async (t) => {
  const m = managerFor({ 'a.g1': true, 'b.g1': false });
  t.after(() => m.close());
  const miss = await m.getUserMembership('k');
  assertFrozenNullProto(miss.membership, 'miss');
  const hit = await m.getUserMembership('k');
  assertFrozenNullProto(hit.membership, 'hit');
  assert.deepEqual({ ...hit.membership }, { 'a.g1': true, 'b.g1': false }, 'values unchanged by the failed writes');

  const empty = managerFor(null);
  t.after(() => empty.close());
  const e1 = await empty.getUserMembership('k');
  const e2 = await empty.getUserMembership('k');
  assertFrozenNullProto(e1.membership, 'empty (miss)');
  assertFrozenNullProto(e2.membership, 'empty (hit)');
  assert.equal('toString' in e1.membership, false, 'no inherited keys on an empty membership');
});

test('no inherited Object.prototype keys appear as segment refs', async (t) => {
  const m = managerFor({ 'a.g1': true });
  t.after(() => m.close());
  const { membership } = await m.getUserMembership('k');
  for (const key of ['toString', 'constructor', 'hasOwnProperty', '__proto__', 'valueOf']) {
    assert.equal(membership[key], undefined, `${key} is not a membership`);
  }
});

test('a "__proto__" key from a store (JSON.parse) is data: no prototype pollution', async (t) => {
  const answer = JSON.parse('{"__proto__": true, "seg.g1": false}');
  assert.ok(Object.hasOwn(answer, '__proto__'), 'precondition: own __proto__ key');
  const m = managerFor(answer);
  t.after(() => m.close());
  const { membership, status } = await m.getUserMembership('k');
  assert.equal(status, 'HEALTHY');
  assert.ok(Object.hasOwn(membership, '__proto__'), '__proto__ is an own data key of the membership');
  assert.equal(membership['__proto__'], true);
  assert.equal(membership['seg.g1'], false);
  assert.deepEqual(Object.keys(membership).sort(), ['__proto__', 'seg.g1']);
  assert.equal(Object.getPrototypeOf(membership), null, 'the prototype was not changed');
  assert.equal(({}).polluted, undefined);
  // The cached copy keeps it as data too.
  const again = await m.getUserMembership('k');
  assert.equal(again.membership['__proto__'], true);
});

test('a "__proto__" object value from a store cannot pollute Object.prototype', async (t) => {
  const answer = JSON.parse('{"__proto__": {"polluted": true}, "seg.g1": true}');
  const m = managerFor(answer, { logger: { debug() {}, info() {}, warn() {}, error() {} } });
  t.after(() => m.close());
  const result = await m.getUserMembership('k');
  assert.equal(({}).polluted, undefined, 'Object.prototype is not polluted');
  assert.equal(Object.prototype.polluted, undefined);
  if (result.membership) {
    assert.equal(Object.getPrototypeOf(result.membership), null);
    assert.equal(result.membership.polluted, undefined, 'the nested object did not become a prototype');
  }
});

test('keys like constructor/toString/hasOwnProperty from a store are plain data', async (t) => {
  const m = managerFor({ constructor: true, toString: false, hasOwnProperty: true, 'x.g1': true });
  t.after(() => m.close());
  const { membership } = await m.getUserMembership('k');
  assert.equal(membership.constructor, true);
  assert.equal(membership.toString, false);
  assert.equal(membership.hasOwnProperty, true);
  assert.equal(membership['x.g1'], true);
});

test('the store’s object is copied: later mutation does not change the membership, and it is not frozen', async (t) => {
  const shared = { 'a.g1': true };
  const m = managerFor(() => shared);
  t.after(() => m.close());
  const first = await m.getUserMembership('k');
  assert.notEqual(first.membership, shared, 'not the store’s own object');
  assert.equal(Object.isFrozen(shared), false, 'the store’s object is left alone');
  shared['a.g1'] = false;
  shared['b.g1'] = true;
  const second = await m.getUserMembership('k');
  assert.deepEqual({ ...first.membership }, { 'a.g1': true });
  assert.deepEqual({ ...second.membership }, { 'a.g1': true }, 'the cached membership is a copy');
});

test('a store answer with a prototype chain (class instance) is read by its own keys', async (t) => {
  class Answer {
    constructor() {
      this['own.g1'] = true;
    }
  }
  Answer.prototype['inherited.g1'] = true;
  const m = managerFor(() => new Answer());
  t.after(() => m.close());
  const { membership } = await m.getUserMembership('k');
  assert.equal(membership['own.g1'], true);
  assert.equal(Object.getPrototypeOf(membership), null);
});

test('error and NOT_CONFIGURED results carry membership null', async (t) => {
  const failing = managerFor(() => Promise.reject(new Error('no')), { logger: { debug() {}, info() {}, warn() {}, error() {} } });
  t.after(() => failing.close());
  assert.equal((await failing.getUserMembership('k')).membership, null);
  const none = new BigSegmentStoreManager({});
  t.after(() => none.close());
  assert.equal((await none.getUserMembership('k')).membership, null);
});
