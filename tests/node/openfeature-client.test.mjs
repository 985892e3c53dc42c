// openFeatureClient(client) over the real OpenFeature server SDK: stages from
// getStringDetails, SPEC A7 for errored/invalid answers, the variant/reason/metadata mapping,
// the flat `migration_op` details sent to a provider's `track`, and LaunchDarkly's provider.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenFeature, InMemoryProvider } from '@openfeature/server-sdk';
import { LaunchDarklyProvider } from '@launchdarkly/openfeature-node-server';
import { integrations } from '@launchdarkly/node-server-sdk';
import { MigratorBuilder, openFeatureClient } from 'cutover';

const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];
const CONTEXT = Object.freeze({ kind: 'user', key: 'u1', name: 'Ann' });
let domains = 0;

async function clientFor(provider) {
  const domain = `cutover-test-${++domains}`;
  await OpenFeature.setProviderAndWait(domain, provider);
  return OpenFeature.getClient(domain);
}

/** A migrator over `client`, its events (cutover's own) captured as well as passed on. */
function migratorOver(adapter, events = []) {
  const client = {
    migrationVariation: (...a) => adapter.migrationVariation(...a),
    trackMigrationOp: (e) => (events.push(e), adapter.trackMigrationOp(e)),
  };
  const migrator = new MigratorBuilder(client)
    .read(async () => 'old', async () => 'new', (a, b) => a === b)
    .write(async () => 'w-old', async () => 'w-new')
    .build();
  return { migrator, events };
}

const stageFlags = () => Object.fromEntries(STAGES.map((s, i) => [
  `mig-${s}`, { variants: { a: s, b: 'off' }, defaultVariant: 'a', disabled: false },
]));

class TrackingProvider {
  metadata = { name: 'tracking-test' };
  runsOn = 'server';
  tracked = [];
  evaluated = [];
  constructor(answer) {
    this.answer = answer;
  }
  async resolveStringEvaluation(flagKey, defaultValue, context) {
    this.evaluated.push(context);
    return this.answer;
  }
  track(name, context, details) {
    this.tracked.push({ name, context, details });
  }
}

test('each stage served by the in-memory provider is the stage the migrator runs', async () => {
  const client = await clientFor(new InMemoryProvider(stageFlags()));
  for (const stage of STAGES) {
    const { migrator, events } = migratorOver(openFeatureClient(client));
    const r = await migrator.read(`mig-${stage}`, CONTEXT, 'live');
    assert.equal(r.success, true);
    assert.equal(events.length, 1);
    assert.equal(events[0].evaluation.value, stage);
    assert.deepEqual(events[0].evaluation.reason, { kind: 'STATIC' });
    assert.equal(events[0].evaluation.variation, undefined); // variant 'a' is not an integer
  }
});

test('flag not found and wrong type: the default stage, with the error reason (SPEC A7)', async () => {
  const client = await clientFor(new InMemoryProvider({
    'mig-bool': { variants: { on: true }, defaultVariant: 'on', disabled: false },
    'mig-potato': { variants: { '3': 'potato' }, defaultVariant: '3', disabled: false },
  }));
  const cases = [
    ['mig-missing', { kind: 'ERROR', errorKind: 'FLAG_NOT_FOUND' }],
    ['mig-bool', { kind: 'ERROR', errorKind: 'TYPE_MISMATCH' }],
    ['mig-potato', { kind: 'ERROR', errorKind: 'WRONG_TYPE' }],
  ];
  for (const [flag, reason] of cases) {
    const { migrator, events } = migratorOver(openFeatureClient(client));
    const r = await migrator.write(flag, CONTEXT, 'shadow');
    assert.equal(r.authoritative.origin, 'old', flag); // shadow: old is authoritative
    assert.equal(events[0].evaluation.value, 'shadow', flag);
    assert.deepEqual(events[0].evaluation.reason, reason, flag);
    assert.equal(events[0].evaluation.variation, undefined, flag);
  }
});

test('variant, reason and metadata map into the evaluation; the context into an evaluation context', async () => {
  const provider = new TrackingProvider({
    value: 'live', variant: '3', reason: 'TARGETING_MATCH',
    flagMetadata: { version: 12, checkRatio: 1, samplingRatio: 1 },
  });
  const client = await clientFor(provider);
  const { migrator, events } = migratorOver(openFeatureClient(client));
  const multi = { kind: 'multi', user: { key: 'u1', name: 'Ann' }, org: { key: 'o1' } };
  const before = JSON.stringify(multi);
  await migrator.read('mig', multi, 'off');
  assert.equal(JSON.stringify(multi), before); // the caller's object is not changed
  assert.deepEqual(
    { value: events[0].evaluation.value, reason: events[0].evaluation.reason,
      variation: events[0].evaluation.variation, version: events[0].evaluation.version },
    { value: 'live', reason: { kind: 'TARGETING_MATCH' }, variation: 3, version: 12 },
  );
  assert.deepEqual({ ...provider.evaluated[0] }, {
    kind: 'multi', user: { targetingKey: 'u1', name: 'Ann' }, org: { targetingKey: 'o1' },
  });
  await migrator.read('mig', CONTEXT, 'off');
  assert.deepEqual({ ...provider.evaluated[1] }, { kind: 'user', targetingKey: 'u1', name: 'Ann' });
});

test('a provider with track receives flat migration_op details with exact values', async () => {
  const provider = new TrackingProvider({ value: 'live', variant: 3, reason: 'STATIC', flagMetadata: { version: 4 } });
  const client = await clientFor(provider);
  const { migrator, events } = migratorOver(openFeatureClient(client));
  await migrator.read('mig', CONTEXT, 'off');
  await migrator.write('mig', CONTEXT, 'off');
  assert.equal(provider.tracked.length, 2);
  const [read, write] = provider.tracked;
  assert.equal(read.name, 'migration_op');
  assert.deepEqual({ ...read.context }, { kind: 'user', targetingKey: 'u1', name: 'Ann' });
  const latency = events[0].measurements.find((m) => m.key === 'latency_ms')?.values ?? {};
  assert.deepEqual(read.details, {
    flagKey: 'mig', stage: 'live', operation: 'read', variationIndex: 3, flagVersion: 4,
    invokedOld: true, invokedNew: true,
    ...(latency.old === undefined ? {} : { latencyOldMs: latency.old }),
    ...(latency.new === undefined ? {} : { latencyNewMs: latency.new }),
    consistent: false, checkRatio: 1, samplingRatio: 1,
  });
  assert.equal(write.details.operation, 'write');
  assert.equal(write.details.invokedOld, true);
  assert.equal(write.details.invokedNew, true);
  assert.equal(write.details.samplingRatio, 1);
  for (const v of Object.values(read.details)) assert.ok(['string', 'number', 'boolean'].includes(typeof v));
});

test('a failing origin shows in the details; a provider without track gets no events', async () => {
  const provider = new TrackingProvider({ value: 'shadow', reason: 'STATIC' });
  const client = await clientFor(provider);
  const migrator = new MigratorBuilder(openFeatureClient(client))
    .read(async () => 'old', async () => { throw new Error('boom'); })
    .write(async () => 1, async () => 2)
    .build();
  await migrator.read('mig', CONTEXT, 'off');
  assert.equal(provider.tracked[0].details.errorNew, true);
  assert.equal(provider.tracked[0].details.errorOld, false);

  const plain = await clientFor(new InMemoryProvider(stageFlags()));
  const r = await new MigratorBuilder(openFeatureClient(plain))
    .read(async () => 'o', async () => 'n').write(async () => 1, async () => 2).build()
    .read('mig-live', CONTEXT, 'off');
  assert.equal(r.success, true);
  assert.equal(r.origin, 'new');
});

test('openFeatureClient rejects a non-client with a TypeError naming the argument', () => {
  for (const bad of [undefined, null, 1, {}, { getStringDetails: 1 }]) {
    assert.throws(() => openFeatureClient(bad), (e) => e instanceof TypeError && /openFeatureClient: client/.test(e.message));
  }
});

test("LaunchDarkly's provider: its LD client evaluates and trackMigration gets real migration_op events", async () => {
  const td = new integrations.TestData();
  td.update(td.flag('mig-ld').variations(...STAGES).fallthroughVariation(2).checkRatio(1));
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const provider = new LaunchDarklyProvider('sdk-key', {
    updateProcessor: td.getFactory(), sendEvents: false, logger: silent,
  });
  const client = await clientFor(provider);
  const ld = provider.getClient();
  const sent = [];
  const original = ld.trackMigration.bind(ld);
  ld.trackMigration = (event) => (sent.push(event), original(event));
  try {
    const migrator = new MigratorBuilder(openFeatureClient(client))
      .read(async () => 'old', async () => 'new', (a, b) => a === b)
      .write(async () => 1, async () => 2)
      .build();
    const r = await migrator.read('mig-ld', CONTEXT, 'off');
    assert.equal(r.origin, 'old'); // shadow
    assert.equal(sent.length, 1);
    const e = sent[0];
    assert.equal(e.kind, 'migration_op');
    assert.equal(e.operation, 'read');
    assert.equal(e.evaluation.key, 'mig-ld');
    assert.equal(e.evaluation.value, 'shadow');
    assert.equal(e.evaluation.variation, 2);
    const keys = e.measurements.map((m) => m.key).sort();
    assert.ok(keys.includes('invoked') && keys.includes('consistent'), keys.join());
  } finally {
    ld.trackMigration = original;
    await OpenFeature.close();
  }
});

test('a client whose getStringDetails throws or answers synchronously (web SDK style) follows SPEC A7', async () => {
  const events = [];
  const throwing = { getStringDetails() { throw new Error('provider down'); } };
  const m1 = migratorOver(openFeatureClient(throwing), events).migrator;
  assert.equal((await m1.read('f', CONTEXT, 'live')).origin, 'new');
  assert.deepEqual(events[0].evaluation.reason, { kind: 'ERROR', errorKind: 'EXCEPTION' });
  const tracked = [];
  const sync = {
    getStringDetails: (flagKey, dflt) => ({ flagKey, value: 'complete', variant: '5', reason: 'SPLIT', flagMetadata: { samplingRatio: 1 } }),
    track: (name, context, details) => tracked.push(details),
  };
  const m2 = migratorOver(openFeatureClient(sync), events).migrator;
  assert.equal((await m2.read('f', CONTEXT, 'off')).origin, 'new');
  assert.deepEqual(events[1].evaluation.reason, { kind: 'SPLIT' });
  assert.equal(events[1].evaluation.variation, 5);
  assert.equal(tracked[0].stage, 'complete');
  assert.equal(tracked[0].invokedNew, true);
  assert.equal(tracked[0].invokedOld, false);
});
