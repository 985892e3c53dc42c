// Re-entrancy — API.md §3 "Re-entrancy"; SPEC.md A9 last bullet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MigratorBuilder, OpTracker, migrationVariation } from 'cutover';
import { CTX, makeFakeTracker, makeLogger, measurement } from './helpers/migration.mjs';

function build(client, opts = {}) {
  const b = new MigratorBuilder(client, { logger: opts.logger ?? makeLogger().logger });
  return b;
}

test('an origin calls back into the same migrator synchronously (stats, resetStats, nested read)', async () => {
  const events = [];
  let migrator;
  let nested;
  let statsSeen;
  const client = {
    migrationVariation: (key) => (key === 'inner' ? 'off' : 'shadow'),
    trackMigrationOp: (e) => events.push(e),
  };
  migrator = build(client)
    .read(
      (payload) => {
        if (payload === 'outer') {
          statsSeen = migrator.stats();
          nested = migrator.read('inner', CTX, 'off', 'inner-payload');
          return 'outer-old';
        }
        return 'inner-old';
      },
      () => 'outer-new',
    )
    .write(() => 1, () => 2)
    .build();
  const r = await migrator.read('outer', CTX, 'off', 'outer');
  assert.equal(r.value, 'outer-old');
  assert.equal(typeof statsSeen.read.count, 'number');
  const inner = await nested;
  assert.equal(inner.value, 'inner-old');
  assert.equal(events.length, 2);
  assert.equal(migrator.stats().read.count, 2);
});

test('an async origin awaits a nested operation on the same migrator', async () => {
  let migrator;
  const client = { migrationVariation: (key) => (key === 'inner' ? 'complete' : 'live') };
  migrator = build(client)
    .read(
      () => 'o',
      async (payload) => {
        if (payload === 'outer') {
          const w = await migrator.write('inner', CTX, 'off', 'x');
          return `new+${w.authoritative.value}`;
        }
        return 'inner';
      },
    )
    .write(() => 'wo', () => 'wn')
    .build();
  const r = await migrator.read('outer', CTX, 'off', 'outer');
  assert.equal(r.value, 'new+wn');
  assert.equal(migrator.stats().write.count, 1);
});

test('an origin reconfigures and builds from the same builder synchronously', async () => {
  const c = { migrationVariation: () => 'off' };
  let builder;
  let built;
  builder = build(c)
    .read(() => {
      builder.readExecutionOrder('serial').trackLatency(false).read(() => 'second', () => 'x');
      built = builder.build();
      return 'first';
    }, () => 'n')
    .write(() => 1, () => 2);
  const m = builder.build();
  assert.equal((await m.read('k', CTX, 'off')).value, 'first');
  assert.equal((await built.read('k', CTX, 'off')).value, 'second');
});

test('a comparison calls back into the migrator and the builder synchronously', async () => {
  let migrator;
  let builder;
  let nested;
  const seen = {};
  const client = { migrationVariation: (key) => (key === 'inner' ? 'off' : 'shadow'), trackMigrationOp() {} };
  builder = build(client);
  migrator = builder
    .read(() => 1, () => 1, (a, b) => {
      seen.stats = migrator.stats();
      seen.other = builder.build();
      if (!nested) nested = migrator.read('inner', CTX, 'off');
      return a === b;
    })
    .write(() => 1, () => 1)
    .build();
  const r = await migrator.read('outer', CTX, 'off');
  assert.equal(r.value, 1);
  assert.equal(typeof seen.stats.read.consistency.checked, 'number');
  assert.equal(typeof seen.other.read, 'function');
  await nested;
  assert.deepEqual(migrator.stats().read.consistency, { checked: 1, consistent: 1, paths: {} });
});

test('the logger calls back into the migrator synchronously', async () => {
  let migrator;
  const logged = [];
  const logger = {};
  for (const level of ['debug', 'info', 'warn', 'error']) {
    logger[level] = (...args) => {
      logged.push(level);
      const s = migrator?.stats();
      if (s) logged.push(`count=${s.read.count}`);
    };
  }
  migrator = build({ migrationVariation: () => 'shadow' }, { logger })
    .read(() => 1, () => 2, () => {
      throw new Error('comparison blew up');
    })
    .write(() => 1, () => 2)
    .build();
  const r = await migrator.read('k', CTX, 'not-a-stage');
  assert.equal(r.value, 1);
  assert.ok(logged.includes('error'));
  assert.ok(logged.some((x) => x.startsWith('count=')));
});

test('migrationVariation calls back into the migrator (stats and a nested read) synchronously', async () => {
  let migrator;
  let nested;
  let depth = 0;
  const client = {
    migrationVariation(key) {
      migrator.stats();
      if (key === 'outer' && depth++ === 0) nested = migrator.read('inner', CTX, 'off');
      return key === 'outer' ? { value: 'live' } : 'off';
    },
    trackMigrationOp() {
      migrator.stats();
    },
  };
  migrator = build(client).read(() => 'o', () => 'n').write(() => 1, () => 2).build();
  const r = await migrator.read('outer', CTX, 'off');
  assert.equal(r.value, 'n');
  assert.equal((await nested).value, 'o');
  assert.equal(migrator.stats().read.count, 2);
});

test('trackMigrationOp calls back into the migrator (stats, resetStats, a new read)', async () => {
  let migrator;
  const events = [];
  const follow = [];
  const client = {
    migrationVariation: () => 'dualwrite',
    trackMigrationOp(e) {
      events.push(e);
      migrator.stats();
      if (events.length === 1) {
        migrator.resetStats();
        follow.push(migrator.read('k2', CTX, 'off'));
      }
    },
  };
  migrator = build(client).read(() => 'o', () => 'n').write(() => 'wo', () => 'wn').build();
  const w = await migrator.write('k1', CTX, 'off');
  assert.equal(w.nonAuthoritative.value, 'wn');
  const r = await follow[0];
  assert.equal(r.value, 'o');
  assert.equal(events.length, 2);
  assert.equal(migrator.stats().read.count, 1);
});

test('a tracker consistency check calls back into the same OpTracker synchronously', () => {
  const t = new OpTracker('k', CTX, { value: 'shadow' }, 'off');
  let inner;
  t.operation('read').invoked('old').consistent(() => {
    t.invoked('new');
    t.latency('new', 1.5);
    inner = t.build();
    return true;
  });
  const e = t.build();
  assert.deepEqual(inner.measurements[0], { key: 'invoked', values: { old: true, new: true } });
  assert.deepEqual(measurement(e, 'consistent'), { key: 'consistent', value: true });
  assert.deepEqual(measurement(e, 'latency_ms'), { key: 'latency_ms', values: { new: 1.5 } });
});

test('external tracker methods call back into the migrator synchronously', async () => {
  let migrator;
  const base = makeFakeTracker();
  const tracker = {};
  for (const name of ['op', 'invoked', 'latency', 'error', 'consistency', 'createEvent']) {
    tracker[name] = (...args) => {
      migrator.stats();
      return base[name](...args);
    };
  }
  const sent = [];
  migrator = build({ migrationVariation: () => ({ value: 'live', tracker }), trackMigrationOp: (e) => sent.push(e) })
    .read(() => 'o', () => { throw new Error('n'); }, () => true)
    .write(() => 1, () => 2)
    .build();
  const r = await migrator.read('k', CTX, 'off');
  assert.equal(r.success, false);
  assert.equal(sent.length, 1);
  assert.equal(sent[0], base.createdEvent);
});

test('migrationVariation() (exported) with a client that calls it again synchronously', async () => {
  let inner;
  const client = {
    migrationVariation(key) {
      if (key === 'outer') inner = migrationVariation(client, 'inner', CTX, 'off');
      return key === 'outer' ? 'live' : 'rampdown';
    },
  };
  const outer = await migrationVariation(client, 'outer', CTX, 'off');
  assert.equal(outer.stage, 'live');
  assert.equal((await inner).stage, 'rampdown');
});

test('many concurrent operations on one migrator', async () => {
  const m = build({ migrationVariation: () => 'shadow', trackMigrationOp() {} })
    .read(async (p) => p * 2, (p) => p * 2, (a, b) => a === b)
    .write(async (p) => p, async (p) => p)
    .build();
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? m.read('k', CTX, 'off', i) : m.write('k', CTX, 'off', i))));
  results.forEach((r, i) => {
    if (i % 2) assert.equal(r.value, i * 2);
    else assert.equal(r.authoritative.value, i);
  });
  const s = m.stats();
  assert.equal(s.read.count, 25);
  assert.equal(s.write.count, 25);
  assert.deepEqual(s.read.consistency, { checked: 25, consistent: 25, paths: {} });
});
