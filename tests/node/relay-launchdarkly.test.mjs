// migrationEventRelay (issue 23) with LaunchDarkly's own server SDK: events posted to the relay
// reach the SDK's event endpoint (a local HTTP server) as the page sent them, and hostile bodies
// forward nothing. The SDK runs offline (TestData) and posts its events to 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { MigratorBuilder, beaconSink, migrationEventRelay } from 'cutover';
import { startLaunchDarkly } from './helpers/launchdarkly.mjs';
import { startCollector, relayServer } from './helpers/relay.mjs';

const FLAG = 'search-backend';
/** Each test fails rather than waits forever (an endless body read to its end would). */
const LIMIT = { timeout: 20_000 };

/** `{ a: { a: … 1 } }`, `levels` objects deep. */
function deepObject(levels) {
  let value = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

/** An event as a page's cutover sends it for LaunchDarkly (every field of the wire format). */
function pageEvent(overrides = {}) {
  return {
    kind: 'migration_op',
    creationDate: 1_795_989_121_414,
    operation: 'read',
    context: { kind: 'user', key: 'u-1', name: 'Ana' },
    evaluation: { key: FLAG, value: 'shadow', default: 'off', reason: { kind: 'FALLTHROUGH' }, variation: 2, version: 7 },
    measurements: [
      { key: 'invoked', values: { old: true, new: true } },
      { key: 'consistent', value: false, samplingRatio: 1 },
      { key: 'latency_ms', values: { old: 12.5, new: 3 } },
      { key: 'error', values: { new: true } },
    ],
    ...overrides,
  };
}

let ld;
let ldClient;

before(async () => {
  ld = await startLaunchDarkly('sdk-relay-test');
  ldClient = ld.client;
});

after(async () => {
  await ld?.close();
});

/** The migration_op events the SDK posted since the last call. */
const arrived = () => ld.migrationEvents();

const post = (body, init = {}) =>
  new Request('http://relay.test/events', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(init.duplex ? { duplex: init.duplex } : {}),
  });

test('events posted to the relay arrive at LaunchDarkly as the page sent them', LIMIT, async () => {
  const relay = migrationEventRelay(ldClient, { flagKeys: [FLAG] });
  const events = [
    pageEvent(),
    pageEvent({
      operation: 'write',
      context: { kind: 'multi', user: { key: 'u-2' }, org: { key: 'o-1', name: 'Acme', tier: { level: 3, tags: ['a'] } } },
      evaluation: { key: FLAG, value: 'dualwrite', default: 'off', reason: { kind: 'RULE_MATCH', ruleIndex: 0, ruleId: 'r1' } },
      measurements: [{ key: 'invoked', values: { old: true, new: true } }, { key: 'latency_ms', values: { old: 1.25, new: 2.5 } }],
    }),
    pageEvent({ samplingRatio: 1, context: { kind: 'device', key: 'd-1', anonymous: true } }),
  ];
  const response = await relay(post(events));
  assert.equal(response.status, 204);
  assert.equal(await response.text(), '');
  const got = await arrived();
  // LaunchDarkly leaves a samplingRatio of 1 out; everything else is what was posted.
  const { samplingRatio, ...third } = events[2];
  assert.equal(samplingRatio, 1);
  assert.deepEqual(got, [events[0], events[1], third]);
});

test('a batch with bad events forwards the good ones and answers 400 with the rejected indices', LIMIT, async () => {
  const relay = migrationEventRelay(ldClient);
  const good = pageEvent();
  const response = await relay(post([good, { ...good, kind: 'custom' }, good, null]));
  assert.equal(response.status, 400);
  assert.match(response.headers.get('content-type'), /^application\/json/);
  assert.deepEqual(await response.json(), {
    accepted: 2,
    rejected: [
      { index: 1, reason: 'kind: must be migration_op' },
      { index: 3, reason: 'the event must be an object, got null' },
    ],
  });
  assert.deepEqual(await arrived(), [good, good]);
});

test('the flag key allow-list rejects events of other flags', LIMIT, async () => {
  const relay = migrationEventRelay(ldClient, { flagKeys: ['another-flag'] });
  const response = await relay(post([pageEvent()]));
  assert.equal(response.status, 400);
  assert.deepEqual(await response.json(), {
    accepted: 0,
    rejected: [{ index: 0, reason: "evaluation.key: is not one of the relay's flagKeys" }],
  });
  assert.deepEqual(await arrived(), []);
});

test('hostile bodies forward nothing', LIMIT, async () => {
  const relay = migrationEventRelay(ldClient);
  const good = pageEvent();
  const goodText = JSON.stringify(good);
  let deep = '"leaf"';
  for (let i = 0; i < 20_000; i++) deep = `[${deep}]`;
  const cases = [
    ['wrong types', [{ ...good, creationDate: 'yesterday' }], 400],
    ['a measurement of the wrong type', [{ ...good, measurements: [{ key: 'latency_ms', values: { old: '3' } }] }], 400],
    ['a negative latency', [{ ...good, measurements: [good.measurements[0], { key: 'latency_ms', values: { old: -1 } }] }], 400],
    ['a huge string', [{ ...good, context: { ...good.context, name: 'x'.repeat(5000) } }], 400],
    ['a huge key', [{ ...good, context: { ...good.context, ['k'.repeat(2000)]: 1 } }], 400],
    ['a body of one string', JSON.stringify('x'.repeat(60_000)), 400],
    ['10k events', JSON.stringify(Array.from({ length: 10_000 }, () => ({}))), 413],
    ['deep nesting', deep, 400],
    ['deep nesting in a context', [{ ...good, context: { ...good.context, a: deepObject(12) } }], 400],
    ['a __proto__ key at the top', `[${goodText.replace('{', '{"__proto__":{"admin":true},')}]`, 400],
    ['a __proto__ key in the context', `[${goodText.replace('"context":{', '"context":{"__proto__":{"x":1},')}]`, 400],
    ['an unknown field', [{ ...good, contextKeys: { user: 'u' } }], 400],
    ['not JSON', '{"kind": migration_op', 400],
    ['an object, not an array', JSON.stringify(good), 400],
    ['a context LaunchDarkly refuses', [{ ...good, context: { kind: 'multi', key: 'k' } }], 400],
    ['a _meta LaunchDarkly cannot read', [{ ...good, context: { ...good.context, _meta: { privateAttributes: 'name' } } }], 400],
  ];
  for (const [name, body, status] of cases) {
    const response = await relay(post(body));
    assert.equal(response.status, status, name);
    if (status === 400) {
      const answer = await response.json();
      assert.equal(answer.accepted, 0, name);
      assert.ok(Array.isArray(answer.rejected), name);
    }
  }
  assert.deepEqual(await arrived(), [], 'nothing reached LaunchDarkly');
  assert.ok(!('admin' in {}), 'no prototype was changed');
});

test('the answers to a body that is not an array, or is not JSON, are accepted 0 and rejected []', LIMIT, async () => {
  const relay = migrationEventRelay(ldClient);
  for (const body of ['{}', 'null', '"text"', 'not json', '', '[1,']) {
    const response = await relay(post(body));
    assert.equal(response.status, 400, body);
    assert.deepEqual(await response.json(), { accepted: 0, rejected: [] }, body);
  }
  const invalidUtf8 = new Request('http://relay.test/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: new Uint8Array([0x5b, 0xff, 0x5d]),
  });
  assert.equal((await relay(invalidUtf8)).status, 400);
  assert.deepEqual(await arrived(), []);
});

test('methods other than POST answer 405 and content types other than JSON 415', LIMIT, async () => {
  const relay = migrationEventRelay(ldClient);
  for (const method of ['GET', 'PUT', 'DELETE', 'OPTIONS']) {
    const init = { method, ...(method === 'GET' ? {} : { body: JSON.stringify([pageEvent()]) }) };
    const response = await relay(new Request('http://relay.test/', init));
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.get('allow'), 'POST');
  }
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp', undefined]) {
    const headers = type === undefined ? {} : { 'content-type': type };
    const request = new Request('http://relay.test/', { method: 'POST', headers, body: new Blob([JSON.stringify([pageEvent()])]) });
    assert.equal((await relay(request)).status, 415, String(type));
  }
  const withCharset = await relay(post([pageEvent()], { headers: { 'content-type': 'Application/JSON; charset=utf-8' } }));
  assert.equal(withCharset.status, 204);
  assert.equal((await arrived()).length, 1);
});

/** A body stream of `chunks` chunks of `size` bytes (forever when chunks is Infinity), counting pulls. */
function stream(chunks, size, seen) {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      seen.pulls++;
      if (sent >= chunks) return controller.close();
      sent++;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
    cancel() {
      seen.cancelled = true;
    },
  }, { highWaterMark: 0 });
}

test('a body over maxBodyBytes answers 413: by Content-Length before reading, and counted while reading', LIMIT, async () => {
  const relay = migrationEventRelay(ldClient, { maxBodyBytes: 1000 });
  // Declared too long: not read at all.
  const declared = { pulls: 0 };
  const tooLong = new Request('http://relay.test/', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': '5000' },
    body: stream(5, 1000, declared),
    duplex: 'half',
  });
  assert.equal((await relay(tooLong)).status, 413);
  assert.equal(declared.pulls, 0);
  // A Content-Length that lies (says 10): counted anyway, reading stops past the bound.
  const lying = { pulls: 0 };
  const lie = new Request('http://relay.test/', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': '10' },
    body: stream(20_000, 300, lying), // 6 MB: endless, to a relay that reads 1,000 bytes
    duplex: 'half',
  });
  assert.equal((await relay(lie)).status, 413);
  assert.ok(lying.pulls <= 6, `read ${lying.pulls} chunks of an endless stream`);
  assert.equal(lying.cancelled, true);
  // No Content-Length, a stream longer than the bound.
  const endless = { pulls: 0 };
  const unbounded = new Request('http://relay.test/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: stream(20_000, 64, endless),
    duplex: 'half',
  });
  assert.equal((await relay(unbounded)).status, 413);
  assert.ok(endless.pulls < 40);
  // Within the bound, the same stream shape is read whole.
  const small = new Request('http://relay.test/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: stream(3, 100, { pulls: 0 }),
    duplex: 'half',
  });
  assert.equal((await relay(small)).status, 400); // spaces: not JSON
  assert.deepEqual(await arrived(), []);
});

test('more events than maxEvents answer 413 and forward none', LIMIT, async () => {
  const relay = migrationEventRelay(ldClient, { maxEvents: 2, maxBodyBytes: 1 << 20 });
  assert.equal((await relay(post([pageEvent(), pageEvent(), pageEvent()]))).status, 413);
  assert.equal((await relay(post([pageEvent(), pageEvent()]))).status, 204);
  assert.equal((await arrived()).length, 2);
});

test('a trackMigration that throws rejects its event with a reason; the relay never throws', LIMIT, async () => {
  let calls = 0;
  const client = {
    trackMigration(event) {
      calls++;
      if (event.operation === 'write') throw new Error('queue full');
    },
  };
  const relay = migrationEventRelay(client);
  const response = await relay(post([pageEvent(), pageEvent({ operation: 'write' })]));
  assert.equal(response.status, 400);
  assert.deepEqual(await response.json(), { accepted: 1, rejected: [{ index: 1, reason: 'ldClient.trackMigration threw: queue full' }] });
  assert.equal(calls, 2);
  // The method is looked up at each use; gone, each valid event is rejected.
  client.trackMigration = undefined;
  const gone = await relay(post([pageEvent()]));
  assert.deepEqual(await gone.json(), { accepted: 0, rejected: [{ index: 0, reason: 'ldClient.trackMigration is not a function' }] });
  // Not a Request at all: an answer, not a throw.
  for (const request of [undefined, null, {}, { method: 'POST' }, { method: 'POST', headers: { get: () => { throw new Error('x'); } } }]) {
    const answer = await relay(request);
    assert.ok(answer instanceof Response);
    assert.ok([400, 405, 500].includes(answer.status), String(answer.status));
  }
});

test('trackMigration receives the very object parsed from the body', LIMIT, async () => {
  const received = [];
  const relay = migrationEventRelay({ trackMigration: (event) => received.push(event) });
  const event = pageEvent({ context: { kind: 'user', key: 'u', nested: { list: [1, { a: null }] } } });
  assert.equal((await relay(post([event]))).status, 204);
  assert.equal(received.length, 1);
  assert.deepEqual(received[0], event);
  assert.equal(Object.getPrototypeOf(received[0]), Object.prototype);
});

test('arguments are validated with errors naming them', () => {
  const client = { trackMigration() {} };
  assert.throws(() => migrationEventRelay(), { name: 'TypeError', message: /ldClient must be an object/ });
  assert.throws(() => migrationEventRelay({}), { name: 'TypeError', message: /trackMigration method/ });
  assert.throws(() => migrationEventRelay(client, 5), { name: 'TypeError', message: /options must be an object/ });
  assert.throws(() => migrationEventRelay(client, { maxEvent: 5 }), { name: 'TypeError', message: /maxEvent is not an option of migrationEventRelay; did you mean maxEvents\?/ });
  assert.throws(() => migrationEventRelay(client, { maxBodyBytes: '10' }), { name: 'TypeError', message: /maxBodyBytes must be a number/ });
  assert.throws(() => migrationEventRelay(client, { maxBodyBytes: 0 }), { name: 'RangeError', message: /maxBodyBytes must be an integer of at least 1/ });
  assert.throws(() => migrationEventRelay(client, { maxEvents: 1.5 }), { name: 'RangeError', message: /maxEvents/ });
  assert.throws(() => migrationEventRelay(client, { flagKeys: 'search' }), { name: 'TypeError', message: /flagKeys must be an array of strings/ });
  assert.throws(() => migrationEventRelay(client, { flagKeys: ['a', 3] }), { name: 'TypeError', message: /flagKeys must hold non-empty strings/ });
});

test('over HTTP: a Node http server mounting the relay, a lying Content-Length and a chunked body', LIMIT, async () => {
  const relay = migrationEventRelay(ldClient, { maxBodyBytes: 2000 });
  const server = await relayServer(relay);
  try {
    const url = `${server.origin}/events`;
    const ok = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([pageEvent()]) });
    assert.equal(ok.status, 204);
    assert.equal((await arrived()).length, 1);
    // A chunked body longer than the bound.
    const chunked = await new Promise((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.write('[');
      for (let i = 0; i < 10; i++) req.write(' '.repeat(500));
      req.end(']');
    });
    assert.equal(chunked, 413);
    // A Content-Length that says more than the bound.
    const declared = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ' '.repeat(3000) });
    assert.equal(declared.status, 413);
  } finally {
    await server.close();
  }
  assert.deepEqual(await arrived(), []);
});

test('events a page cutover made and beaconSink posted are accepted and arrive', LIMIT, async () => {
  // The page: a MigratorBuilder over a flag client shaped like a browser one, its events to a beaconSink.
  const pageCollector = await startCollector();
  try {
    const sink = beaconSink(`${pageCollector.origin}/events`, { maxBatch: 10 });
    const client = {
      migrationVariation: () => ({ value: 'dualwrite', variationIndex: 1, reason: { kind: 'FALLTHROUGH' } }),
      trackMigrationOp: (event) => sink(event),
    };
    const migrator = new MigratorBuilder(client)
      .write(async (p) => ({ ok: p }), async (p) => ({ ok: p }))
      .read(async () => 'old', async () => 'new')
      .build();
    const context = { kind: 'user', key: 'page-user' };
    await migrator.write(FLAG, context, 'off', 1);
    await migrator.read(FLAG, context, 'off'); // dualwrite: old only
    await sink.flush();
    const posts = pageCollector.take();
    assert.equal(posts.length, 1);
    const sent = JSON.parse(posts[0].text);
    assert.equal(sent.length, 2);
    // The body the page posted, relayed as it came.
    const relay = migrationEventRelay(ldClient, { flagKeys: [FLAG] });
    const response = await relay(post(posts[0].text, { headers: { 'content-type': posts[0].type } }));
    assert.equal(response.status, 204, await response.clone().text());
    assert.deepEqual(await arrived(), sent);
    sink.close();
  } finally {
    await pageCollector.close();
  }
});

test('a consistency result without a samplingRatio has the ratio 1 (API.md §2c) and reaches LaunchDarkly with samplingRatio: 1', LIMIT, async () => {
  const received = [];
  const sink = (event) => received.push(event);
  const client = {
    migrationVariation: () => ({ value: 'shadow', variationIndex: 2, reason: { kind: 'FALLTHROUGH' } }),
    trackMigrationOp: sink,
  };
  const migrator = new MigratorBuilder(client)
    .read(async () => 1, async () => 1, (a, b) => a === b)
    .write(async () => 1, async () => 1)
    .build();
  await migrator.read(FLAG, { kind: 'user', key: 'u' }, 'off');
  assert.equal(received.length, 1);
  // cutover's own event leaves a ratio of 1 out, as the wire format allows.
  const posted = received[0].measurements.find((m) => m.key === 'consistent');
  assert.deepEqual(posted, { key: 'consistent', value: true });
  const relay = migrationEventRelay(ldClient);
  const response = await relay(post(received));
  assert.equal(response.status, 204);
  const [event] = await arrived();
  assert.deepEqual(event.measurements.find((m) => m.key === 'consistent'), { key: 'consistent', value: true, samplingRatio: 1 });
});
