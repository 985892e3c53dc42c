// LaunchDarkly's own server SDK (@launchdarkly/node-server-sdk) for the interop suites: a client
// whose flags come from TestData and whose events go to a local collector (./relay.mjs), sent
// only when a test flushes; and what the suites read back from its posts.
import assert from 'node:assert/strict';
import { init, integrations } from '@launchdarkly/node-server-sdk';
import { startCollector } from './relay.mjs';

export const SILENT_LOGGER = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * An SDK client (`client`) over a fresh TestData (`td`), initialised, posting its events to
 * `collector`. The flush interval is an hour: nothing is sent unless a test calls flush() (an
 * automatic flush still in flight when a test flushes would let an event slip into the next case).
 */
export async function startLaunchDarkly(sdkKey, { logger = SILENT_LOGGER } = {}) {
  const collector = await startCollector({ status: 202 });
  const td = new integrations.TestData();
  const client = init(sdkKey, {
    updateProcessor: td.getFactory(),
    sendEvents: true,
    eventsUri: collector.origin,
    diagnosticOptOut: true,
    flushInterval: 3600,
    logger,
  });
  const close = async () => {
    client.close();
    await collector.close();
  };
  try {
    await client.waitForInitialization({ timeout: 10 });
  } catch (e) {
    await close();
    throw e;
  }
  /** Flushes the SDK's queue; the posts since the last call, each `{ path, events }`. */
  const flush = async () => {
    await client.flush();
    return collector.take().map((post) => ({ path: post.path, events: JSON.parse(post.text) }));
  };
  return {
    td,
    client,
    collector,
    flush,
    /** Flushes the SDK's queue; the migration_op events posted since the last call. */
    migrationEvents: async () => migrationOps((await flush()).flatMap((post) => post.events)),
    close,
  };
}

/** The events of `posts` (from flush()), each post asserted to have gone to the bulk endpoint. */
export function bulkEvents(posts) {
  for (const p of posts) assert.equal(p.path, '/bulk', `events must be posted to the bulk endpoint, got ${p.path}`);
  return posts.flatMap((p) => p.events);
}

export const migrationOps = (events) => events.filter((e) => e.kind === 'migration_op');

/** An event without creationDate, each latency number replaced by its type. */
export function eventShape(event) {
  const { creationDate, ...rest } = event;
  return {
    ...rest,
    measurements: event.measurements.map((m) =>
      m.key === 'latency_ms' ? { key: m.key, values: Object.fromEntries(Object.entries(m.values).map(([k, v]) => [k, typeof v])) } : m,
    ),
  };
}
