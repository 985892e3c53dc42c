// beaconSink (issue 23) in Node, against a local HTTP collector: batching by maxBatch and by
// flushIntervalMs, flush(), close(), bodies split under keepalive's 64 KiB, failures counted and
// never thrown, arguments validated, timers that do not keep the process alive. The page's own
// paths (visibilitychange, pagehide, sendBeacon) run in Chromium: tests/runtimes/beacon.test.mjs;
// here they run once with a stand-in document and navigator, for the fallback to fetch.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beaconSink } from 'cutover';
import { startCollector } from './helpers/relay.mjs';

let collector;
before(async () => {
  collector = await startCollector();
});
after(async () => {
  await collector?.close();
});

const event = (n, extra = {}) => ({ kind: 'migration_op', creationDate: n, operation: 'read', ...extra });
const bodies = (posts) => posts.map((p) => JSON.parse(p.text));
const NEVER = 2147483647; // no interval flush within a test
/** Each test fails rather than waits forever for a post that never comes. */
const LIMIT = { timeout: 20_000 };

test('maxBatch events go out as one JSON array POST, the rest wait', LIMIT, async () => {
  const sink = beaconSink(`${collector.origin}/events`, { maxBatch: 3, flushIntervalMs: NEVER });
  for (let i = 0; i < 7; i++) sink(event(i));
  await collector.until(2);
  const posts = collector.take();
  for (const p of posts) {
    assert.equal(p.method, 'POST');
    assert.equal(p.path, '/events');
    assert.equal(p.type, 'application/json');
  }
  assert.deepEqual(bodies(posts), [[event(0), event(1), event(2)], [event(3), event(4), event(5)]]);
  assert.equal(sink.stats().waiting, 1);
  await sink.flush();
  assert.deepEqual(bodies(collector.take()), [[event(6)]]);
  assert.deepEqual(sink.stats(), { waiting: 0, sent: 7, failed: 0, dropped: 0, lastError: undefined });
  sink.close();
});

test('a waiting batch goes out flushIntervalMs after its first event, by itself', LIMIT, async () => {
  const sink = beaconSink(`${collector.origin}/events`, { flushIntervalMs: 20 });
  sink(event(1));
  sink(event(2));
  await collector.until(1);
  assert.deepEqual(bodies(collector.take()), [[event(1), event(2)]]);
  sink(event(3));
  await collector.until(1);
  assert.deepEqual(bodies(collector.take()), [[event(3)]]);
  sink.close();
});

test('flush() resolves once what waited has been posted; with nothing waiting, at once', LIMIT, async () => {
  const sink = beaconSink(`${collector.origin}/events`, { flushIntervalMs: NEVER });
  await sink.flush();
  assert.deepEqual(collector.take(), []);
  sink(event(1));
  const flushed = sink.flush();
  sink(event(2)); // after the flush began: waits for the next one
  await flushed;
  assert.deepEqual(bodies(collector.take()), [[event(1)]]);
  await sink.flush();
  assert.deepEqual(bodies(collector.take()), [[event(2)]]);
  sink.close();
});

test('events are posted as they were when they came (snapshotted then)', LIMIT, async () => {
  const sink = beaconSink(`${collector.origin}/events`, { flushIntervalMs: NEVER });
  const e = event(1, { context: { key: 'a' } });
  sink(e);
  e.context.key = 'changed later';
  await sink.flush();
  assert.deepEqual(bodies(collector.take()), [[event(1, { context: { key: 'a' } })]]);
  sink.close();
});

test('close() sends what waits, then drops events and removes its timer', LIMIT, async () => {
  const sink = beaconSink(`${collector.origin}/events`, { flushIntervalMs: 10 });
  sink(event(1));
  sink.close();
  await collector.until(1);
  assert.deepEqual(bodies(collector.take()), [[event(1)]]);
  sink(event(2));
  sink.close(); // twice is fine
  await sink.flush();
  assert.deepEqual(collector.take(), []);
  assert.equal(sink.stats().dropped, 1);
  assert.equal(sink.stats().sent, 1);
});

test('bodies are split so that each keepalive body stays under 64 KiB', LIMIT, async () => {
  const sink = beaconSink(`${collector.origin}/events`, { maxBatch: 1000, flushIntervalMs: NEVER });
  const big = (i) => event(i, { pad: 'é'.repeat(4000 + i) }); // about 8 KB of UTF-8 each
  for (let i = 0; i < 30; i++) sink(big(i));
  await sink.flush();
  const posts = collector.take();
  assert.ok(posts.length >= 4, `${posts.length} bodies`);
  for (const p of posts) assert.ok(Buffer.byteLength(p.text) < 65536, `${Buffer.byteLength(p.text)} bytes`);
  assert.deepEqual(bodies(posts).flat(), Array.from({ length: 30 }, (_, i) => big(i)));
  // An event that cannot fit a keepalive body alone is dropped, and said so.
  sink(event(1, { pad: 'x'.repeat(70_000) }));
  assert.equal(sink.stats().dropped, 1);
  assert.match(sink.stats().lastError.message, /does not fit in a keepalive body/);
  sink.close();
});

test('failures never reject: they are counted, the last one kept', LIMIT, async () => {
  // Nothing listens there.
  const closed = await startCollector();
  const url = `${closed.origin}/events`;
  await closed.close();
  const sink = beaconSink(url, { flushIntervalMs: NEVER });
  sink(event(1));
  sink(event(2));
  await sink.flush();
  const stats = sink.stats();
  assert.equal(stats.failed, 2);
  assert.equal(stats.sent, 0);
  assert.ok(stats.lastError instanceof Error);
  sink.close();
  // A collector that answers 400 (the relay, refusing): counted as failed, with the status.
  collector.status = 400;
  try {
    const refused = beaconSink(`${collector.origin}/events`, { flushIntervalMs: NEVER });
    refused(event(3));
    await refused.flush();
    assert.equal(refused.stats().failed, 1);
    assert.match(refused.stats().lastError.message, /answered 400/);
    refused.close();
  } finally {
    collector.status = 204;
    collector.take();
  }
  // An event JSON cannot write is dropped, not thrown.
  const sink2 = beaconSink(`${collector.origin}/events`, { flushIntervalMs: NEVER });
  sink2({ n: 1n });
  assert.equal(sink2.stats().dropped, 1);
  assert.ok(sink2.stats().lastError instanceof TypeError);
  sink2.close();
});

test('hidden page without sendBeacon (or refusing it): the keepalive fetch carries what waits', LIMIT, async () => {
  const doc = new EventTarget();
  doc.visibilityState = 'visible';
  const nav = { calls: 0, sendBeacon() { this.calls++; return false; } };
  const had = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  globalThis.document = doc;
  Object.defineProperty(globalThis, 'navigator', { value: nav, configurable: true, writable: true });
  try {
    const sink = beaconSink(`${collector.origin}/events`, { flushIntervalMs: NEVER });
    sink(event(1));
    doc.dispatchEvent(new Event('visibilitychange')); // still visible: nothing
    assert.equal(nav.calls, 0);
    doc.visibilityState = 'hidden';
    doc.dispatchEvent(new Event('visibilitychange'));
    assert.equal(nav.calls, 1);
    await sink.flush(); // waits for the fallback's answer too
    assert.deepEqual(bodies(collector.take()), [[event(1)]]);
    assert.equal(sink.stats().sent, 1);
    sink.close();
    // Closed: the listener is gone.
    doc.dispatchEvent(new Event('visibilitychange'));
    assert.equal(nav.calls, 1);
  } finally {
    delete globalThis.document;
    if (had) Object.defineProperty(globalThis, 'navigator', had);
    else delete globalThis.navigator;
  }
});

test('arguments are validated with errors naming them', () => {
  assert.throws(() => beaconSink(), { name: 'TypeError', message: /beaconSink: url must be a string or a URL, got undefined/ });
  assert.throws(() => beaconSink(''), { name: 'TypeError', message: /url must not be empty/ });
  assert.throws(() => beaconSink('/e', null), { name: 'TypeError', message: /options must be an object/ });
  assert.throws(() => beaconSink('/e', { maxBach: 2 }), { name: 'TypeError', message: /maxBach is not an option of beaconSink; did you mean maxBatch\?/ });
  assert.throws(() => beaconSink('/e', { maxBatch: '5' }), { name: 'TypeError', message: /maxBatch must be a number/ });
  assert.throws(() => beaconSink('/e', { maxBatch: 0 }), { name: 'RangeError', message: /maxBatch must be an integer from 1/ });
  assert.throws(() => beaconSink('/e', { flushIntervalMs: 2 ** 31 }), { name: 'RangeError', message: /flushIntervalMs must be an integer from 1 to 2147483647/ });
  assert.throws(() => beaconSink('/e', { flushIntervalMs: NaN }), { name: 'RangeError', message: /flushIntervalMs/ });
  const sink = beaconSink(new URL(`${collector.origin}/events`));
  assert.equal(typeof sink, 'function');
  assert.equal(typeof sink.flush, 'function');
  assert.equal(typeof sink.close, 'function');
  sink.close();
});

test('a sink with events waiting does not keep a Node process alive', LIMIT, async (t) => {
  const child = spawn(process.execPath, [
    '--unhandled-rejections=strict',
    '--input-type=module',
    '-e',
    `import { beaconSink } from 'cutover';
     const sink = beaconSink('http://127.0.0.1:9/never', { flushIntervalMs: 2147483647 });
     sink({ kind: 'migration_op' });
     console.log('waiting', sink.stats().waiting);`,
  ], { cwd: fileURLToPath(new URL('.', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.exitCode === null && child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 0);
  assert.equal(out.trim(), 'waiting 1');
});

test('an endpoint that never answers: at most 100 bodies wait behind the one in flight, the oldest dropped', LIMIT, async () => {
  const real = globalThis.fetch;
  let calls = 0;
  globalThis.fetch = () => {
    calls++;
    return new Promise(() => {}); // never settles
  };
  try {
    const sink = beaconSink('https://collector.invalid/events', { maxBatch: 1, flushIntervalMs: NEVER });
    for (let n = 0; n < 103; n++) sink(event(n));
    assert.equal(calls, 1, 'one body in flight');
    const stats = sink.stats();
    assert.equal(stats.dropped, 2, 'the 101st and 102nd waiting bodies pushed the oldest out');
    assert.match(stats.lastError.message, /100 bodies already wait/);
    sink.close();
  } finally {
    globalThis.fetch = real;
  }
});
