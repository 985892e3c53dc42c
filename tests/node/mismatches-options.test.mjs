// mismatches() and sameStructure(), bad input (issue 22; API.md §1 "Differences" and
// notes/d22-contract.md): every invalid option is a RangeError or TypeError naming it, thrown
// when the method is called; an unknown key names MigratorBuilder#mismatches; an `ignore` pattern
// that is not a JSON Pointer is a TypeError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MigratorBuilder, fixedStage, sameStructure } from 'cutover';
import { throwsStarting } from './helpers/common.mjs';

const builder = () => new MigratorBuilder(fixedStage('shadow'));

test('mismatches(), mismatches({}) and valid options are accepted and chain', () => {
  const b = builder();
  assert.equal(b.mismatches(), b);
  assert.equal(b.mismatches({}), b);
  assert.equal(b.mismatches(undefined), b);
  assert.equal(b.mismatches({ keep: 0 }), b);
  assert.equal(b.mismatches({ keep: 1000, maxDifferences: 1 }), b);
  assert.equal(b.mismatches({ keep: undefined, maxDifferences: undefined, onMismatch: undefined }), b);
  assert.equal(b.mismatches({ keep: 5, maxDifferences: 2 ** 20, onMismatch: () => {} }), b);
  b.read(() => 1, () => 2, () => false).write(() => 1, () => 1).build();
});

for (const bad of [-1, 1001, 1.5, NaN, Infinity, -Infinity, 2 ** 53, -0.5]) {
  test(`mismatches({ keep: ${bad} }) is a RangeError`, () => {
    throwsStarting(() => builder().mismatches({ keep: bad }), RangeError, 'mismatches: keep must be an integer from 0 to 1000');
  });
}

for (const bad of [0, -1, 1.5, NaN, Infinity, -Infinity, -0]) {
  test(`mismatches({ maxDifferences: ${Object.is(bad, -0) ? '-0' : bad} }) is a RangeError`, () => {
    throwsStarting(() => builder().mismatches({ maxDifferences: bad }), RangeError, 'mismatches: maxDifferences must be a positive integer');
  });
}

for (const [label, bad] of [["'5'", '5'], ['true', true], ['null', null], ['{}', {}], ['5n', 5n], ['[]', []]]) {
  test(`mismatches({ keep: ${label} }) is a TypeError`, () => {
    throwsStarting(() => builder().mismatches({ keep: bad }), TypeError, 'mismatches: keep must be a number');
  });
  test(`mismatches({ maxDifferences: ${label} }) is a TypeError`, () => {
    throwsStarting(() => builder().mismatches({ maxDifferences: bad }), TypeError, 'mismatches: maxDifferences must be a number');
  });
}

for (const [label, bad] of [['1', 1], ["'fn'", 'fn'], ['{}', {}], ['null', null], ['true', true]]) {
  test(`mismatches({ onMismatch: ${label} }) is a TypeError`, () => {
    throwsStarting(() => builder().mismatches({ onMismatch: bad }), TypeError, 'mismatches: onMismatch must be a function');
  });
}

test('an unknown key of mismatches(): TypeError naming it and MigratorBuilder#mismatches', () => {
  for (const key of ['kep', 'maxDifference', 'onmismatch', 'ignore', 'x']) {
    throwsStarting(() => builder().mismatches({ [key]: 1 }), TypeError, `${key} is not an option of MigratorBuilder#mismatches`);
  }
});

test('mismatches(non-object) is a TypeError', () => {
  for (const bad of [5, 'keep', true, null]) assert.throws(() => builder().mismatches(bad), TypeError, String(bad));
});

test('a refused mismatches() leaves the builder usable, without mismatches', async () => {
  const b = new MigratorBuilder(fixedStage('shadow'));
  assert.throws(() => b.mismatches({ keep: -1 }), RangeError);
  const m = b.read(() => ({ a: 1 }), () => ({ a: 2 }), () => false).write(() => 1, () => 1).build();
  const r = await m.read('mig', { kind: 'user', key: 'u' }, 'off');
  assert.equal(r.success, true);
  assert.deepEqual(m.mismatches(), []);
});

test('sameStructure(), sameStructure({}) and valid patterns are accepted', () => {
  for (const options of [undefined, {}, { ignore: [] }, { ignore: ['', '/a', '/items/*/etag', '/a~0b/c~1d', '/*', '/-', '/0', '/a*'] }]) {
    const cmp = sameStructure(options);
    assert.equal(typeof cmp, 'function');
    assert.equal(typeof cmp(1, 1), 'boolean');
  }
});

test('an ignore pattern that is not a JSON Pointer is a TypeError naming ignore', () => {
  for (const bad of ['a', 'items/0', '/a~', '/a~2', '~0', ' /a', '/ok/~x']) {
    assert.throws(
      () => sameStructure({ ignore: ['/fine', bad] }),
      (e) => e instanceof TypeError && /ignore/.test(e.message) && e.message.includes(JSON.stringify(bad).slice(1, -1)),
      JSON.stringify(bad),
    );
  }
});

test('ignore that is not an array of strings, and unknown keys of sameStructure(): TypeError', () => {
  for (const bad of ['/a', 5, null, { 0: '/a' }, [1], [null], [['/a']]]) {
    assert.throws(() => sameStructure({ ignore: bad }), (e) => e instanceof TypeError && /ignore/.test(e.message), JSON.stringify(bad));
  }
  assert.throws(() => sameStructure({ ignor: ['/a'] }), (e) => e instanceof TypeError && e.message.includes('ignor'));
  for (const bad of [5, 'x', true]) assert.throws(() => sameStructure(bad), TypeError, String(bad));
});
