import { init, integrations } from '@launchdarkly/node-server-sdk';
const td = new integrations.TestData();
td.update(td.flag('mig').variations('off','dualwrite','shadow','live','rampdown','complete').fallthroughVariation(2));
const client = init('sdk-key', { updateProcessor: td.getFactory(), sendEvents: false, diagnosticOptOut: true, logger: { debug(){}, info(){}, warn(){}, error(){} } });
await client.waitForInitialization({ timeout: 5 });
const ctx = { kind: 'user', key: 'u1' };
async function once() {
  const { value, tracker } = await client.migrationVariation('mig', ctx, 'off');
  tracker.op('read'); tracker.invoked('old'); tracker.latency('old', 0.1); tracker.invoked('new'); tracker.latency('new', 0.1);
  tracker.consistency(() => true);
  const ev = tracker.createEvent(); if (ev) client.trackMigration(ev);
}
for (let i = 0; i < 50000; i++) await once();
const N = 200000; const t = performance.now();
for (let i = 0; i < N; i++) await once();
console.log('LD migrationVariation + tracker + createEvent + trackMigration:', ((performance.now() - t) * 1000 / N).toFixed(3), 'µs/op');
let t2 = performance.now();
for (let i = 0; i < N; i++) await client.migrationVariation('mig', ctx, 'off');
console.log('LD migrationVariation alone:', ((performance.now() - t2) * 1000 / N).toFixed(3), 'µs/op');
client.close();
