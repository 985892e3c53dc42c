// openFeatureClient from CommonJS: require('cutover') with require('@openfeature/server-sdk').
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { OpenFeature, InMemoryProvider } = require('@openfeature/server-sdk');
const { MigratorBuilder, openFeatureClient } = require('cutover');

class TrackingProvider extends InMemoryProvider {
  tracked = [];
  track(name, context, details) {
    this.tracked.push({ name, context, details });
  }
}

test('CommonJS: the stage from an in-memory flag, and the operation reported to track', async () => {
  const provider = new TrackingProvider({
    'cjs-migration': { variants: { a: 'rampdown', b: 'off' }, defaultVariant: 'a', disabled: false },
  });
  await OpenFeature.setProviderAndWait('cutover-cjs', provider);
  try {
    const migrator = new MigratorBuilder(openFeatureClient(OpenFeature.getClient('cutover-cjs')))
      .read(async (id) => `old:${id}`, async (id) => `new:${id}`)
      .write(async (v) => v, async (v) => v)
      .build();
    const r = await migrator.read('cjs-migration', { kind: 'user', key: 'u1' }, 'off', 7);
    assert.deepEqual({ origin: r.origin, success: r.success, value: r.value }, { origin: 'new', success: true, value: 'new:7' });
    assert.equal(provider.tracked.length, 1);
    const [{ name, context, details }] = provider.tracked;
    assert.equal(name, 'migration_op');
    assert.equal(context.targetingKey, 'u1');
    assert.equal(Object.hasOwn(context, 'key'), false);
    assert.equal(details.flagKey, 'cjs-migration');
    assert.equal(details.stage, 'rampdown');
    assert.equal(details.operation, 'read');
    assert.equal(details.invokedNew, true);
    assert.equal(details.invokedOld, false); // rampdown reads new only
  } finally {
    await OpenFeature.close();
  }
});
