// OpenFeature evaluation contexts as cutover contexts (`targetingKey` is the key where `key` is
// absent; kind `user` when absent), the round trip cutover → evaluation context → cutover over the
// real server SDK and its InMemoryProvider, and openFeatureClient's `provider` option.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenFeature, InMemoryProvider } from '@openfeature/server-sdk';
import { LaunchDarklyProvider } from '@launchdarkly/openfeature-node-server';
import { integrations } from '@launchdarkly/node-server-sdk';
import { MigratorBuilder, openFeatureClient } from 'cutover';

const SILENT = { debug() {}, info() {}, warn() {}, error() {} };
let domains = 0;

/** The in-memory provider, recording what it evaluates for and what it is told to track. */
class RecordingProvider extends InMemoryProvider {
  evaluated = [];
  tracked = [];
  resolveStringEvaluation(flagKey, defaultValue, context, logger) {
    this.evaluated.push(context);
    return super.resolveStringEvaluation(flagKey, defaultValue, context, logger);
  }
  track(name, context, details) {
    this.tracked.push({ name, context, details });
  }
}

async function clientFor(provider) {
  const domain = `cutover-contexts-${++domains}`;
  await OpenFeature.setProviderAndWait(domain, provider);
  return OpenFeature.getClient(domain);
}

/** A migrator over `client` (a MigrationClient); cutover's own events are captured on the way. */
function migratorOver(client, events = []) {
  const migrator = new MigratorBuilder({
    migrationVariation: (...a) => client.migrationVariation(...a),
    trackMigrationOp: (e) => (events.push(e), client.trackMigrationOp?.(e)),
  }, { logger: SILENT })
    .read(async () => 'old', async () => 'new', (a, b) => a === b)
    .write(async () => 1, async () => 2)
    .build();
  return { migrator, events };
}

/**
 * LaunchDarkly's `contextKeys` of an event's context ({ kind: key }), with the documented rule
 * for OpenFeature contexts: `key` where present, else `targetingKey`; kind `user` when absent.
 */
function contextKeys(c) {
  const keyOf = (x) => (x.key !== undefined ? x.key : x.targetingKey);
  if (c.kind !== 'multi') return { [c.kind ?? 'user']: keyOf(c) };
  return Object.fromEntries(Object.keys(c).filter((k) => k !== 'kind').map((k) => [k, keyOf(c[k])]));
}

const live = () => ({ mig: { variants: { live: 'live' }, defaultVariant: 'live', disabled: false } });

for (const [name, cutoverContext, expectedKeys] of [
  ['single-kind', { kind: 'org', key: 'o1', plan: 'pro' }, { org: 'o1' }],
  ['multi-kind', { kind: 'multi', user: { key: 'u1', name: 'Ann' }, org: { key: 'o1' } }, { user: 'u1', org: 'o1' }],
]) {
  test(`round trip (${name}): cutover → evaluation context → cutover gives the same events`, async () => {
    const provider = new RecordingProvider(live());
    const { migrator, events } = migratorOver(openFeatureClient(await clientFor(provider)));
    await migrator.read('mig', cutoverContext, 'off');
    const evaluation = provider.evaluated[0];
    assert.equal(Object.hasOwn(evaluation, 'key'), false);
    // The evaluation context the provider saw, handed back to cutover as the context.
    const back = { ...evaluation };
    const r = await migrator.read('mig', back, 'off');
    assert.equal(r.origin, 'new');
    assert.equal(events.length, 2, 'the evaluation context is a valid context: its event is sent');
    assert.equal(events[1].context, back, 'the event carries the caller\'s object');
    assert.deepEqual(contextKeys(events[0].context), expectedKeys);
    assert.deepEqual(contextKeys(events[1].context), expectedKeys);
    assert.deepEqual(
      events.map((e) => [e.evaluation.value, e.measurements.map((m) => m.key).sort()]),
      [['live', ['consistent', 'invoked', 'latency_ms']], ['live', ['consistent', 'invoked', 'latency_ms']]],
    );
    // Mapped forward again, an evaluation context is unchanged: the provider sees and tracks the same.
    assert.deepEqual({ ...provider.evaluated[1] }, { ...evaluation });
    assert.equal(provider.tracked.length, 2);
    assert.deepEqual(provider.tracked[1].context, provider.tracked[0].context);
    assert.deepEqual(provider.tracked[1].details, { ...provider.tracked[0].details,
      latencyOldMs: provider.tracked[1].details.latencyOldMs, latencyNewMs: provider.tracked[1].details.latencyNewMs });
  });
}

test('an OpenFeature context handed to read(): the events of the equivalent cutover context', async () => {
  const events = [];
  const client = { migrationVariation: () => 'shadow', trackMigrationOp: (e) => events.push(e) };
  const { migrator } = migratorOver(client);
  const pairs = [
    [{ targetingKey: 'u1', email: 'a@b.c' }, { key: 'u1', email: 'a@b.c' }],
    [{ kind: 'org', targetingKey: 'o1' }, { kind: 'org', key: 'o1' }],
    [{ kind: 'multi', user: { targetingKey: 'u1' }, org: { targetingKey: 'o1' } },
      { kind: 'multi', user: { key: 'u1' }, org: { key: 'o1' } }],
  ];
  for (const [of, ld] of pairs) {
    events.length = 0;
    await migrator.read('mig', of, 'off');
    await migrator.write('mig', ld, 'off');
    await migrator.write('mig', of, 'off');
    assert.equal(events.length, 3, JSON.stringify(of));
    assert.equal(events[0].context, of);
    assert.deepEqual(contextKeys(events[0].context), contextKeys(events[1].context));
    const strip = ({ creationDate, measurements, context, ...rest }) => ({ ...rest, m: measurements.map((m) => m.key) });
    assert.deepEqual(strip(events[2]), strip(events[1]), 'the same event but for the context');
  }
});

test('`key` wins where present; an empty or non-string targetingKey is no key (no event, the read still runs)', async () => {
  const { migrator, events } = migratorOver({ migrationVariation: () => 'live' });
  for (const bad of [{ targetingKey: '' }, { targetingKey: 7 }, { key: '', targetingKey: 'u1' },
    { kind: 'multi', user: { targetingKey: '' } }, { kind: 'multi', user: { key: 1, targetingKey: 'u1' } }]) {
    const r = await migrator.read('mig', bad, 'off');
    assert.equal(r.origin, 'new');
    assert.equal(events.length, 0, JSON.stringify(bad));
  }
  await migrator.read('mig', { key: 'u1', targetingKey: '' }, 'off');
  assert.equal(events.length, 1);
});

test("LaunchDarkly's provider: an OpenFeature context reaches LaunchDarkly with its key", async () => {
  const td = new integrations.TestData();
  td.update(td.flag('mig-ld').variations('off', 'dualwrite', 'shadow', 'live').fallthroughVariation(0)
    .variationForUser('u1', 3).ifMatch('org', 'key', 'o1').thenReturn(2));
  const provider = new LaunchDarklyProvider('sdk-key', { updateProcessor: td.getFactory(), sendEvents: false, logger: SILENT });
  await OpenFeature.setProviderAndWait(`cutover-contexts-${++domains}`, provider);
  const ld = provider.getClient();
  const sent = [];
  const original = ld.trackMigration.bind(ld);
  ld.trackMigration = (event) => (sent.push(event), original(event));
  try {
    // The public option, with a client that has no `_provider`.
    const client = openFeatureClient({ getStringDetails() { throw new Error('not used') } }, { provider });
    const { migrator } = migratorOver(client);
    const user = await migrator.read('mig-ld', { targetingKey: 'u1' }, 'off');
    const org = await migrator.read('mig-ld', { kind: 'org', targetingKey: 'o1', plan: 'pro' }, 'off');
    const plain = await migrator.read('mig-ld', { kind: 'org', key: 'o1', plan: 'pro' }, 'off');
    const other = await migrator.read('mig-ld', { targetingKey: 'u2' }, 'off');
    const multi = await migrator.read('mig-ld', { kind: 'multi', org: { targetingKey: 'o1' }, device: { targetingKey: 'd1' } }, 'off');
    assert.deepEqual([user.origin, org.origin, plain.origin, other.origin, multi.origin], ['new', 'old', 'old', 'old', 'old']);
    assert.deepEqual(sent.map((e) => e.evaluation.value), ['live', 'shadow', 'shadow', 'off', 'shadow']);
    const { targetingKey, ...asLd } = sent[1].context; // targetingKey stays, as an attribute
    assert.equal(targetingKey, 'o1');
    assert.deepEqual(asLd, sent[2].context, 'LaunchDarkly tracks the same context');
    assert.deepEqual(sent.map((e) => contextKeys(e.context)), [{ user: 'u1' }, { org: 'o1' }, { org: 'o1' }, { user: 'u2' }, { org: 'o1', device: 'd1' }]);
    assert.equal(sent[4].context.org.key, 'o1', "a multi-kind context's nested contexts reach LaunchDarkly with key");
  } finally {
    ld.trackMigration = original;
    await OpenFeature.close();
  }
});

test('options.provider is used instead of the client\'s _provider; _provider stays the fallback', async () => {
  const calls = [];
  const webLike = () => ({
    _provider: { runsOn: 'server' },
    getStringDetails: (...a) => (calls.push(a.length), { value: 'live' }),
    track: (...a) => calls.push(`track/${a.length}`),
  });
  // The web SDK's provider (runsOn 'client'): no context per call, track(name, details).
  await migratorOver(openFeatureClient(webLike(), { provider: { runsOn: 'client' } })).migrator.read('f', { key: 'u' }, 'off');
  assert.deepEqual(calls, [2, 'track/2']);
  calls.length = 0;
  await migratorOver(openFeatureClient(webLike())).migrator.read('f', { key: 'u' }, 'off');
  assert.deepEqual(calls, [3, 'track/3']);
  calls.length = 0;
  const fallback = { ...webLike(), _provider: { runsOn: 'client' } };
  await migratorOver(openFeatureClient(fallback, {})).migrator.read('f', { key: 'u' }, 'off');
  assert.deepEqual(calls, [2, 'track/2']);
});

test('openFeatureClient rejects bad options with a TypeError naming the option', () => {
  const client = { getStringDetails() {} };
  for (const [options, pattern] of [
    [5, /^openFeatureClient: options must be an object, got number$/],
    [null, /^openFeatureClient: options must be an object, got null$/],
    [{ provider: 'p' }, /^openFeatureClient: options\.provider must be an object, got string$/],
    [{ provider: null }, /^openFeatureClient: options\.provider must be an object, got null$/],
  ]) {
    assert.throws(() => openFeatureClient(client, options), (e) => e instanceof TypeError && pattern.test(e.message), String(options));
  }
  assert.equal(typeof openFeatureClient(client, { provider: undefined }).migrationVariation, 'function');
});

test('targetingKey is read only where key is absent, and no other attribute is read', async () => {
  const reads = [];
  const spy = (target) => new Proxy(target, { get: (t, k, r) => (reads.push(String(k)), Reflect.get(t, k, r)) });
  const { migrator, events } = migratorOver({ migrationVariation: () => 'live' });
  await migrator.read('mig', spy({ kind: 'user', key: 'u1', targetingKey: 'x', secret: 1 }), 'off');
  assert.equal(events.length, 1);
  assert.deepEqual([...new Set(reads)].sort(), ['key', 'kind']);
  reads.length = 0;
  await migrator.read('mig', spy({ targetingKey: 'u1', secret: 1 }), 'off');
  assert.equal(events.length, 2);
  assert.deepEqual([...new Set(reads)].sort(), ['key', 'kind', 'targetingKey']);
});
