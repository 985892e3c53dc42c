// What the console's snapshot holds, second by second: rates from the differences of stats(),
// the per-second percentiles (the core's window over the histogram), and the guard — stats().guard
// when a migrator has one (API §1), read defensively: shown when present, its changes kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MigratorBuilder, fixedStage, migrationConsole } from 'cutover';

/** A console whose clock the test moves (Date.now), and its snapshot. */
function consoleAt(options) {
  const realNow = Date.now;
  let now = realNow();
  Date.now = () => now;
  const handler = migrationConsole({ authorize: () => true, historySeconds: 10, ...options });
  return {
    tick: (ms = 1000) => { now += ms; },
    snapshot: async () => (await handler(new Request('http://svc/cutover/api/snapshot'))).json(),
    close: () => { handler.close(); Date.now = realNow; },
  };
}

test('rates and per-second percentiles: one sample a second, each second its own window', async () => {
  let latency = 2;
  const orders = new MigratorBuilder(fixedStage('shadow'))
    .read(async (n) => { await new Promise((r) => setTimeout(r, latency)); return n; }, (n) => n, (a, b) => a === b)
    .write((x) => x, (x) => x)
    .build();
  const c = consoleAt({ migrators: { orders } });
  try {
    for (let i = 0; i < 10; i++) await orders.read('f', { key: 'k' }, 'off', i);
    c.tick();
    await c.snapshot(); // second 1: 10 reads at about 2 ms
    latency = 40;
    for (let i = 0; i < 5; i++) await orders.read('f', { key: 'k' }, 'off', i);
    c.tick();
    const { migrators: [m] } = await c.snapshot(); // second 2: 5 reads at about 40 ms
    const { readOps, readOldP50, readOldP99, consistency, writeOps } = m.history.series;
    assert.deepEqual(readOps.slice(-2), [10, 5]);
    assert.deepEqual(writeOps.slice(-2), [0, 0]);
    assert.deepEqual(consistency.slice(-2), [1, 1]);
    assert.ok(readOldP50.at(-2) < 20 && readOldP99.at(-2) < 20, `second 1: ${readOldP50.at(-2)} / ${readOldP99.at(-2)}`);
    assert.ok(readOldP50.at(-1) >= 38, `second 2 is its own window, not the cumulative p50: ${readOldP50.at(-1)}`);
    assert.equal(m.read.count, 15);
    assert.ok(m.read.old.latencyMs.p50 < 20, 'the cumulative p50 stays low');
  } finally {
    c.close();
  }
});

test('the guard: shown when stats() has one, with its changes; nothing when it has none', async () => {
  const counts = () => ({ count: 0, byStage: {}, old: { invoked: 0, errors: 0, timeouts: 0, latencyMs: null }, new: { invoked: 0, errors: 0, timeouts: 0, latencyMs: null }, consistency: { checked: 0, consistent: 0, paths: {} }, shed: 0 });
  let guard = { trips: 0, recoveries: 0, fallbacks: { read: 0, write: 0 }, flags: { 'orders-store': { state: 'closed', since: 1000, reason: null } } };
  const guarded = { stats: () => ({ read: counts(), write: counts(), guard }) };
  const plain = { stats: () => ({ read: counts(), write: counts() }) };
  const c = consoleAt({ migrators: { guarded, plain } });
  try {
    c.tick();
    let { migrators: [g, p] } = await c.snapshot();
    assert.equal(p.guard, null);
    assert.deepEqual(g.guard, { trips: 0, recoveries: 0, fallbacks: { read: 0, write: 0 }, flags: [{ flagKey: 'orders-store', state: 'closed', since: 1000, reason: null }] });
    assert.deepEqual(g.guardChanges, []);
    guard = { ...guard, trips: 1, fallbacks: { read: 7, write: 1 }, flags: { 'orders-store': { state: 'tripped', since: 2000, reason: 'error rate 0.31 > 0.1 over 164 calls' }, 'users-store': { state: 'probing', since: 2500, reason: 'cooldown over' } } };
    c.tick();
    ({ migrators: [g] } = await c.snapshot());
    assert.equal(g.guard.trips, 1);
    assert.deepEqual(g.guardChanges, [
      { flagKey: 'orders-store', from: 'closed', to: 'tripped', reason: 'error rate 0.31 > 0.1 over 164 calls', at: 2000 },
      { flagKey: 'users-store', from: null, to: 'probing', reason: 'cooldown over', at: 2500 },
    ]);
    c.tick();
    ({ migrators: [g] } = await c.snapshot());
    assert.equal(g.guardChanges.length, 2, 'no change, nothing added');
  } finally {
    c.close();
  }
});
