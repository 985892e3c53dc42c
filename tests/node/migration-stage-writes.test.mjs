// Stage table, writes — SPEC.md A1 (write order / non-authoritative write runs if) and its bullets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CTX, STAGES, setup, measurement, sleep } from './helpers/migration.mjs';

const TABLE = {
  off: { order: ['old'], auth: 'old' },
  dualwrite: { order: ['old', 'new'], auth: 'old' },
  shadow: { order: ['old', 'new'], auth: 'old' },
  live: { order: ['new', 'old'], auth: 'new' },
  rampdown: { order: ['new', 'old'], auth: 'new' },
  complete: { order: ['new'], auth: 'new' },
};

for (const stage of STAGES) {
  const row = TABLE[stage];
  const nonAuth = row.auth === 'old' ? 'new' : 'old';

  test(`write at ${stage}: runs ${row.order.join(' → ')}`, async () => {
    const { migrator, rec, events } = setup({ stage });
    const r = await migrator.write('mig', CTX, 'off', { w: 1 });
    assert.deepEqual(rec.names(), row.order);
    assert.equal(r.authoritative.origin, row.auth);
    assert.equal(r.authoritative.success, true);
    assert.equal(r.authoritative.value, `${row.auth}-written`);
    if (row.order.length === 2) {
      assert.equal(r.nonAuthoritative.origin, nonAuth);
      assert.equal(r.nonAuthoritative.success, true);
      assert.equal(r.nonAuthoritative.value, `${nonAuth}-written`);
    } else {
      assert.equal(r.nonAuthoritative, undefined);
    }
    assert.equal(events.length, 1);
    assert.equal(events[0].operation, 'write');
    const expected = {};
    for (const o of row.order) expected[o] = true;
    assert.deepEqual(measurement(events[0], 'invoked').values, expected);
  });

  test(`write at ${stage}: authoritative failure → non-authoritative not run and absent`, async () => {
    const err = new Error('auth write failed');
    const opts = { stage };
    opts[row.auth === 'old' ? 'writeOld' : 'writeNew'] = () => {
      throw err;
    };
    const { migrator, rec, events } = setup(opts);
    const r = await migrator.write('mig', CTX, 'off');
    assert.deepEqual(rec.names(), [row.auth]);
    assert.equal(r.authoritative.origin, row.auth);
    assert.equal(r.authoritative.success, false);
    assert.equal(r.authoritative.error, err);
    assert.equal(r.nonAuthoritative, undefined);
    assert.deepEqual(measurement(events[0], 'invoked').values, { [row.auth]: true });
    assert.deepEqual(measurement(events[0], 'error').values, { [row.auth]: true });
  });

  if (row.order.length === 2) {
    test(`write at ${stage}: non-authoritative failure is reported, authoritative kept`, async () => {
      const err = { code: 1 };
      const opts = { stage };
      opts[nonAuth === 'old' ? 'writeOld' : 'writeNew'] = async () => {
        throw err;
      };
      const { migrator, events } = setup(opts);
      const r = await migrator.write('mig', CTX, 'off');
      assert.equal(r.authoritative.success, true);
      assert.equal(r.nonAuthoritative.origin, nonAuth);
      assert.equal(r.nonAuthoritative.success, false);
      assert.equal(r.nonAuthoritative.error, err);
      assert.deepEqual(measurement(events[0], 'error').values, { [nonAuth]: true });
    });

    test(`write at ${stage}: writes are sequential (non-authoritative starts after authoritative settles)`, async () => {
      const slow = async () => {
        await sleep(30);
        return 'slow';
      };
      const opts = { stage };
      opts[row.auth === 'old' ? 'writeOld' : 'writeNew'] = slow;
      const { migrator, rec } = setup(opts);
      await migrator.write('mig', CTX, 'off');
      assert.deepEqual(rec.log, [`start ${row.auth}`, `end ${row.auth}`, `start ${nonAuth}`, `end ${nonAuth}`]);
    });
  }

  test(`write at ${stage}: the payload object goes unchanged to every origin`, async () => {
    const payload = { rows: [1, 2, 3] };
    const { migrator, rec } = setup({ stage });
    await migrator.write('mig', CTX, 'off', payload);
    assert.equal(rec.calls.length, row.order.length);
    for (const c of rec.calls) {
      assert.equal(c.payload, payload);
      assert.ok(c.signal instanceof AbortSignal);
    }
  });
}

test('writes never run a consistency check, even in shadow/live with a comparison', async () => {
  for (const stage of ['shadow', 'live']) {
    let compared = 0;
    const { migrator, events } = setup({
      stage,
      comparison: () => {
        compared++;
        return true;
      },
    });
    await migrator.write('mig', CTX, 'off');
    assert.equal(compared, 0);
    assert.equal(measurement(events[0], 'consistent'), undefined);
  }
});

test('writes do not use the read origins and reads do not use the write origins', async () => {
  const { migrator, rec } = setup({
    stage: 'dualwrite',
    readOld: () => 'R-old',
    readNew: () => 'R-new',
    writeOld: () => 'W-old',
    writeNew: () => 'W-new',
  });
  const w = await migrator.write('mig', CTX, 'off');
  assert.equal(w.authoritative.value, 'W-old');
  assert.equal(w.nonAuthoritative.value, 'W-new');
  const r = await migrator.read('mig', CTX, 'off');
  assert.equal(r.value, 'R-old');
  assert.equal(rec.calls.length, 3);
});

test('write execution order is unaffected by readExecutionOrder(parallel)', async () => {
  const { migrator, rec } = setup({
    stage: 'live',
    order: 'parallel',
    writeNew: async () => {
      await sleep(20);
      return 'n';
    },
  });
  await migrator.write('mig', CTX, 'off');
  assert.deepEqual(rec.log, ['start new', 'end new', 'start old', 'end old']);
});
