// Background mode, bad input (issue 21; API.md §1 "Shadowing in production"): background()
// checks its options when it is called, with a RangeError or TypeError naming the option; an
// unknown key names MigratorBuilder#background (with "did you mean" when close); an operation's
// waitUntil that is not a function rejects the operation, which then runs nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMigration, fixedStage, LDMigrationSuccess, MigratorBuilder } from 'cutover';
import { CTX, bgSetup, turns } from './helpers/background.mjs';
import { throwsStarting } from './helpers/common.mjs';

const builder = () => new MigratorBuilder(fixedStage('shadow'));

test('background() and background({}) are accepted and chain', () => {
  const b = builder();
  assert.equal(b.background(), b);
  assert.equal(b.background({}), b);
  assert.equal(b.background(undefined), b);
  assert.equal(b.background({ maxInFlight: 1 }), b);
  assert.equal(b.background({ maxInFlight: 2 ** 31 - 1, waitUntil: () => {} }), b);
  b.read(() => 'o', () => 'n').write(() => 'o', () => 'n').build();
});

for (const bad of [0, -1, 1.5, NaN, Infinity, -Infinity]) {
  test(`background({ maxInFlight: ${bad} }) is a RangeError`, () => {
    throwsStarting(() => builder().background({ maxInFlight: bad }), RangeError, 'background: maxInFlight must be a positive integer');
  });
}

for (const [label, bad] of [["'5'", '5'], ['true', true], ['null', null], ['{}', {}], ['5n', 5n]]) {
  test(`background({ maxInFlight: ${label} }) is a TypeError`, () => {
    throwsStarting(() => builder().background({ maxInFlight: bad }), TypeError, 'background: maxInFlight must be a number');
  });
}

for (const [label, bad] of [['1', 1], ["'fn'", 'fn'], ['{}', {}], ['null', null]]) {
  test(`background({ waitUntil: ${label} }) is a TypeError`, () => {
    throwsStarting(() => builder().background({ waitUntil: bad }), TypeError, 'background: waitUntil must be a function');
  });
}

for (const [label, bad] of [['5', 5], ["'on'", 'on'], ['true', true], ['a function', () => {}]]) {
  test(`background(${label}) is a TypeError`, () => {
    assert.throws(() => builder().background(bad), TypeError);
  });
}

test('an unknown key of background(): TypeError naming it, with did you mean when close', () => {
  throwsStarting(
    () => builder().background({ maxInFlght: 3 }),
    TypeError,
    'maxInFlght is not an option of MigratorBuilder#background',
  );
  assert.throws(() => builder().background({ maxInFlght: 3 }), { message: /did you mean maxInFlight\?/ });
  assert.throws(() => builder().background({ waitunti: () => {} }), { message: /did you mean waitUntil\?/ });
  assert.throws(
    () => builder().background({ concurrency: 3 }),
    (e) => e instanceof TypeError && e.message === 'concurrency is not an option of MigratorBuilder#background',
  );
});

test('a rejected background() call leaves the builder usable and in foreground mode', async () => {
  const b = new MigratorBuilder(fixedStage('shadow'));
  assert.throws(() => b.background({ maxInFlight: 0 }), RangeError);
  let releaseNew;
  const m = b
    .read(async () => 'o', () => new Promise((resolve) => (releaseNew = resolve)))
    .write(() => 'o', () => 'n')
    .build();
  let resolved = false;
  const read = m.read('mig', CTX, 'off').then((r) => ((resolved = true), r));
  await turns();
  assert.equal(resolved, false, 'no background mode: the read waits for the shadow');
  releaseNew('n');
  assert.equal((await read).value, 'o');
});

for (const op of ['read', 'write']) {
  for (const [label, bad] of [["'x'", 'x'], ['1', 1], ['null', null], ['{}', {}]]) {
    test(`${op}(…, { waitUntil: ${label} }) rejects with a TypeError and runs nothing`, async () => {
      const { migrator, reads, writes, client } = bgSetup({ stage: 'shadow' });
      const promise = migrator[op]('mig', CTX, 'off', undefined, { waitUntil: bad });
      assert.ok(promise instanceof Promise, 'misuse is a rejection, not a throw');
      await assert.rejects(promise, (error) => {
        assert.ok(error instanceof TypeError, `${error?.name}: ${error?.message}`);
        assert.ok(/^Migrator#(read|write): options\.waitUntil must be a function/.test(error.message), error.message);
        return true;
      });
      await turns();
      assert.deepEqual([...reads.names(), ...writes.names()], []);
      assert.equal(client.asks.length, 0, 'the flag was not evaluated');
    });
  }
}

test('an operation option waitUntil: undefined is the same as none', async () => {
  const { migrator, reads } = bgSetup({ stage: 'shadow', order: 'parallel' });
  const read = migrator.read('mig', CTX, 'off', undefined, { waitUntil: undefined });
  await turns();
  reads.resolve('old');
  assert.equal((await read).value, 'old-value');
  reads.resolve('new');
  await migrator.settled();
});

test('createMigration: background must be a boolean or an options object, checked like background()', () => {
  const ld = { migrationVariation: async () => ({ value: 'off' }), trackMigration() {} };
  const methods = {
    readOld: async () => LDMigrationSuccess('o'),
    readNew: async () => LDMigrationSuccess('n'),
    writeOld: async () => LDMigrationSuccess('o'),
    writeNew: async () => LDMigrationSuccess('n'),
  };
  for (const background of [true, false, {}, { maxInFlight: 3 }, { waitUntil: () => {} }]) {
    assert.equal(typeof createMigration(ld, { ...methods, background }).settled, 'function', JSON.stringify(background));
  }
  assert.equal(typeof createMigration(ld, methods).settled, 'function', 'settled() without background too');
  assert.throws(() => createMigration(ld, { ...methods, background: 'yes' }), TypeError);
  assert.throws(() => createMigration(ld, { ...methods, background: 1 }), TypeError);
  assert.throws(() => createMigration(ld, { ...methods, background: { maxInFlight: 0 } }), RangeError);
  assert.throws(() => createMigration(ld, { ...methods, background: { maxInFlight: '5' } }), TypeError);
  assert.throws(() => createMigration(ld, { ...methods, background: { waitUntil: 1 } }), TypeError);
  assert.throws(() => createMigration(ld, { ...methods, background: { maxInFlght: 3 } }), { name: 'TypeError', message: /maxInFlght/ });
});
