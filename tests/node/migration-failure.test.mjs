// failure() and origin failure semantics — API.md §1 (origin succeeds/fails, failure(error)).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failure } from 'cutover';
import { CTX, measurement, setup } from './helpers/migration.mjs';

test('failure(err) returns a value without throwing', () => {
  const err = new Error('x');
  let f;
  assert.doesNotThrow(() => {
    f = failure(err);
  });
  assert.notEqual(f, undefined);
  assert.notEqual(f, null);
  assert.doesNotThrow(() => failure('string'));
  assert.doesNotThrow(() => failure(undefined));
  assert.doesNotThrow(() => failure());
});

test('an origin returning failure(err) fails with that exact error', async () => {
  const err = new Error('soft failure');
  const { migrator, events } = setup({ stage: 'off', readOld: () => failure(err) });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.origin, 'old');
  assert.equal(r.success, false);
  assert.equal(r.error, err);
  assert.deepEqual(measurement(events[0], 'error').values, { old: true });
});

test('an async origin resolving to failure(err) fails too', async () => {
  const err = { code: 'E_SOFT' };
  const { migrator } = setup({ stage: 'complete', readNew: async () => failure(err) });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.success, false);
  assert.equal(r.error, err);
});

test('failure() keeps non-Error values as-is', async () => {
  for (const value of ['plain string', 42, { code: 1 }, null, [1, 2]]) {
    const { migrator } = setup({ stage: 'off', readOld: () => failure(value) });
    const r = await migrator.read('m', CTX, 'off');
    assert.equal(r.success, false);
    assert.equal(r.error, value);
  }
});

test('failure(undefined) is still a failure', async () => {
  const { migrator } = setup({ stage: 'off', readOld: () => failure(undefined) });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.success, false);
  assert.equal(r.error, undefined);
});

test('a thrown non-Error is kept as-is in error (string, object, number)', async () => {
  for (const thrown of ['boom', { code: 1 }, 7, null]) {
    const { migrator } = setup({ stage: 'off', readOld: () => { throw thrown; } });
    const r = await migrator.read('m', CTX, 'off');
    assert.equal(r.success, false);
    assert.equal(r.error, thrown);
  }
});

test('a rejection with a non-Error is kept as-is', async () => {
  const reason = { code: 1, nested: { a: 1 } };
  const { migrator } = setup({ stage: 'off', readOld: () => Promise.reject(reason) });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.error, reason);
});

test('a rejection with undefined is still a failure', async () => {
  const { migrator } = setup({ stage: 'off', readOld: () => Promise.reject(undefined) });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.success, false);
  assert.equal(r.error, undefined);
});

test('Error subclasses thrown by origins are returned by identity', async () => {
  class DbError extends Error {}
  const err = new DbError('db');
  const { migrator } = setup({ stage: 'live', readNew: async () => { throw err; } });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.error, err);
  assert.ok(r.error instanceof DbError);
});

test('origin failures never reject read or write', async () => {
  const boom = () => { throw new Error('boom'); };
  for (const stage of ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete']) {
    const { migrator } = setup({ stage, readOld: boom, readNew: boom, writeOld: boom, writeNew: boom, comparison: () => true });
    const r = await migrator.read('m', CTX, 'off');
    assert.equal(r.success, false);
    const w = await migrator.write('m', CTX, 'off');
    assert.equal(w.authoritative.success, false);
    assert.equal(w.nonAuthoritative, undefined);
  }
});

test('failure() from the authoritative write stops the non-authoritative write', async () => {
  const { migrator, rec } = setup({ stage: 'live', writeNew: () => failure('not written') });
  const w = await migrator.write('m', CTX, 'off');
  assert.equal(w.authoritative.success, false);
  assert.equal(w.authoritative.error, 'not written');
  assert.equal(w.nonAuthoritative, undefined);
  assert.deepEqual(rec.names(), ['new']);
});

test('failure() from the non-authoritative write is reported', async () => {
  const { migrator } = setup({ stage: 'dualwrite', writeNew: async () => failure({ code: 409 }) });
  const w = await migrator.write('m', CTX, 'off');
  assert.equal(w.authoritative.success, true);
  assert.equal(w.nonAuthoritative.success, false);
  assert.deepEqual(w.nonAuthoritative.error, { code: 409 });
});

test('failure() disables the consistency check like any failure', async () => {
  let compared = 0;
  const { migrator } = setup({ stage: 'shadow', readNew: () => failure('x'), comparison: () => ++compared > 0 });
  await migrator.read('m', CTX, 'off');
  assert.equal(compared, 0);
});

test('returning an Error (not throwing) is a success whose value is that Error', async () => {
  const err = new Error('just a value');
  const { migrator } = setup({ stage: 'off', readOld: () => err });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.success, true);
  assert.equal(r.value, err);
});

test('failure values from different calls are independent', async () => {
  const a = failure('a');
  const b = failure('b');
  assert.notEqual(a, b);
  const { migrator } = setup({ stage: 'shadow', readOld: () => a, readNew: () => b });
  const r = await migrator.read('m', CTX, 'off');
  assert.equal(r.error, 'a');
});
