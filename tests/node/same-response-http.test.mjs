// sameResponse() shadowing two local HTTP services through the global fetch (issue 23 part 4;
// API.md §2c): the caller gets the authoritative Response with its body unread; the comparison
// reads both bodies afterwards (JSON or text), and the one event, sent after it, carries
// `consistent`; `ignore` of headers and body paths; mismatches() paths; background mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MigratorBuilder, sameResponse } from 'cutover';
import { CTX, makeClient, makeLogger, measurement } from './helpers/migration.mjs';
import { deferred, turns } from './helpers/background.mjs';
import { catalogue, itemsMigrationOptions, withServices } from './helpers/http-services.mjs';

const noWrite = () => undefined;

function migrator(old, young, { stage = 'shadow', comparison, background, mismatches } = {}) {
  const state = makeClient(stage);
  const log = makeLogger();
  let builder = new MigratorBuilder(state.client, { logger: log.logger })
    .read((path = '/items') => fetch(old.url + path), (path = '/items') => fetch(young.url + path), comparison)
    .write(noWrite, noWrite);
  if (background !== undefined) builder = builder.background(background);
  if (mismatches !== undefined) builder = builder.mismatches(mismatches);
  return { m: builder.build(), state, log };
}

const IGNORE_NOISE = { headers: ['content-type', 'x-served-by'], ignore: ['/body/requestId', '/headers/x-served-by'] };

test('the caller gets the old Response, body unread; the check and the event come once both bodies are read', async () => {
  const bodies = { old: deferred(), new: deferred() };
  // Headers and a first piece now, the rest when the test releases it: the bodies arrive after
  // the read has resolved.
  const held = (name, price) => () => ({
    headers: { 'content-type': 'application/json', 'x-served-by': name },
    chunks: (response) => {
      response.write(`{"items":[{"id":1,"price":${price}}],`);
      bodies[name].promise.then(() => response.end(`"requestId":"${name}-${Math.random()}"}`));
    },
  });
  await withServices(held('old', 10), held('new', 10), async (old, young) => {
    const { m, state } = migrator(old, young, { comparison: sameResponse(IGNORE_NOISE) });
    const result = await m.read('items-api', CTX, 'off');
    assert.equal(result.origin, 'old');
    assert.equal(result.success, true);
    assert.ok(result.value instanceof Response);
    assert.equal(result.value.bodyUsed, false, 'the caller gets the body unread');
    assert.equal(result.value.headers.get('x-served-by'), 'old');
    await turns();
    assert.equal(state.events.length, 0, 'no event before the bodies are read');
    assert.equal(m.stats().read.count, 0);
    bodies.old.resolve();
    bodies.new.resolve();
    const mine = await result.value.json();
    assert.deepEqual(mine.items, [{ id: 1, price: 10 }], 'the caller reads the whole body itself');
    assert.match(mine.requestId, /^old-/);
    await m.settled();
    assert.equal(state.events.length, 1);
    assert.deepEqual(measurement(state.events[0], 'consistent'), { key: 'consistent', value: true });
    assert.deepEqual(measurement(state.events[0], 'invoked').values, { old: true, new: true });
    const stats = m.stats().read;
    assert.equal(stats.count, 1);
    assert.deepEqual({ ...stats.consistency, paths: undefined }, { checked: 1, consistent: 1, paths: undefined });
  });
});

test('two JSON APIs that differ: consistent false, and mismatches() names /body/items/*/price', async () => {
  await withServices(catalogue([10, 20, 30]), catalogue([10, 21, 30]), async (old, young) => {
    const { m, state } = migrator(old, young, {
      comparison: sameResponse({ headers: ['content-type'], ignore: ['/body/requestId'] }),
      mismatches: {},
    });
    for (let i = 0; i < 2; i++) {
      const { value } = await m.read('items-api', CTX, 'off');
      await value.arrayBuffer(); // the caller's own read
    }
    await m.settled();
    assert.deepEqual(state.events.map((e) => measurement(e, 'consistent').value), [false, false]);
    const [first] = m.mismatches();
    assert.deepEqual(first.differences, [{ path: '/body/items/1/price', kind: 'changed', old: 20, new: 21 }]);
    assert.equal(first.old.status, 200, 'a mismatch keeps the snapshots');
    assert.deepEqual(first.old.headers, { 'content-type': 'application/json' });
    assert.deepEqual(first.new.body.items[1], { id: 2, price: 21 });
    assert.deepEqual(m.stats().read.consistency, { checked: 2, consistent: 0, paths: { '/body/items/*/price': 2 } });
  });
});

test('ignore: a header or a body path left out makes equal responses consistent', async () => {
  const old = catalogue([5], { servedBy: 'old' });
  const young = catalogue([5], { servedBy: 'new' });
  await withServices(old, young, async (o, y) => {
    const cases = [
      [{ headers: ['x-served-by'], ignore: ['/body/requestId'] }, false, ['/headers/x-served-by']],
      [{ headers: ['X-Served-By', 'date'], ignore: ['/body/requestId', '/headers/x-served-by', '/headers/date'] }, true, []],
      [{ headers: ['content-type'] }, false, ['/body/requestId']],
      [{ headers: ['content-type'], ignore: ['/body/requestId'] }, true, []],
      [{ ignore: ['/body'] }, true, []],
    ];
    for (const [options, consistent, paths] of cases) {
      const { m, state } = migrator(o, y, { comparison: sameResponse(options), mismatches: {} });
      await m.read('items-api', CTX, 'off');
      await m.settled();
      const what = JSON.stringify(options);
      assert.equal(measurement(state.events[0], 'consistent').value, consistent, what);
      assert.deepEqual(m.mismatches().flatMap((x) => x.differences.map((d) => d.path)), paths, what);
    }
  });
});

test('text bodies compare as text; a status that differs is a difference at /status', async () => {
  const text = (body, status = 200) => () => ({ status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body });
  const runs = [
    [text('hello, wörld'), text('hello, wörld'), true, []],
    [text('hello'), text('hullo'), false, [['/body', 'hello', 'hullo']]],
    [text('gone', 200), text('gone', 404), false, [['/status', 200, 404]]],
  ];
  for (const [old, young, consistent, differences] of runs) {
    await withServices(old, young, async (o, y) => {
      const { m, state } = migrator(o, y, { comparison: sameResponse(), mismatches: {} });
      const { value } = await m.read('pages', CTX, 'off');
      assert.equal(await value.text(), (await (await fetch(o.url)).text()), 'the caller reads its own body');
      await m.settled();
      assert.equal(measurement(state.events[0], 'consistent').value, consistent);
      const found = m.mismatches().flatMap((x) => x.differences.map((d) => [d.path, d.old, d.new]));
      assert.deepEqual(found, differences);
    });
  }
});

test('at live the caller gets the new Response; old and new keep their places in the comparison', async () => {
  await withServices(catalogue([1]), catalogue([2]), async (old, young) => {
    const { m } = migrator(old, young, {
      stage: 'live',
      comparison: sameResponse({ ignore: ['/body/requestId'] }),
      mismatches: {},
    });
    const result = await m.read('items-api', CTX, 'off');
    assert.equal(result.origin, 'new');
    assert.deepEqual((await result.value.json()).items, [{ id: 1, price: 2 }]);
    await m.settled();
    assert.deepEqual(m.mismatches()[0].differences, [{ path: '/body/items/0/price', kind: 'changed', old: 1, new: 2 }]);
  });
});

test('background(): the caller is answered before the new service has responded; waitUntil gets the check', async () => {
  const release = deferred();
  const slowNew = () => ({
    headers: { 'content-type': 'application/json' },
    chunks: (response) => release.promise.then(() => response.end(JSON.stringify({ items: [{ id: 1, price: 9 }] }))),
  });
  const fastOld = () => ({ body: { items: [{ id: 1, price: 9 }] } });
  await withServices(fastOld, slowNew, async (old, young) => {
    const handed = [];
    const { m, state } = migrator(old, young, {
      comparison: sameResponse(),
      background: { waitUntil: (promise) => handed.push(promise) },
    });
    const result = await m.read('items-api', CTX, 'off');
    assert.equal(result.value.bodyUsed, false);
    assert.deepEqual(await result.value.json(), { items: [{ id: 1, price: 9 }] });
    assert.equal(handed.length, 1, 'waitUntil was handed the background part');
    await turns();
    assert.equal(state.events.length, 0, 'the new body has not come');
    assert.equal(m.stats().read.count, 0);
    release.resolve();
    assert.equal(await handed[0], undefined);
    assert.equal(state.events.length, 1, 'the event is sent before the waitUntil promise resolves');
    assert.deepEqual(measurement(state.events[0], 'consistent'), { key: 'consistent', value: true });
    assert.deepEqual(m.stats().read.consistency, { checked: 1, consistent: 1, paths: {} });
  });
});

test('without background(), waitUntil (an operation option) is handed the check that follows the read', async () => {
  await withServices(catalogue([3]), catalogue([4]), async (old, young) => {
    const { m, state } = migrator(old, young, { comparison: sameResponse({ ignore: ['/body/requestId'] }) });
    const handed = [];
    const result = await m.read('items-api', CTX, 'off', undefined, { waitUntil: (p) => handed.push(p) });
    assert.equal(result.value.bodyUsed, false);
    assert.equal(handed.length, 1);
    await handed[0];
    assert.deepEqual(measurement(state.events[0], 'consistent'), { key: 'consistent', value: false });
  });
});

test('a stage that does not shadow reads no body: the caller has the only reader', async () => {
  for (const stage of ['off', 'rampdown']) {
    await withServices(catalogue([1]), catalogue([1]), async (old, young) => {
      const { m, state } = migrator(old, young, { stage, comparison: sameResponse() });
      const result = await m.read('items-api', CTX, 'off');
      assert.equal(result.value.bodyUsed, false);
      await m.settled();
      assert.equal(measurement(state.events[0], 'consistent'), undefined, stage);
      assert.equal(old.served + young.served, 1, `${stage}: one origin called`);
      await result.value.arrayBuffer();
    });
  }
});

test("createMigration's check: a sameResponse function is recognised, the Responses' bodies read first", async () => {
  const { createMigration, LDMigrationSuccess } = await import('cutover');
  await withServices(catalogue([1, 2]), catalogue([1, 3]), async (old, young) => {
    const tracked = [];
    // A LaunchDarkly-shaped client: the flag at 'shadow', events to trackMigration.
    const ldClient = {
      migrationVariation: async () => ({ value: 'shadow' }),
      trackMigration: (event) => tracked.push(event),
    };
    const migration = createMigration(ldClient, itemsMigrationOptions({ LDMigrationSuccess, sameResponse }, old, young));
    const result = await migration.read('items-api', CTX, 'off');
    assert.equal(result.success, true);
    assert.equal(result.result.bodyUsed, false, 'the Response, body unread, as LDMigrationReadResult#result');
    assert.deepEqual((await result.result.json()).items[1], { id: 2, price: 2 });
    await migration.settled();
    assert.equal(tracked.length, 1);
    assert.equal(measurement(tracked[0], 'consistent').value, false);
  });
});
