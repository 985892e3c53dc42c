// launchDarklyBrowserClient over the real @launchdarkly/js-client-sdk in Chromium (an esbuild
// bundle of 'cutover', browser condition). Every service endpoint is the page's own origin, the
// test's server: flags come from bootstrap data first, then from its polling endpoint after
// identify(). Events of the SDK itself are off (sendEvents: false); cutover's go to `events`.
import { MigratorBuilder, launchDarklyBrowserClient } from 'cutover';
import { createClient } from '@launchdarkly/js-client-sdk';

const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];
const FIRST = { kind: 'user', key: 'first-user', name: 'Ann' };
const SECOND = { kind: 'user', key: 'second-user' };
const THIRD = { kind: 'user', key: 'third-user' };

/** Bootstrap data as a server SDK's allFlagsState().toJSON() gives it: values, then $flagsState. */
function bootstrap(flags) {
  const data = { $flagsState: {}, $valid: true };
  for (const [key, [value, variation, reason]] of Object.entries(flags)) {
    data[key] = value;
    data.$flagsState[key] = { variation, version: 12, ...(reason && { reason }) };
  }
  return data;
}

const stageFlags = Object.fromEntries(
  STAGES.map((stage, i) => [`mig-${stage}`, [stage, i, { kind: 'RULE_MATCH', ruleIndex: i, ruleId: `rule-${stage}` }]]),
);

function recorder() {
  const logs = [];
  const logger = {};
  for (const level of ['debug', 'info', 'warn', 'error']) logger[level] = (...a) => logs.push({ level, text: a.map(String).join(' ') });
  return { logs, logger };
}

/** A migrator over `client`: the origins say which ran. */
function migrator(client, logger) {
  const ran = [];
  const m = new MigratorBuilder(client, { logger })
    .read(async () => (ran.push('read-old'), 'same'), async () => (ran.push('read-new'), 'same'), (a, b) => a === b)
    .write(async () => (ran.push('write-old'), 1), async () => (ran.push('write-new'), 2))
    .build();
  return { m, ran };
}

export async function run() {
  const origin = location.origin;
  const sdk = recorder();
  const ld = createClient('browser-env', FIRST, {
    baseUri: origin,
    streamUri: origin,
    eventsUri: origin,
    streaming: false,
    sendEvents: false,
    fetchGoals: false,
    diagnosticOptOut: true,
    withReasons: true,
    logger: sdk.logger,
  });
  const started = await ld.start({
    bootstrap: bootstrap({
      ...stageFlags,
      'mig-not-a-stage': ['sideways', 1, { kind: 'FALLTHROUGH' }],
      'mig-number': [3, 0, { kind: 'FALLTHROUGH' }],
      'mig-no-reason': ['shadow', 2],
      'mig-changes': ['off', 0, { kind: 'FALLTHROUGH' }],
    }),
  });

  const cutover = recorder();
  const events = [];
  const client = launchDarklyBrowserClient(ld, { events: (e) => events.push(e) });
  const { m, ran } = migrator(client, cutover.logger);

  // Each stage, as served by its own flag's variation.
  const stages = [];
  for (const stage of STAGES) {
    ran.length = 0;
    const read = await m.read(`mig-${stage}`, ld.getContext(), 'off');
    const readRan = [...ran];
    ran.length = 0;
    const write = await m.write(`mig-${stage}`, ld.getContext(), 'off');
    stages.push({ stage, read, readRan, write, writeRan: [...ran], events: events.splice(0) });
  }

  // The default stage: a missing flag, a value that is not a stage, a number; a flag without a reason.
  const defaults = [];
  for (const [key, def] of [['mig-missing', 'live'], ['mig-not-a-stage', 'dualwrite'], ['mig-number', 'complete'], ['mig-no-reason', 'off']]) {
    const read = await m.read(key, ld.getContext(), def);
    defaults.push({ key, def, origin: read.origin, evaluation: events.splice(0)[0]?.evaluation });
  }

  // Sampling: 0 sends none; 3 about one in three, each with samplingRatio 3.
  const sampling = {};
  for (const ratio of [0, 3]) {
    const sampled = [];
    const s = migrator(launchDarklyBrowserClient(ld, { events: (e) => sampled.push(e), samplingRatio: ratio }), cutover.logger);
    for (let i = 0; i < 300; i++) await s.m.read('mig-shadow', ld.getContext(), 'off');
    sampling[ratio] = { sent: sampled.length, ratios: [...new Set(sampled.map((e) => e.samplingRatio))], count: s.m.stats().read.count };
  }

  // No events option: nothing to send, reads go on.
  const silent = migrator(launchDarklyBrowserClient(ld), cutover.logger);
  const silentRead = await silent.m.read('mig-live', ld.getContext(), 'off');

  // A change of flags after identify(): read live through the same adapter and migrator.
  const changes = [];
  const readChanges = async (label) => {
    const read = await m.read('mig-changes', ld.getContext(), 'off');
    const e = events.splice(0)[0];
    changes.push({ label, context: ld.getContext(), origin: read.origin, evaluation: e?.evaluation, eventContext: e?.context });
  };
  await readChanges('bootstrap');
  // From the polling endpoint (no bootstrap: the SDK asks the server).
  const identifiedSecond = await ld.identify(SECOND);
  await readChanges('polled');
  // From bootstrap data given to identify().
  const identifiedThird = await ld.identify(THIRD, { bootstrap: bootstrap({ 'mig-changes': ['complete', 5, { kind: 'TARGET_MATCH' }] }) });
  await readChanges('identify bootstrap');

  await ld.close();
  return {
    started: started.status,
    identified: [identifiedSecond.status, identifiedThird.status],
    stages,
    defaults,
    sampling,
    silentRead,
    changes,
    sdkLogs: sdk.logs.filter((l) => l.level !== 'debug'),
    cutoverLogs: cutover.logs,
  };
}
