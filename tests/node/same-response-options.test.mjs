// sameResponse()'s options (issue 23 part 4; API.md §1 "Invalid options … throw a RangeError or
// TypeError naming the option"): headers, ignore (as sameStructure's), maxBodyBytes, unknown
// names; and the comparison as MigratorBuilder#read takes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MigratorBuilder, fixedStage, sameResponse } from 'cutover';

const fails = (options, name, message) => assert.throws(() => sameResponse(options), { name, message }, JSON.stringify(options));

test('no options, or each one valid', () => {
  for (const options of [undefined, {}, { headers: [] }, { headers: ['ETag', 'x-request-id'] }, { ignore: ['', '/body/items/*/etag'] },
    { maxBodyBytes: 1 }, { maxBodyBytes: 65536 }, { headers: undefined, ignore: undefined, maxBodyBytes: undefined }]) {
    assert.equal(typeof sameResponse(options), 'function');
  }
});

test('options must be an object; unknown names are refused with the closest one', () => {
  fails(null, 'TypeError', 'sameResponse: options must be an object, got null');
  fails('x', 'TypeError', 'sameResponse: options must be an object, got string "x"');
  fails({ maxBodySize: 10 }, 'TypeError', /^maxBodySize is not an option of sameResponse/);
  fails({ header: ['etag'] }, 'TypeError', 'header is not an option of sameResponse; did you mean headers?');
});

test('headers: an array of header names', () => {
  fails({ headers: 'etag' }, 'TypeError', 'sameResponse: headers must be an array of header names, got string "etag"');
  fails({ headers: ['etag', 3] }, 'TypeError', 'sameResponse: headers[1] must be a string (a header name), got number 3');
  fails({ headers: ['x y'] }, 'TypeError', /^sameResponse: headers\[0\] must be a header name \(letters, digits and .*\), got "x y"$/);
  fails({ headers: [''] }, 'TypeError', /^sameResponse: headers\[0\] must be a header name/);
  fails({ headers: ['content-type:'] }, 'TypeError', /^sameResponse: headers\[0\]/);
});

test('ignore: JSON Pointers, as sameStructure takes them, named as sameResponse', () => {
  fails({ ignore: '/body' }, 'TypeError', 'sameResponse: ignore must be an array of JSON Pointers, got string "/body"');
  fails({ ignore: [1] }, 'TypeError', 'sameResponse: ignore[0] must be a string (a JSON Pointer), got number 1');
  fails({ ignore: ['/body', 'headers/date'] }, 'TypeError', `sameResponse: ignore[1] must be a JSON Pointer ('' or starting with '/'), got "headers/date"`);
  fails({ ignore: ['/a~2'] }, 'TypeError', /^sameResponse: ignore\[0\] must be a JSON Pointer \('~' only as '~0' or '~1'\)/);
});

test('maxBodyBytes: a positive integer', () => {
  fails({ maxBodyBytes: '10' }, 'TypeError', 'sameResponse: maxBodyBytes must be a number, got string "10"');
  fails({ maxBodyBytes: null }, 'TypeError', 'sameResponse: maxBodyBytes must be a number, got null');
  for (const bad of [0, -1, 1.5, NaN, Infinity, 2 ** 60]) {
    fails({ maxBodyBytes: bad }, 'RangeError', /^sameResponse: maxBodyBytes must be a positive integer \(bytes\), got /);
  }
});

test('options are read once, when sameResponse() is called', () => {
  const options = { headers: ['etag'] };
  const same = sameResponse(options);
  options.headers.push('not a name');
  options.maxBodyBytes = -1;
  assert.equal(same({ status: 1 }, { status: 1 }), true);
});

test('MigratorBuilder#read takes it as a comparison, like any function', () => {
  const builder = new MigratorBuilder(fixedStage('shadow'));
  assert.equal(builder.read(() => 1, () => 1, sameResponse()), builder);
  assert.throws(() => builder.read(() => 1, 'fn', sameResponse()), { name: 'TypeError', message: /read: newFn must be a function/ });
});
