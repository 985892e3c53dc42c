// Hashing vectors and segment references — API.md §2/§3, SPEC.md B2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as cutover from 'cutover';
import { BigSegmentStoreManager, hashContextKey, bigSegmentRef } from 'cutover';

const VECTORS = [
  ['user-key', 'CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0='],
  ['userkey1', 'egD7ldtwe3X6CFKAdPpwcvBas+KWGyNpv66/lW/SBsg='],
  ['', '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='],
  ['é', 'SplVfkAzw1Od4utlRyAXytX5VX96BiWgnxw/biumnEw='],
];

const reference = (key) => createHash('sha256').update(Buffer.from(key, 'utf8')).digest('base64');

test('Big Segments functions and classes are named exports', () => {
  assert.equal(typeof cutover.BigSegmentStoreManager, 'function');
  assert.equal(typeof cutover.hashContextKey, 'function');
  assert.equal(typeof cutover.bigSegmentRef, 'function');
});

test('hashContextKey matches the SPEC.md B2 vectors, synchronously', () => {
  for (const [key, expected] of VECTORS) {
    const actual = hashContextKey(key);
    assert.equal(typeof actual, 'string', 'returned synchronously as a string, not a Promise');
    assert.equal(actual, expected, `hash of ${JSON.stringify(key)}`);
  }
});

test('hashContextKey is base64 (standard alphabet, padded) of SHA-256 of UTF-8', () => {
  const keys = [
    'a',
    'user key with spaces',
    '😀 astral plane',
    '日本語のキー',
    'NUL\u0000inside',
    'x'.repeat(10_000),
    'e\u0301', // decomposed é is a different key from the precomposed vector
    '+/=?&',
  ];
  for (const key of keys) {
    const actual = hashContextKey(key);
    assert.equal(actual, reference(key), `hash of ${JSON.stringify(key.slice(0, 30))}`);
    assert.match(actual, /^[A-Za-z0-9+/]{43}=$/, 'standard alphabet, padded, 32 bytes');
  }
  assert.notEqual(hashContextKey('e\u0301'), hashContextKey('é'), 'no Unicode normalisation');
});

test('the store is queried with hashContextKey(contextKey)', async (t) => {
  const seen = [];
  const store = {
    async getMetadata() {
      return { lastUpToDate: Date.now() };
    },
    async getMembership(hash) {
      seen.push(hash);
      return {};
    },
  };
  const m = new BigSegmentStoreManager({ store });
  t.after(() => m.close());
  for (const [key] of VECTORS) await m.getUserMembership(key);
  await m.getUserMembership('😀');
  assert.deepEqual(seen, [...VECTORS.map(([, h]) => h), reference('😀')]);
});

test('bigSegmentRef is `${segmentKey}.g${generation}` in decimal, synchronously', () => {
  assert.equal(bigSegmentRef('seg', 1), 'seg.g1');
  assert.equal(bigSegmentRef('my-segment', 0), 'my-segment.g0');
  assert.equal(bigSegmentRef('dotted.key', 12), 'dotted.key.g12');
  assert.equal(bigSegmentRef('seg', 123456789), 'seg.g123456789');
  assert.equal(bigSegmentRef('seg', 4294967296), 'seg.g4294967296', 'generations beyond 32 bits');
  assert.equal(bigSegmentRef('é', 7), 'é.g7');
  assert.equal(typeof bigSegmentRef('seg', 1), 'string');
});

test('SPEC.md B7: a membership is read with bigSegmentRef(key, generation)', async (t) => {
  const store = {
    async getMetadata() {
      return { lastUpToDate: Date.now() };
    },
    async getMembership(hash) {
      return hash === hashContextKey('alice')
        ? { [bigSegmentRef('beta', 3)]: true, [bigSegmentRef('banned', 1)]: false }
        : null;
    },
  };
  const m = new BigSegmentStoreManager({ store });
  t.after(() => m.close());
  const { membership, status } = await m.getUserMembership('alice');
  assert.equal(status, 'HEALTHY');
  assert.equal(membership[bigSegmentRef('beta', 3)], true, 'included → match');
  assert.equal(membership[bigSegmentRef('banned', 1)], false, 'excluded → no match');
  assert.equal(membership[bigSegmentRef('beta', 2)], undefined, 'other generation → rules decide');
  const bob = await m.getUserMembership('bob');
  assert.equal(bob.membership[bigSegmentRef('beta', 3)], undefined);
});
