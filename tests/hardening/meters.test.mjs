// Hostile OpenTelemetry meters: instruments whose methods are missing, throw non-errors, are
// revoked proxies or throwing getters. An operation never fails for them, nothing traps, and
// each sink reports its first failure once (a warning). Each test gets its own wasm instance.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { isTrap, moduleLoader, watchProcess } from './helpers/harness.mjs';

const loader = moduleLoader(createRequire(import.meta.url));
test.after(() => loader.dispose());
const watch = watchProcess();
test.after(() => watch.dispose());

function capture() {
  const warnings = [];
  const logger = { debug() {}, info() {}, warn: (...a) => warnings.push(a.map(String).join(' ')), error() {} };
  return { logger, warnings };
}

const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
const throwingGetters = () => new Proxy({}, { get() { throw new Error('getter exploded'); } });

const INSTRUMENTS = {
  'no methods': () => ({}),
  'add/record are not functions': () => ({ add: 1, record: 'x', addCallback() {}, removeCallback() {} }),
  'throws a symbol': () => ({ add() { throw Symbol('s'); }, record() { throw null; }, addCallback() {}, removeCallback() {} }),
  'revoked proxy': revoked,
  'throwing getters': throwingGetters,
};

for (const [name, make] of Object.entries(INSTRUMENTS)) {
  test(`hostile meter (${name}): operations and lookups succeed, one warning per sink, no trap`, async () => {
    const cutover = loader.fresh();
    const meter = { createCounter: make, createHistogram: make, createObservableGauge: () => ({ addCallback() {}, removeCallback() {} }) };
    const log = capture();
    const m = new cutover.MigratorBuilder(cutover.fixedStage('shadow'), { logger: log.logger })
      .read(async () => 1, async () => 1, (a, b) => a === b)
      .write(async () => 1, async () => 2)
      .originTimeout(1000)
      .meter(meter)
      .build();
    for (let i = 0; i < 3; i++) {
      const r = await m.read('flag', { key: `u${i}` }, 'off');
      assert.equal(r.value, 1);
      const w = await m.write('flag', { key: `u${i}` }, 'off');
      assert.equal(w.authoritative.success, true);
    }
    assert.equal(m.stats().read.count, 3);
    assert.equal(log.warnings.length, 1, log.warnings.join('\n'));
    assert.match(log.warnings[0], /^meter: cutover\.migration\.[a-z_.]+ (add|record)\(\) failed/);

    const store = { getMetadata: async () => ({ lastUpToDate: Date.now() }), getMembership: async () => ({ 'seg.g1': true }) };
    const segLog = capture();
    const manager = new cutover.BigSegmentStoreManager({ store, meter, logger: segLog.logger });
    for (const key of ['a', 'a', 'b']) assert.equal((await manager.getUserMembership(key)).status, 'HEALTHY');
    await manager.close();
    assert.equal(segLog.warnings.length, 1, segLog.warnings.join('\n'));
    assert.equal(watch.events.length, 0, 'no uncaught exception or unhandled rejection');
  });
}

test('a meter whose methods throw when read: .meter() throws that error, no trap, the instance still works', () => {
  const cutover = loader.fresh();
  const meter = throwingGetters();
  let thrown;
  try {
    new cutover.MigratorBuilder(cutover.fixedStage('off')).meter(meter);
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown instanceof Error && !isTrap(thrown), String(thrown));
  assert.equal(thrown.message, 'getter exploded');
  // The instance still works.
  assert.equal(cutover.hashContextKey('user-key'), 'CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=');
});
