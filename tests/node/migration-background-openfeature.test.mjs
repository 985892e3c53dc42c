// Background mode over openFeatureClient (issue 21): the real OpenFeature server SDK as the
// builder's client. The read resolves before its shadow; the provider's track() receives the
// migration_op details once the background part has ended, the same details as in foreground
// mode (latency numbers aside).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { OpenFeature } from '@openfeature/server-sdk';
import { MigratorBuilder, openFeatureClient } from 'cutover';
import { makeGates, turns, watch } from './helpers/background.mjs';

const CONTEXT = Object.freeze({ kind: 'user', key: 'of-user', name: 'Ola' });
let domains = 0;

after(() => OpenFeature.close());

/** A provider serving `stage` for every flag and recording what it is asked to track. */
class StageProvider {
  metadata = { name: 'background-stage-provider' };
  runsOn = 'server';
  tracked = [];
  constructor(stage) {
    this.stage = stage;
  }
  async resolveStringEvaluation() {
    return { value: this.stage, variant: String(['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'].indexOf(this.stage)), reason: 'STATIC', flagMetadata: { version: 3, checkRatio: 1, samplingRatio: 1 } };
  }
  track(name, context, details) {
    this.tracked.push({ name, details });
  }
}

async function clientServing(stage) {
  const provider = new StageProvider(stage);
  const domain = `cutover-background-${++domains}`;
  await OpenFeature.setProviderAndWait(domain, provider);
  return { provider, client: OpenFeature.getClient(domain) };
}

function withoutLatency(details) {
  const { latencyOldMs, latencyNewMs, ...rest } = details;
  for (const v of [latencyOldMs, latencyNewMs]) if (v !== undefined) assert.equal(typeof v, 'number');
  return { ...rest, hasLatencyOld: latencyOldMs !== undefined, hasLatencyNew: latencyNewMs !== undefined };
}

test('openFeatureClient + background(): the read resolves first, track() gets the details after the shadow', async () => {
  const { provider, client } = await clientServing('shadow');
  const gates = makeGates();
  const migrator = new MigratorBuilder(openFeatureClient(client))
    .background()
    .read(gates.origin('old'), gates.origin('new'), (a, b) => a === b)
    .write(gates.origin('w-old'), gates.origin('w-new'))
    .build();
  const read = watch(migrator.read('mig', CONTEXT, 'off'));
  await turns();
  gates.resolve('old', 'v');
  await read.done;
  assert.deepEqual([read.value.origin, read.value.value], ['old', 'v']);
  await turns();
  assert.equal(provider.tracked.length, 0, 'nothing tracked while the shadow runs');
  gates.resolve('new', 'v');
  await migrator.settled();
  assert.equal(provider.tracked.length, 1);
  const { name, details } = provider.tracked[0];
  assert.equal(name, 'migration_op');
  assert.equal(details.operation, 'read');
  assert.equal(details.stage, 'shadow');
  assert.equal(details.invokedOld, true);
  assert.equal(details.invokedNew, true);
  assert.equal(details.consistent, true);
});

test('openFeatureClient + background(): the details equal foreground mode\'s, reads and writes at every stage', async () => {
  for (const stage of ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete']) {
    for (const op of ['read', 'write']) {
      const got = {};
      for (const mode of ['foreground', 'background']) {
        const { provider, client } = await clientServing(stage);
        const b = new MigratorBuilder(openFeatureClient(client));
        if (mode === 'background') b.background();
        const migrator = b
          .read(async () => 'same', async () => { throw new Error('new read down'); }, (x, y) => x === y)
          .write(async () => 'o', async () => 'n')
          .build();
        await migrator[op]('mig', CONTEXT, 'off');
        await migrator.settled();
        assert.equal(provider.tracked.length, 1, `${op} at ${stage}, ${mode}`);
        got[mode] = withoutLatency(provider.tracked[0].details);
      }
      assert.deepEqual(got.background, got.foreground, `${op} at ${stage}`);
    }
  }
});
