// mismatches(), onMismatch and the modes (issue 22; API.md §1 "Differences"): onMismatch gets each
// mismatch in the caller's AsyncLocalStorage context; one that throws is logged through the
// builder's logger and fails nothing; in background mode a mismatch is explained when the
// background part ends (visible after settled()); through launchDarklyClient only when
// LaunchDarkly's tracker ran the check and it returned false.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { MigratorBuilder, fixedStage, launchDarklyClient, sameStructure } from 'cutover';
import { makeFakeTracker, mmSetup, pathsAndKinds, sleep } from './helpers/mismatches.mjs';
import { makeGates, turns, watch } from './helpers/background.mjs';

const als = new AsyncLocalStorage();

test('onMismatch is called once per mismatch with the same Mismatch a kept one is', async () => {
  const told = [];
  const { migrator, read } = mmSetup({ mismatches: { onMismatch: (m) => told.push(m) } });
  const context = { kind: 'user', key: 'cb' };
  const oldValue = { a: 1 };
  const newValue = { a: 2 };
  await read(oldValue, newValue, context, 'flag-cb');
  assert.equal(told.length, 1);
  const m = told[0];
  assert.equal(m.flagKey, 'flag-cb');
  assert.equal(m.stage, 'shadow');
  assert.equal(m.context, context);
  assert.equal(m.old, oldValue);
  assert.equal(m.new, newValue);
  assert.deepEqual(pathsAndKinds(m), [['/a', 'changed']]);
  assert.equal(m.truncated, false);
  assert.deepEqual({ ...m }, { ...migrator.mismatches()[0] });
  await read(1, 1); // `() => false`: a mismatch again, with no differences
  assert.equal(told.length, 2);
  assert.deepEqual(told[1].differences, []);
});

test('onMismatch is not called for consistent checks', async () => {
  let calls = 0;
  const { read } = mmSetup({ comparison: sameStructure(), mismatches: { onMismatch: () => calls++ } });
  await read({ a: [1] }, { a: [1] });
  assert.equal(calls, 0);
  await read({ a: [1] }, { a: [2] });
  assert.equal(calls, 1);
});

test('onMismatch runs in the caller’s AsyncLocalStorage context, also with reads interleaved', async () => {
  const seen = [];
  const { migrator } = mmSetup({
    order: 'parallel',
    readOld: async (p) => {
      await sleep(p.delay);
      return { id: p.id, side: 'old' };
    },
    readNew: async (p) => {
      await sleep(5 - p.delay);
      return { id: p.id, side: 'new' };
    },
    comparison: sameStructure(),
    mismatches: { onMismatch: (m) => seen.push({ id: m.old.id, store: als.getStore() }) },
  });
  await Promise.all(
    [0, 1, 2, 3, 4, 5].map((id) =>
      als.run(`op-${id}`, () => migrator.read('mig', { kind: 'user', key: `u${id}` }, 'off', { id, delay: id % 3 })),
    ),
  );
  assert.equal(seen.length, 6);
  for (const s of seen) assert.equal(s.store, `op-${s.id}`, `mismatch of read ${s.id} saw ${s.store}`);
});

test('an onMismatch that throws is logged through the builder’s logger and fails nothing', async () => {
  for (const thrown of [new Error('listener exploded'), 'a string', undefined]) {
    const { migrator, read, log, events } = mmSetup({
      mismatches: {
        onMismatch: () => {
          throw thrown;
        },
      },
    });
    const r = await read({ a: 1 }, { a: 2 });
    assert.equal(r.success, true);
    assert.deepEqual(r.value, { a: 1 });
    assert.equal(events.length, 1, 'the event was still sent');
    assert.equal(migrator.mismatches().length, 1, 'the mismatch is still kept');
    assert.deepEqual(migrator.stats().read.consistency.paths, { '/a': 1 });
    const logged = log.calls.filter((c) => c.level === 'error' || c.level === 'warn');
    assert.ok(logged.length >= 1, `logged (${String(thrown)})`);
    if (thrown instanceof Error) assert.ok(logged.some((c) => c.text.includes('listener exploded')), 'the log names what was thrown');
  }
});

test('onMismatch may call back into the migrator', async () => {
  let inner;
  const { migrator, read } = mmSetup({
    mismatches: {
      onMismatch: (m) => {
        inner = { kept: migrator.mismatches().length, stats: migrator.stats().read.consistency.checked, old: m.old };
      },
    },
  });
  await read(1, 2);
  assert.equal(inner.old, 1);
  assert.equal(typeof inner.kept, 'number');
  assert.equal(inner.stats, 1);
});

test('onMismatch may start another read of the same migrator', async () => {
  let nested;
  let started = false;
  const { migrator, read } = mmSetup({
    mismatches: {
      onMismatch: () => {
        if (started) return;
        started = true;
        nested = migrator.read('mig', { kind: 'user', key: 'nested' }, 'off', { old: { n: 1 }, new: { n: 2 } });
      },
    },
  });
  await read({ a: 1 }, { a: 2 });
  assert.ok(nested instanceof Promise);
  const r = await nested;
  assert.equal(r.success, true);
  const kept = migrator.mismatches();
  assert.equal(kept.length, 2);
  assert.deepEqual(kept.map((m) => m.context.key).sort(), ['mm-user', 'nested']);
});

test('background mode: explained when the background part ends, visible after settled()', async () => {
  const gates = makeGates();
  const seen = [];
  const { migrator } = mmSetup({
    background: true,
    order: 'parallel',
    readOld: gates.origin('old'),
    readNew: gates.origin('new'),
    comparison: sameStructure(),
    mismatches: { onMismatch: (m) => seen.push({ m, store: als.getStore() }) },
  });
  const context = { kind: 'user', key: 'bg' };
  const read = watch(als.run('bg-op', () => migrator.read('mig', context, 'off')));
  await turns();
  const oldValue = { v: 1, items: [1, 2] };
  const newValue = { v: 1, items: [1, 3] };
  gates.resolve('old', oldValue);
  await read.done;
  assert.equal(read.value.value, oldValue);
  await turns();
  assert.deepEqual(migrator.mismatches(), [], 'nothing yet: the new origin is still running');
  assert.equal(seen.length, 0);
  gates.resolve('new', newValue);
  await migrator.settled();
  const kept = migrator.mismatches();
  assert.equal(kept.length, 1);
  assert.equal(kept[0].context, context);
  assert.equal(kept[0].old, oldValue);
  assert.equal(kept[0].new, newValue);
  assert.deepEqual(pathsAndKinds(kept[0]), [['/items/1', 'changed']]);
  assert.deepEqual(migrator.stats().read.consistency.paths, { '/items/*': 1 });
  assert.equal(seen.length, 1);
  assert.equal(seen[0].store, 'bg-op', 'onMismatch in the caller’s context, after the read resolved');
});

test('background mode at live, serial: the same explanation, old and new in order', async () => {
  const { migrator, read } = mmSetup({ background: true, stage: 'live', order: 'serial', mismatches: true });
  const r = await read({ a: 'o' }, { a: 'n' });
  assert.deepEqual(r.value, { a: 'n' });
  await migrator.settled();
  const [m] = migrator.mismatches();
  assert.deepEqual(pathsAndKinds(m), [['/a', 'changed']]);
  assert.equal(m.differences[0].old, 'o');
  assert.equal(m.differences[0].new, 'n');
  assert.equal(m.stage, 'live');
});

/** A LaunchDarkly-shaped client serving `stage` with `tracker`. */
function fakeLD(stage, tracker) {
  return {
    async migrationVariation() {
      return { value: stage, tracker };
    },
    trackMigration() {},
  };
}

function ldMigrator(ld, mismatchOptions, comparison) {
  return new MigratorBuilder(launchDarklyClient(ld), { logger: { debug() {}, info() {}, warn() {}, error() {} } })
    .mismatches(mismatchOptions)
    .read(
      (p) => p.old,
      (p) => p.new,
      comparison,
    )
    .write(
      () => 1,
      () => 1,
    )
    .build();
}

test('launchDarklyClient: explained only when LaunchDarkly’s tracker ran the check and it returned false', async () => {
  const ctx = { kind: 'user', key: 'ld' };
  const sampled = makeFakeTracker({ sample: true });
  const m1 = ldMigrator(fakeLD('shadow', sampled), {}, sameStructure());
  await m1.read('mig', ctx, 'off', { old: { a: 1 }, new: { a: 2 } });
  await m1.read('mig', ctx, 'off', { old: { a: 1 }, new: { a: 1 } });
  assert.deepEqual(sampled.calls.filter((c) => c[0] === 'consistency-result').map((c) => c[1]), [false, true]);
  const kept = m1.mismatches();
  assert.equal(kept.length, 1);
  assert.equal(kept[0].context, ctx);
  assert.deepEqual(pathsAndKinds(kept[0]), [['/a', 'changed']]);

  let compared = 0;
  const unsampled = makeFakeTracker({ sample: false });
  const m2 = ldMigrator(fakeLD('shadow', unsampled), {}, () => (compared++, false));
  await m2.read('mig', ctx, 'off', { old: { a: 1 }, new: { a: 2 } });
  assert.equal(compared, 0, 'the tracker did not run the check');
  assert.ok(unsampled.calls.some((c) => c[0] === 'consistency'), 'the check was handed to the tracker');
  assert.deepEqual(m2.mismatches(), [], 'no check ran: nothing explained');
  assert.deepEqual(m2.stats().read.consistency.paths, {});
});

test('a read started from a getter during a walk is compared and explained like any other', async () => {
  const inner = (oldValue, newValue, comparison) =>
    new MigratorBuilder(fixedStage('shadow'), { logger: { debug() {}, info() {}, warn() {}, error() {} } })
      .mismatches()
      .read(() => oldValue, () => newValue, comparison)
      .write(() => 1, () => 1)
      .build();
  const during = (migrator) => {
    let p;
    const v = () =>
      Object.defineProperty({}, 'g', {
        enumerable: true,
        get() {
          p ??= migrator.read('mig', { kind: 'user', key: 'inner' }, 'off');
          return 'g';
        },
      });
    assert.equal(sameStructure()(v(), v()), true, 'the outer comparison');
    return p;
  };
  const equal = inner({ z: 1 }, { z: 1 }, sameStructure());
  await during(equal);
  assert.deepEqual(equal.stats().read.consistency, { checked: 1, consistent: 1, paths: {} });
  assert.deepEqual(equal.mismatches(), []);
  const differ = inner({ z: 1 }, { z: 2 }, () => false);
  await during(differ);
  assert.deepEqual(differ.mismatches().map((m) => pathsAndKinds(m)), [[['/z', 'changed']]]);
});

test('background mode: a shed operation runs no check, so nothing is explained', async () => {
  const gates = makeGates();
  const builder = new MigratorBuilder(fixedStage('shadow'), { logger: { debug() {}, info() {}, warn() {}, error() {} } })
    .background({ maxInFlight: 1 })
    .mismatches()
    .read(() => ({ v: 'old' }), gates.origin('new'), sameStructure())
    .write(() => 1, () => 1);
  const migrator = builder.build();
  await migrator.read('mig', { kind: 'user', key: 'a' }, 'off');
  await migrator.read('mig', { kind: 'user', key: 'b' }, 'off'); // shed: one background part already runs
  await turns();
  assert.equal(gates.count('new'), 1);
  gates.resolve('new', { v: 'new' });
  await migrator.settled();
  assert.equal(migrator.stats().read.shed, 1);
  const kept = migrator.mismatches();
  assert.equal(kept.length, 1);
  assert.equal(kept[0].context.key, 'a');
  assert.deepEqual(pathsAndKinds(kept[0]), [['/v', 'changed']]);
});
