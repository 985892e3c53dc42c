// Execution order & timing — SPEC.md A2; API.md readExecutionOrder (default 'parallel').
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CTX, setup, sleep } from './helpers/migration.mjs';

const slow = (ms, value) => async () => {
  await sleep(ms);
  return value;
};

async function timedRead(opts, stage = 'shadow') {
  const { migrator, rec } = setup({ stage, readOld: slow(100, 'o'), readNew: slow(100, 'n'), ...opts });
  const t0 = performance.now();
  const r = await migrator.read('mig', CTX, 'off');
  return { elapsed: performance.now() - t0, r, rec };
}

test('parallel (explicit): two 100 ms origins finish in < 190 ms', async () => {
  const { elapsed, r } = await timedRead({ order: 'parallel' });
  assert.equal(r.value, 'o');
  assert.ok(elapsed < 190, `elapsed ${elapsed} ms`);
  assert.ok(elapsed >= 95, `elapsed ${elapsed} ms`);
});

test('parallel is the default order', async () => {
  const { elapsed } = await timedRead({}, 'live');
  assert.ok(elapsed < 190, `elapsed ${elapsed} ms`);
});

test('parallel: both origins start before either finishes', async () => {
  for (const stage of ['shadow', 'live']) {
    const { rec } = await timedRead({ order: 'parallel', readOld: slow(20, 'o'), readNew: slow(20, 'n') }, stage);
    assert.deepEqual(rec.log.slice(0, 2).sort(), ['start new', 'start old']);
    assert.deepEqual(rec.log.slice(2).sort(), ['end new', 'end old']);
  }
});

test('parallel: a slow authoritative and a fast non-authoritative still overlap', async () => {
  const { rec, elapsed } = await timedRead({ order: 'parallel', readOld: slow(100, 'o'), readNew: slow(10, 'n') });
  assert.ok(rec.log.indexOf('end new') < rec.log.indexOf('end old'));
  assert.ok(rec.log.indexOf('start new') < rec.log.indexOf('end old'));
  assert.ok(elapsed < 190, `elapsed ${elapsed} ms`);
});

test('serial: two 100 ms origins take ≥ 200 ms', async () => {
  const { elapsed, r } = await timedRead({ order: 'serial' });
  assert.equal(r.value, 'o');
  assert.ok(elapsed >= 198, `elapsed ${elapsed} ms`);
});

test('serial shadow: old (authoritative) runs to completion, then new', async () => {
  const { rec } = await timedRead({ order: 'serial', readOld: slow(15, 'o'), readNew: slow(1, 'n') }, 'shadow');
  assert.deepEqual(rec.log, ['start old', 'end old', 'start new', 'end new']);
});

test('serial live: new (authoritative) runs to completion, then old', async () => {
  const { rec, r } = await timedRead({ order: 'serial', readOld: slow(1, 'o'), readNew: slow(15, 'n') }, 'live');
  assert.deepEqual(rec.log, ['start new', 'end new', 'start old', 'end old']);
  assert.equal(r.value, 'n');
});

test('serial: the non-authoritative runs even when the authoritative failed', async () => {
  const { rec, r } = await timedRead(
    {
      order: 'serial',
      readOld: async () => {
        await sleep(5);
        throw new Error('x');
      },
      readNew: slow(1, 'n'),
    },
    'shadow',
  );
  assert.deepEqual(rec.log, ['start old', 'end old', 'start new', 'end new']);
  assert.equal(r.success, false);
});

test('random: sequential every time, and a fair coin picks the first origin per read', async () => {
  const { migrator, rec } = setup({
    stage: 'shadow',
    order: 'random',
    readOld: () => new Promise((res) => setImmediate(() => res('o'))),
    readNew: () => new Promise((res) => setImmediate(() => res('n'))),
  });
  const N = 300;
  let oldFirst = 0;
  for (let i = 0; i < N; i++) {
    rec.log.length = 0;
    const r = await migrator.read('mig', CTX, 'off');
    assert.equal(r.origin, 'old');
    assert.equal(r.value, 'o');
    assert.equal(rec.log.length, 4);
    const first = rec.log[0].split(' ')[1];
    const second = first === 'old' ? 'new' : 'old';
    assert.deepEqual(rec.log, [`start ${first}`, `end ${first}`, `start ${second}`, `end ${second}`]);
    if (first === 'old') oldFirst++;
  }
  const share = oldFirst / N;
  assert.ok(share > 0.3 && share < 0.7, `old ran first in ${oldFirst}/${N} reads`);
});

test('random: two 100 ms origins take ≥ 200 ms (it is serial)', async () => {
  const { elapsed } = await timedRead({ order: 'random' }, 'live');
  assert.ok(elapsed >= 198, `elapsed ${elapsed} ms`);
});

test('single-origin stages run one origin regardless of order', async () => {
  for (const order of ['serial', 'random', 'parallel']) {
    for (const [stage, origin] of [['off', 'old'], ['dualwrite', 'old'], ['rampdown', 'new'], ['complete', 'new']]) {
      const { migrator, rec } = setup({ stage, order });
      const r = await migrator.read('mig', CTX, 'off');
      assert.deepEqual(rec.names(), [origin]);
      assert.equal(r.origin, origin);
    }
  }
});

test('the last readExecutionOrder call wins', async () => {
  const { elapsed } = await timedRead({ order: undefined }, 'shadow');
  assert.ok(elapsed < 190);
  const c = setup({ stage: 'shadow', readOld: slow(100, 'o'), readNew: slow(100, 'n') });
  // rebuild with serial then parallel
  c.builder.readExecutionOrder('serial').readExecutionOrder('parallel');
  const m = c.builder.build();
  const t0 = performance.now();
  await m.read('mig', CTX, 'off');
  assert.ok(performance.now() - t0 < 190);
  c.builder.readExecutionOrder('parallel').readExecutionOrder('serial');
  const m2 = c.builder.build();
  const t1 = performance.now();
  await m2.read('mig', CTX, 'off');
  assert.ok(performance.now() - t1 >= 198);
});

test('a synchronously throwing origin does not stop the other origin (every order)', async () => {
  for (const order of ['parallel', 'serial', 'random']) {
    for (const stage of ['shadow', 'live']) {
      const { migrator, rec, events } = setup({
        stage,
        order,
        readOld: () => {
          throw new Error('sync old');
        },
      });
      const r = await migrator.read('mig', CTX, 'off');
      assert.deepEqual(rec.names().sort(), ['new', 'old'], `${order}/${stage}`);
      assert.equal(r.success, stage === 'live');
      assert.deepEqual(events[0].measurements.find((m) => m.key === 'error').values, { old: true });
    }
  }
});
