// Big Segments options: validation and defaults — API.md §2 (BigSegmentsOptions), SPEC.md B1.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BigSegmentStoreManager } from 'cutover';
import { makeLogger, makeStore, sleep } from './helpers/segments.mjs';

const TESTS_DIR = fileURLToPath(new URL('../', import.meta.url));

function expectError(options, ErrorClass, optionName) {
  const { store } = makeStore();
  assert.throws(
    () => new BigSegmentStoreManager({ store, logger: makeLogger().logger, ...options }),
    (err) => {
      assert.ok(err instanceof ErrorClass, `expected ${ErrorClass.name} for ${JSON.stringify(String(Object.values(options)[0]))}, got ${err?.name}: ${err?.message}`);
      assert.match(err.message, new RegExp(optionName), `message names the option: ${err.message}`);
      return true;
    },
    `${optionName}=${String(Object.values(options)[0])} must be rejected`,
  );
}

const DURATION_OPTIONS = ['contextCacheTimeMs', 'statusPollIntervalMs', 'staleAfterMs', 'queryTimeoutMs'];

describe('option validation', () => {
  test('contextCacheSize must be a positive integer (RangeError naming the option)', () => {
    for (const value of [0, -1, 1.5, NaN, Infinity, -Infinity]) {
      expectError({ contextCacheSize: value }, RangeError, 'contextCacheSize');
    }
  });

  test('contextCacheSize of the wrong type → TypeError naming the option', () => {
    for (const value of ['10', true, {}, [5], 10n]) {
      expectError({ contextCacheSize: value }, TypeError, 'contextCacheSize');
    }
  });

  for (const name of DURATION_OPTIONS) {
    test(`${name}: negative or NaN → RangeError naming the option`, () => {
      for (const value of [-1, -0.5, -1000, NaN]) {
        expectError({ [name]: value }, RangeError, name);
      }
    });

    test(`${name}: wrong type → TypeError naming the option`, () => {
      for (const value of ['100', true, {}, [100]]) {
        expectError({ [name]: value }, TypeError, name);
      }
    });
  }

  test('an unknown option name → TypeError naming it (and the close name); nothing is silently ignored', () => {
    expectError({ queryTimeout: 250 }, TypeError, 'queryTimeout is not an option of BigSegmentStoreManager; did you mean queryTimeoutMs\\?');
    expectError({ cacheSize: 10 }, TypeError, '^cacheSize is not an option of BigSegmentStoreManager$');
  });

  test('valid values are accepted, and explicitly undefined options mean "use the default"', async () => {
    const { store } = makeStore();
    const managers = [
      new BigSegmentStoreManager({
        store,
        contextCacheSize: 1,
        contextCacheTimeMs: 1,
        statusPollIntervalMs: 10,
        staleAfterMs: 1,
        queryTimeoutMs: 1,
      }),
      new BigSegmentStoreManager({ store, contextCacheSize: 123456, contextCacheTimeMs: 2.5 }),
      new BigSegmentStoreManager({
        store,
        contextCacheSize: undefined,
        contextCacheTimeMs: undefined,
        statusPollIntervalMs: undefined,
        staleAfterMs: undefined,
        queryTimeoutMs: undefined,
        logger: undefined,
      }),
      new BigSegmentStoreManager({}),
      new BigSegmentStoreManager({ store: null }),
      new BigSegmentStoreManager({ store: undefined }),
    ];
    for (const m of managers) await m.close();
  });

  test('a store of the wrong type → TypeError naming the store', () => {
    for (const value of [42, 'redis://localhost', true]) {
      assert.throws(() => new BigSegmentStoreManager({ store: value }), (err) => {
        assert.ok(err instanceof TypeError, `${String(value)}: got ${err?.name}`);
        assert.match(err.message, /store/i);
        return true;
      });
    }
  });

  test('a store without a membership method (neither getMembership nor getUserMembership) → TypeError', () => {
    const store = { async getMetadata() { return { lastUpToDate: Date.now() }; } };
    assert.throws(() => new BigSegmentStoreManager({ store }), (err) => {
      assert.ok(err instanceof TypeError, `got ${err?.name}: ${err?.message}`);
      assert.match(err.message, /store|getMembership|getUserMembership/);
      return true;
    });
  });

  test('a logger of the wrong type → TypeError naming the logger', () => {
    for (const value of ['console', 42]) {
      assert.throws(() => new BigSegmentStoreManager({ logger: value }), (err) => {
        assert.ok(err instanceof TypeError, `${String(value)}: got ${err?.name}`);
        assert.match(err.message, /logger/);
        return true;
      });
    }
  });
});

describe('defaults (SPEC.md B1)', { concurrency: true }, () => {
  test('default contextCacheSize is 1000: the 1001st distinct context evicts the least recently used one', async (t) => {
    const { store, calls } = makeStore({ membership: () => ({}) });
    const m = new BigSegmentStoreManager({ store, logger: makeLogger().logger });
    t.after(() => m.close());
    for (let i = 0; i < 1000; i++) await m.getUserMembership(`ctx-${i}`);
    assert.equal(calls.getMembership.length, 1000);
    // All 1000 still cached.
    await m.getUserMembership('ctx-0');
    await m.getUserMembership('ctx-999');
    assert.equal(calls.getMembership.length, 1000, 'a cache of 1000 holds 1000 contexts');
    // ctx-1 is now the least recently used; one more context evicts it.
    await m.getUserMembership('ctx-1000');
    assert.equal(calls.getMembership.length, 1001);
    await m.getUserMembership('ctx-0');
    assert.equal(calls.getMembership.length, 1001, 'ctx-0 (recently used) is still cached');
    await m.getUserMembership('ctx-1');
    assert.equal(calls.getMembership.length, 1002, 'ctx-1 (least recently used) was evicted');
  });

  test('default contextCacheTimeMs (5000) and statusPollIntervalMs (5000), without start()', { timeout: 30_000 }, async (t) => {
    const { store, calls } = makeStore();
    const m = new BigSegmentStoreManager({ store, logger: makeLogger().logger });
    t.after(() => m.close());
    await m.getUserMembership('hot');
    assert.equal(calls.getMembership.length, 1);
    assert.equal(calls.getMetadata, 1);
    await sleep(3000);
    await m.getUserMembership('hot');
    assert.equal(calls.getMembership.length, 1, 'still cached after 3 s (default TTL is 5 s)');
    assert.equal(calls.getMetadata, 1, 'status not re-polled after 3 s (default interval is 5 s)');
    await sleep(3000);
    await m.getUserMembership('hot');
    assert.equal(calls.getMembership.length, 2, 're-queried after 6 s (default TTL is 5 s)');
    assert.equal(calls.getMetadata, 2, 'status re-polled on demand after 6 s (default interval is 5 s)');
  });

  test('default staleAfterMs is 120000', async (t) => {
    let lastUpToDate = Date.now() - 100_000;
    const { store } = makeStore({ metadata: () => ({ lastUpToDate }) });
    const m = new BigSegmentStoreManager({ store, logger: makeLogger().logger });
    t.after(() => m.close());
    assert.equal((await m.getUserMembership('a')).status, 'HEALTHY', '100 s old is not stale');
    const { store: store2 } = makeStore({ metadata: () => ({ lastUpToDate: Date.now() - 125_000 }) });
    const m2 = new BigSegmentStoreManager({ store: store2, logger: makeLogger().logger });
    t.after(() => m2.close());
    assert.equal((await m2.getUserMembership('a')).status, 'STALE', '125 s old is stale');
  });

  test('default queryTimeoutMs is 10000: a 1.5 s store call succeeds, a hanging one fails after about 10 s', { timeout: 30_000 }, async (t) => {
    const slow = makeStore({ membership: () => sleep(1500).then(() => ({ 'seg.g1': true })) });
    const m1 = new BigSegmentStoreManager({ store: slow.store, logger: makeLogger().logger });
    t.after(() => m1.close());
    const r1 = await m1.getUserMembership('a');
    assert.equal(r1.status, 'HEALTHY');
    assert.deepEqual({ ...r1.membership }, { 'seg.g1': true });

    // A never-settling promise holds no handle; keep Node running as a real app's sockets would.
    const keep = setInterval(() => {}, 1000);
    t.after(() => clearInterval(keep));
    const log = makeLogger();
    const hanging = makeStore({ membership: () => new Promise(() => {}) });
    const m2 = new BigSegmentStoreManager({ store: hanging.store, logger: log.logger });
    t.after(() => m2.close());
    const started = performance.now();
    const r2 = await m2.getUserMembership('a');
    const elapsed = performance.now() - started;
    assert.deepEqual({ ...r2 }, { membership: null, status: 'STORE_ERROR' });
    assert.ok(elapsed >= 8000 && elapsed < 16000, `timed out after ${Math.round(elapsed)} ms, expected about 10000`);
  });
});

test('default logger is the console (level warn): a store error reaches stderr', { timeout: 15_000 }, async () => {
  const script = `
    import { BigSegmentStoreManager } from 'cutover';
    const store = {
      async getMetadata() { return { lastUpToDate: Date.now() }; },
      async getMembership() { throw new Error('boom-default-logger'); },
    };
    const m = new BigSegmentStoreManager({ store });
    const r = await m.getUserMembership('u');
    console.log('STATUS=' + r.status);
    await m.close();
  `;
  const child = spawn(process.execPath, ['--unhandled-rejections=strict', '--input-type=module', '-e', script], {
    cwd: TESTS_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, `child failed: ${stderr}`);
  assert.match(stdout, /STATUS=STORE_ERROR/);
  assert.match(stderr + stdout, /Big Segment store membership query returned error: .*boom-default-logger/);
});
