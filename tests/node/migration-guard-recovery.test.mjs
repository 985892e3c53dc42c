// guard() after a trip (issue 30, API.md §1 "Guardrails"), with real timers and small options:
// the first operation after cooldownMs turns it to probing; 1 read in probeRatio (the first
// included) runs both origins as in shadow, old returned and compared; writes run old first; once
// minCalls new-origin calls since probing began are within every bound it closes, a bound
// exceeded trips it again. Also the rate, latency and inconsistency bounds, and background mode,
// where an outcome counts when the operation's background part ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MigratorBuilder } from 'cutover';
import { guardSetup, makeClient, makeLogger, moves, sleep, trip } from './helpers/guard.mjs';
import { makeGates, turns, watch } from './helpers/background.mjs';

const SMALL = { cooldownMs: 50, minCalls: 5, probeRatio: 2, maxConsecutiveErrors: 3 };

test('cooldown → probing → closed: 1 read in probeRatio tries the new origin, old returned and compared', async () => {
  const compared = [];
  const g = guardSetup({ guard: SMALL, comparison: (a, b) => (compared.push([a, b]), a === b) });
  await trip(g, 3);
  const trippedAt = g.migrator.guard(g.flag).since;
  assert.deepEqual((await g.run('read')).called, ['old'], 'still tripped before the cooldown');
  await sleep(60);
  assert.equal(g.state(), 'tripped', 'no timer: the state turns at the next operation');
  const pattern = [];
  for (let i = 0; i < 9; i++) {
    const { called, result } = await g.run('read');
    assert.deepEqual([result.origin, result.value], ['old', 'old-value'], `probing read ${i} returns the old value`);
    pattern.push(called.join('+'));
    if (i < 8) assert.equal(g.state(), 'probing', `after probing read ${i}`);
  }
  assert.deepEqual(pattern, ['old+new', 'old', 'old+new', 'old', 'old+new', 'old', 'old+new', 'old', 'old+new']);
  assert.equal(compared.length, 5, 'each probe is compared');
  assert.deepEqual(compared[0], ['old-value', 'new-value'], 'old value first');
  assert.equal(g.state(), 'closed', 'closed after minCalls (5) healthy probes');
  assert.deepEqual(moves(g.changes), [['closed', 'tripped'], ['tripped', 'probing'], ['probing', 'closed']]);
  assert.equal(g.changes[1].reason, 'cooldown of 50 ms ended: 1 read in 2 calls the new origin');
  assert.equal(g.changes[2].reason, 'within every bound over 5 calls since probing began');
  assert.deepEqual(g.changes[2].window, { newCalls: 5, newErrors: 0, oldP99: null, newP99: null, checked: 5, inconsistent: 5 });
  assert.ok(g.changes[1].at - trippedAt >= 49, 'probing began after the cooldown');
  const s = g.migrator.stats().guard;
  assert.deepEqual([s.trips, s.recoveries], [1, 1]);
  assert.deepEqual(s.flags.guarded, { state: 'closed', since: g.changes[2].at, reason: g.changes[2].reason });
  const closed = await g.run('read');
  assert.deepEqual([closed.called, closed.result.origin], [['new', 'old'], 'new'], 'closed at live: the new origin is authoritative again');
  assert.deepEqual(
    g.log.texts('warn').map((w) => w.split(': ')[0]),
    Array(3).fill('migration guard of flag "guarded"'),
  );
});

test('probing: writes run old first, then new, and count towards closing', async () => {
  const g = guardSetup({ guard: SMALL });
  await trip(g, 3);
  await sleep(60);
  for (let i = 0; i < 4; i++) {
    const w = await g.run('write');
    assert.deepEqual(w.called, ['old', 'new'], `probing write ${i}`);
    assert.equal(w.result.authoritative.origin, 'old');
    assert.equal(g.state(), 'probing');
  }
  await g.run('write');
  assert.equal(g.state(), 'closed', 'five healthy new-origin writes since probing began');
  const w = await g.run('write');
  assert.deepEqual(w.called, ['new', 'old'], 'closed at live: new first');
});

test('probing: a bound exceeded trips it again, with a new cooldown', async () => {
  const g = guardSetup({ guard: { ...SMALL, maxConsecutiveErrors: 10, probeRatio: 1 } });
  await trip(g, 5); // the error rate: 5 of 5 calls
  assert.equal(g.changes[0].reason, 'error rate 1 > 0.1 over 5 calls');
  await sleep(60);
  g.health.read = 'ok';
  await g.reads(4);
  assert.equal(g.state(), 'probing', 'four probes, below minCalls');
  g.health.read = 'throw';
  const r = await g.run('read');
  assert.deepEqual([r.called, r.result.origin, r.result.success], [['old', 'new'], 'old', true], 'a failing probe does not reach the caller');
  assert.equal(g.state(), 'tripped');
  assert.deepEqual(moves(g.changes), [['closed', 'tripped'], ['tripped', 'probing'], ['probing', 'tripped']]);
  assert.equal(g.changes[2].reason, 'error rate 0.2 > 0.1 over 5 calls', 'judged on the calls since probing began');
  g.health.read = 'ok';
  assert.deepEqual((await g.run('read')).called, ['old'], 'a new cooldown');
  await sleep(60);
  assert.deepEqual((await g.run('read')).called, ['old', 'new'], 'probing again');
  assert.equal(g.migrator.stats().guard.trips, 2);
});

test('the error rate: no decision below minCalls; above maxErrorRate over minCalls it trips', async () => {
  const g = guardSetup({ guard: { minCalls: 6, maxErrorRate: 0.3 } });
  for (const mode of ['throw', 'ok', 'throw', 'ok', 'throw']) {
    g.health.read = mode;
    await g.reads(1);
  }
  assert.equal(g.state(), 'closed', '3 of 5 failed, below minCalls');
  g.health.read = 'ok';
  await g.reads(1);
  assert.equal(g.state(), 'tripped');
  assert.equal(g.changes[0].reason, 'error rate 0.5 > 0.3 over 6 calls');
  assert.deepEqual([g.changes[0].window.newCalls, g.changes[0].window.newErrors], [6, 3]);
});

test('maxLatencyRatio: a new origin slower than the ratio over the window trips it', async () => {
  const g = guardSetup({ stage: 'shadow', guard: { minCalls: 5, maxLatencyRatio: 2 } });
  // The old origin keeps the thread busy for 1 ms (an event-loop stall cannot make it look slow);
  // the new one takes 40 ms.
  g.health.oldRead = 'spin:1';
  g.health.read = 'slow:40';
  await g.reads(5);
  assert.equal(g.state(), 'tripped');
  const { reason, window } = g.changes[0];
  assert.match(reason, /^latency ratio [\d.]+ > 2 over 5 operations \(p99 new [\d.]+ ms, old [\d.]+ ms\)$/);
  assert.ok(window.newP99 > 2 * window.oldP99, JSON.stringify(window));
  assert.equal(window.newErrors, 0);
});

test('maxInconsistency: checked reads that differ beyond the share trip it', async () => {
  const g = guardSetup({ stage: 'shadow', guard: { minCalls: 5, maxInconsistency: 0.5 }, comparison: (a, b) => a === b });
  await g.reads(5);
  assert.equal(g.state(), 'tripped');
  assert.equal(g.changes[0].reason, 'inconsistency 1 > 0.5 over 5 checks');
  assert.deepEqual([g.changes[0].window.checked, g.changes[0].window.inconsistent], [5, 5]);
  assert.deepEqual((await g.run('read')).called, ['old'], 'tripped at shadow: no more shadow reads');
});

test('background(): an outcome counts when the operation’s background part ends', async () => {
  // Gated read origins: at live the new origin answers the caller, the old one runs in the
  // background.
  const reads = makeGates();
  const changes = [];
  const migrator = new MigratorBuilder(makeClient('live').client, { logger: makeLogger().logger })
    .background()
    .guard({ maxConsecutiveErrors: 2, onChange: (c) => changes.push(c) })
    .read(reads.origin('old'), reads.origin('new'))
    .write(() => 'o', () => 'n')
    .build();
  const first = watch(migrator.read('bg', { key: 'u' }, 'off'));
  const second = watch(migrator.read('bg', { key: 'u' }, 'off'));
  await turns();
  reads.reject('new', new Error('new down 1'));
  reads.reject('new', new Error('new down 2'));
  await Promise.all([first.done, second.done]);
  assert.deepEqual([first.value.origin, first.value.success, second.value.success], ['new', false, false], 'the callers have their failures');
  await turns();
  assert.equal(migrator.guard('bg').state, 'closed', 'not counted while the background parts run');
  reads.resolve('old');
  await turns();
  assert.equal(migrator.guard('bg').state, 'closed', 'one part ended: one failure counted');
  reads.resolve('old');
  await migrator.settled();
  assert.equal(migrator.guard('bg').state, 'tripped', 'both parts ended: two in a row');
  assert.deepEqual(moves(changes), [['closed', 'tripped']]);
  const third = watch(migrator.read('bg', { key: 'u' }, 'off'));
  await turns();
  assert.deepEqual(reads.names().slice(4), ['old'], 'tripped: the old origin alone, no background part');
  reads.resolve('old', 'from old');
  await third.done;
  assert.deepEqual([third.value.origin, third.value.value], ['old', 'from old']);
});
