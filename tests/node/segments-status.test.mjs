// Status provider: getStatus, lastStatus and listeners — API.md §2, SPEC.md B4.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshMetadata, makeLogger, makeStore, managerFor, sleep } from './helpers/segments.mjs';

const HEALTHY = { available: true, stale: false };
const STALE = { available: true, stale: true };
const DOWN = { available: false, stale: false };

const STATES = {
  healthy: freshMetadata,
  stale: () => null,
  down: () => {
    throw new Error('store down');
  },
};

/**
 * A manager without start(): every `poll()` waits past statusPollIntervalMs and does a lookup,
 * which re-polls the status inline (SPEC.md B3 step 4), so listeners have run when it resolves.
 */
function setup(t, { initial = 'healthy', ...options } = {}) {
  let state = STATES[initial];
  const log = makeLogger();
  const { store, calls } = makeStore({ metadata: () => state() });
  const manager = managerFor(t, {
    store,
    statusPollIntervalMs: 30,
    contextCacheTimeMs: 60_000,
    logger: log.logger,
    ...options,
  });
  return {
    manager,
    provider: manager.statusProvider,
    log,
    calls,
    set(name) {
      state = STATES[name];
    },
    async poll() {
      const before = calls.getMetadata;
      await sleep(60);
      const result = await manager.getUserMembership('k');
      assert.ok(calls.getMetadata > before, 'test driver: the lookup re-polled the status');
      return result;
    },
  };
}

const plain = (s) => (s === undefined ? s : { ...s });

test('lastStatus is undefined before the first poll; getStatus() polls when there is none', async (t) => {
  const { provider, calls } = setup(t);
  assert.equal(provider.lastStatus, undefined);
  const p = provider.getStatus();
  assert.equal(typeof p?.then, 'function', 'getStatus returns a Promise');
  assert.deepEqual(plain(await p), HEALTHY);
  assert.equal(calls.getMetadata, 1);
  assert.deepEqual(plain(provider.lastStatus), HEALTHY);
  // With a status known, getStatus() returns it without polling.
  const fresh = setup(t, { statusPollIntervalMs: 60_000 });
  await fresh.provider.getStatus();
  assert.deepEqual(plain(await fresh.provider.getStatus()), HEALTHY);
  assert.equal(fresh.calls.getMetadata, 1, 'the last status is returned, no second poll');
});

test('getStatus() reports stale and unavailable stores', async (t) => {
  const stale = setup(t, { initial: 'stale' });
  assert.deepEqual(plain(await stale.provider.getStatus()), STALE);
  const down = setup(t, { initial: 'down' });
  assert.deepEqual(plain(await down.provider.getStatus()), DOWN);
  assert.deepEqual(plain(down.provider.lastStatus), DOWN);
});

test('the first status ever is stored without notifying listeners', async (t) => {
  for (const initial of ['healthy', 'stale', 'down']) {
    const { manager, provider } = setup(t, { initial });
    const seen = [];
    provider.addListener((s) => seen.push(plain(s)));
    await manager.getUserMembership('k');
    await sleep(20);
    assert.deepEqual(seen, [], `${initial}: first status is silent`);
    assert.notEqual(provider.lastStatus, undefined);
  }
});

test('listeners are notified only when available or stale changes', async (t) => {
  const d = setup(t);
  const seen = [];
  d.provider.addListener((s) => seen.push(plain(s)));
  await d.manager.getUserMembership('k'); // first status: silent
  await d.poll(); // healthy again (newer lastUpToDate): no change
  await d.poll();
  assert.deepEqual(seen, []);
  d.set('stale');
  const r = await d.poll();
  assert.equal(r.status, 'STALE');
  assert.deepEqual(seen, [STALE]);
  await d.poll(); // still stale
  assert.deepEqual(seen, [STALE]);
  d.set('down');
  assert.equal((await d.poll()).status, 'STORE_ERROR');
  assert.deepEqual(seen, [STALE, DOWN]);
  await d.poll(); // still down (a new error each time)
  assert.deepEqual(seen, [STALE, DOWN]);
  d.set('healthy');
  assert.equal((await d.poll()).status, 'HEALTHY');
  assert.deepEqual(seen, [STALE, DOWN, HEALTHY]);
});

test('listeners are called in the order added, with lastStatus already updated', async (t) => {
  const d = setup(t);
  const order = [];
  for (const name of ['first', 'second', 'third']) {
    d.provider.addListener((s) => {
      order.push(name);
      assert.deepEqual(plain(d.provider.lastStatus), plain(s), `${name}: lastStatus holds the new status`);
    });
  }
  await d.manager.getUserMembership('k');
  d.set('down');
  await d.poll();
  assert.deepEqual(order, ['first', 'second', 'third']);
  d.set('healthy');
  await d.poll();
  assert.deepEqual(order, ['first', 'second', 'third', 'first', 'second', 'third']);
});

test('lastStatus read inside a listener is the new status (explicit values)', async (t) => {
  const d = setup(t);
  const inside = [];
  d.provider.addListener(() => inside.push(plain(d.provider.lastStatus)));
  await d.manager.getUserMembership('k');
  d.set('stale');
  await d.poll();
  assert.deepEqual(inside, [STALE]);
});

test('a listener added during a notification is first called on the next change', async (t) => {
  const d = setup(t);
  const calls = [];
  const late = (s) => calls.push(['late', plain(s)]);
  let added = false;
  d.provider.addListener((s) => {
    calls.push(['adder', plain(s)]);
    if (!added) {
      added = true;
      d.provider.addListener(late);
    }
  });
  await d.manager.getUserMembership('k');
  d.set('down');
  await d.poll();
  assert.deepEqual(calls, [['adder', DOWN]], 'the added listener is not called for the current change');
  d.set('healthy');
  await d.poll();
  assert.deepEqual(calls, [['adder', DOWN], ['adder', HEALTHY], ['late', HEALTHY]]);
});

test('a listener removing itself during a notification does not stop the others', async (t) => {
  const d = setup(t);
  const calls = [];
  const selfRemoving = () => {
    calls.push('self');
    d.provider.removeListener(selfRemoving);
  };
  d.provider.addListener(selfRemoving);
  d.provider.addListener(() => calls.push('b'));
  d.provider.addListener(() => calls.push('c'));
  await d.manager.getUserMembership('k');
  d.set('down');
  await d.poll();
  assert.deepEqual(calls, ['self', 'b', 'c']);
  d.set('healthy');
  await d.poll();
  assert.deepEqual(calls, ['self', 'b', 'c', 'b', 'c'], 'the removed listener is gone afterwards');
});

test('a listener removing another during a notification does not stop the rest', async (t) => {
  const d = setup(t);
  const calls = [];
  const victim = () => calls.push('victim');
  d.provider.addListener(() => {
    calls.push('remover');
    d.provider.removeListener(victim);
  });
  d.provider.addListener(victim);
  d.provider.addListener(() => calls.push('last'));
  await d.manager.getUserMembership('k');
  d.set('stale');
  await d.poll();
  assert.equal(calls[0], 'remover');
  assert.ok(calls.includes('last'), `the listener after the removed one still runs: ${calls}`);
  assert.equal(calls.at(-1), 'last');
  calls.length = 0;
  d.set('healthy');
  await d.poll();
  assert.deepEqual(calls, ['remover', 'last'], 'the removed listener is not called on later changes');
});

test('a throwing listener is logged and the others still run; the lookup is unaffected', async (t) => {
  const d = setup(t);
  const calls = [];
  d.provider.addListener(() => calls.push('before'));
  d.provider.addListener(() => {
    calls.push('thrower');
    throw new Error('listener-boom');
  });
  d.provider.addListener(() => calls.push('after'));
  await d.manager.getUserMembership('k');
  d.set('stale');
  const errorsBefore = d.log.texts('error').length;
  const result = await d.poll();
  assert.equal(result.status, 'STALE', 'the lookup still resolves normally');
  assert.deepEqual({ ...result.membership }, { 'seg.g1': true });
  assert.deepEqual(calls, ['before', 'thrower', 'after']);
  assert.ok(d.log.texts('error').length > errorsBefore, 'the throw is logged at error level');
  // Still works on the next change.
  d.set('healthy');
  await d.poll();
  assert.deepEqual(calls, ['before', 'thrower', 'after', 'before', 'thrower', 'after']);
  await sleep(20); // a stray rejection would crash the run (--unhandled-rejections=strict)
});

test('removeListener stops notifications; removing an unknown listener is harmless', async (t) => {
  const d = setup(t);
  const seen = [];
  const listener = (s) => seen.push(plain(s));
  d.provider.addListener(listener);
  d.provider.removeListener(() => {});
  await d.manager.getUserMembership('k');
  d.set('down');
  await d.poll();
  assert.deepEqual(seen, [DOWN]);
  d.provider.removeListener(listener);
  d.provider.removeListener(listener);
  d.set('healthy');
  await d.poll();
  assert.deepEqual(seen, [DOWN]);
});

test('listeners of one manager are not called for another manager', async (t) => {
  const a = setup(t);
  const b = setup(t);
  const seenA = [];
  const seenB = [];
  a.provider.addListener((s) => seenA.push(plain(s)));
  b.provider.addListener((s) => seenB.push(plain(s)));
  await a.manager.getUserMembership('k');
  await b.manager.getUserMembership('k');
  a.set('down');
  await a.poll();
  assert.deepEqual(seenA, [DOWN]);
  assert.deepEqual(seenB, []);
});
