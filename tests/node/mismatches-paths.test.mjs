// mismatches(), the paths table (issue 22; API.md §1 "Differences"): stats().read.consistency.paths
// counts, per normalised path (array indices as '*'), how many mismatches had a difference there;
// at most 32 paths, later new ones under '_OTHER'; `{}` without mismatches(), and on every
// consistency object. The mismatch metric (OpenTelemetry, @opentelemetry/sdk-metrics' in-memory
// exporter) gets `cutover.mismatch.path` from the same table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sameStructure } from 'cutover';
import { mmSetup } from './helpers/mismatches.mjs';
import { otel, points, total } from './helpers/otel.mjs';

const MISMATCHES = 'cutover.migration.consistency.mismatches';
const PATH = 'cutover.mismatch.path';

test('paths are counted by normalised path: array indices as *', async () => {
  const { migrator, read } = mmSetup({ mismatches: true });
  await read({ items: [{ price: 1 }, { price: 2 }, { price: 3 }] }, { items: [{ price: 1 }, { price: 20 }, { price: 30 }] });
  await read({ items: [{ price: 1 }] }, { items: [{ price: 9 }] });
  await read({ updatedAt: 1, items: [] }, { updatedAt: 2, items: [] });
  await read({ updatedAt: 1 }, { updatedAt: 3 });
  assert.deepEqual(migrator.stats().read.consistency.paths, { '/items/*/price': 2, '/updatedAt': 2 });
  const kept = migrator.mismatches();
  assert.deepEqual(kept[0].differences.map((d) => d.path), ['/items/1/price', '/items/2/price'], 'the differences keep their indices');
});

test('each path counts once per mismatch; nested arrays normalise every index', async () => {
  const { migrator, read } = mmSetup({ mismatches: true });
  await read({ m: [[1, 2], [3]], k: 'a' }, { m: [[0, 0], [0]], k: 'b' });
  assert.deepEqual(migrator.stats().read.consistency.paths, { '/m/*/*': 1, '/k': 1 });
  await read([{ 'a/b': 1 }], [{ 'a/b': 2 }]);
  assert.deepEqual(migrator.stats().read.consistency.paths, { '/m/*/*': 1, '/k': 1, '/*/a~1b': 1 });
});

test('a root difference is counted under the empty path; a mismatch without differences counts no path', async () => {
  const { migrator, read } = mmSetup({ mismatches: true });
  await read(1, 'one');
  await read({ same: 1 }, { same: 1 }); // the user's comparison says false; the walk finds nothing
  assert.deepEqual(migrator.stats().read.consistency.paths, { '': 1 });
  assert.equal(migrator.stats().read.consistency.checked, 2);
});

test('at most 32 paths; mismatches at later new paths count under _OTHER', async () => {
  const { migrator, read } = mmSetup({ mismatches: true });
  for (let i = 0; i < 40; i++) await read({ [`k${i}`]: 1 }, { [`k${i}`]: 2 });
  let paths = migrator.stats().read.consistency.paths;
  assert.equal(Object.keys(paths).length, 33);
  for (let i = 0; i < 32; i++) assert.equal(paths[`/k${i}`], 1, `/k${i}`);
  assert.equal(paths._OTHER, 8);
  // A named path goes on counting; another new one is _OTHER again.
  await read({ k0: 1 }, { k0: 3 });
  await read({ k99: 1 }, { k99: 3 });
  paths = migrator.stats().read.consistency.paths;
  assert.equal(paths['/k0'], 2);
  assert.equal(paths._OTHER, 9);
  assert.equal(paths['/k99'], undefined);
  // A mismatch with a named path and an unnamed one counts both.
  await read({ k1: 1, zz: 1 }, { k1: 2, zz: 2 });
  paths = migrator.stats().read.consistency.paths;
  assert.equal(paths['/k1'], 2);
  assert.equal(paths._OTHER, 10);
});

test('paths is {} without mismatches(), on reads and writes, and a fresh object', async () => {
  const { migrator, read } = mmSetup({});
  assert.deepEqual(migrator.stats().read.consistency, { checked: 0, consistent: 0, paths: {} });
  assert.deepEqual(migrator.stats().write.consistency, { checked: 0, consistent: 0, paths: {} });
  await read({ a: 1 }, { a: 2 });
  assert.deepEqual(migrator.stats().read.consistency.paths, {});
  const w = mmSetup({ mismatches: true });
  await w.read({ a: 1 }, { a: 2 });
  await w.migrator.write('mig', { kind: 'user', key: 'u' }, 'off');
  const s = w.migrator.stats();
  assert.deepEqual(s.write.consistency.paths, {});
  s.read.consistency.paths['/a'] = 99;
  s.read.consistency.paths['/b'] = 1;
  assert.deepEqual(w.migrator.stats().read.consistency.paths, { '/a': 1 }, 'stats() hands out a copy');
  assert.deepEqual(JSON.parse(JSON.stringify(s.read.consistency)), s.read.consistency);
});

test('paths under sameStructure({ ignore }) count only what was not ignored', async () => {
  const { migrator, read } = mmSetup({ comparison: sameStructure({ ignore: ['/updatedAt'] }), mismatches: true });
  await read({ updatedAt: 1, items: [{ price: 1 }] }, { updatedAt: 2, items: [{ price: 2 }] });
  await read({ updatedAt: 1 }, { updatedAt: 2 });
  assert.deepEqual(migrator.stats().read.consistency.paths, { '/items/*/price': 1 });
});

test('the mismatch metric carries cutover.mismatch.path: the first difference’s normalised path', async (t) => {
  const { meter, collect } = otel(t);
  const { migrator, read } = mmSetup({ mismatches: true, meter });
  await read({ items: [{ price: 1 }], b: 1 }, { items: [{ price: 2 }], b: 2 });
  await read({ items: [{ price: 1 }, { price: 1 }] }, { items: [{ price: 1 }, { price: 5 }] });
  await read({ updatedAt: 1 }, { updatedAt: 2 });
  await read({ ok: 1 }, { ok: 1 }); // the comparison says false; the walk finds nothing
  const metrics = await collect();
  const metric = metrics.get(MISMATCHES);
  assert.ok(metric, `${MISMATCHES} exported`);
  assert.equal(total(metric), 4, 'every mismatch counted once');
  const byPath = {};
  for (const [attrs, value] of points(metric)) {
    assert.equal(attrs['feature_flag.key'], 'mig');
    byPath[attrs[PATH]] = (byPath[attrs[PATH]] ?? 0) + value;
  }
  assert.equal(byPath['/items/*/price'], 2, 'the first difference’s path, normalised');
  assert.equal(byPath['/updatedAt'], 1);
  assert.equal(byPath['/b'], undefined, 'only the first difference names the point');
  const json = JSON.stringify(points(metric));
  assert.ok(!json.includes('/items/0/price') && !json.includes('/items/1/price'), 'no index in any attribute');
  const checks = metrics.get('cutover.migration.consistency.checks');
  for (const [attrs] of points(checks)) assert.ok(!(PATH in attrs), 'the checks counter has no path attribute');
});

// The contract: "the first difference's normalised path from the same table, else `_OTHER`". A
// mismatch whose walk finds nothing (a user comparison saying false for equal values) has no
// first difference: its point is labelled `_OTHER`, like every path the table does not name.
test('a mismatch without differences: the metric’s path attribute is _OTHER', async (t) => {
  const { meter, collect } = otel(t);
  const { read } = mmSetup({ mismatches: true, meter });
  await read({ ok: 1 }, { ok: 1 });
  const [[attrs, value]] = points((await collect()).get(MISMATCHES));
  assert.equal(value, 1);
  assert.equal(attrs[PATH], '_OTHER');
});

test('the metric’s path attribute is drawn from the 32-path table, else _OTHER', async (t) => {
  const { meter, collect } = otel(t);
  const { migrator, read } = mmSetup({ mismatches: true, meter });
  for (let i = 0; i < 40; i++) await read({ [`k${i}`]: 1 }, { [`k${i}`]: 2 });
  await read({ k3: 1 }, { k3: 2 });
  const metric = (await collect()).get(MISMATCHES);
  const byPath = {};
  for (const [attrs, value] of points(metric)) byPath[attrs[PATH]] = (byPath[attrs[PATH]] ?? 0) + value;
  assert.equal(Object.keys(byPath).length, 33, `33 labels: ${Object.keys(byPath).join(' ')}`);
  assert.equal(byPath._OTHER, 8);
  assert.equal(byPath['/k3'], 2);
  assert.equal(byPath['/k35'], undefined);
  assert.equal(total(metric), 41);
  assert.equal(migrator.stats().read.consistency.paths._OTHER, 8);
});

test('no values and no context in any metric or event', async (t) => {
  const { meter, collect } = otel(t);
  const { read, events } = mmSetup({ mismatches: true, meter });
  await read({ secret: 'old-secret-value' }, { secret: 'new-secret-value' }, { kind: 'user', key: 'secret-context-key' });
  const json = JSON.stringify([...(await collect()).values()].map((m) => points(m)));
  for (const s of ['old-secret-value', 'new-secret-value', 'secret-context-key']) assert.ok(!json.includes(s), `${s} not in metrics`);
  assert.equal(events.length, 1);
  const text = JSON.stringify(events);
  for (const s of ['old-secret-value', 'new-secret-value', '/secret']) assert.ok(!text.includes(s), `${s} not in the event`);
});

test('the label is the first difference’s: _OTHER when the table does not name it, even if a later one is named', async (t) => {
  const { meter, collect } = otel(t);
  const { migrator, read } = mmSetup({ mismatches: true, meter });
  for (let i = 0; i < 32; i++) await read({ [`k${i}`]: 1 }, { [`k${i}`]: 2 });
  await read({ zz: 1, k0: 1 }, { zz: 2, k0: 2 }); // /zz first (not named), then /k0 (named)
  const metric = (await collect()).get(MISMATCHES);
  const byPath = {};
  for (const [attrs, value] of points(metric)) byPath[attrs[PATH]] = (byPath[attrs[PATH]] ?? 0) + value;
  assert.equal(byPath._OTHER, 1);
  assert.equal(byPath['/k0'], 1, 'the /k0 point counts only the mismatch whose first difference it was');
  assert.deepEqual({ k0: migrator.stats().read.consistency.paths['/k0'], other: migrator.stats().read.consistency.paths._OTHER }, { k0: 2, other: 1 });
});

test('resetStats() empties the table: new paths are named again, in stats and on the metric', async (t) => {
  const { meter, collect } = otel(t);
  const { migrator, read } = mmSetup({ mismatches: true, meter });
  for (let i = 0; i < 33; i++) await read({ [`k${i}`]: 1 }, { [`k${i}`]: 2 });
  assert.equal(migrator.stats().read.consistency.paths._OTHER, 1);
  migrator.resetStats();
  assert.deepEqual(migrator.stats().read.consistency.paths, {});
  await read({ fresh: 1 }, { fresh: 2 });
  assert.deepEqual(migrator.stats().read.consistency.paths, { '/fresh': 1 });
  const metric = (await collect()).get(MISMATCHES);
  const labels = points(metric).map(([attrs]) => attrs[PATH]);
  assert.ok(labels.includes('/fresh'), `labels: ${labels.join(' ')}`);
});
