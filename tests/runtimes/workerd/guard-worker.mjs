// A Cloudflare Worker with a guarded migration (issue 30, API.md §1 "Guardrails"), bundled with the
// `workerd` condition: createMigration(ldClient, { …, guard }) made once per isolate, at the first
// request, so its guard lives across requests as it would in production. The LaunchDarkly client
// is a stub serving 'live' for every flag (launchDarklyClient's shape: migrationVariation →
// { value }, trackMigration records the events), not the edge SDK: the SDK's client belongs to
// the request that made it (its KV reads and timers), and a guard must outlive requests.
//   GET /op?op=read|write&new=ok|fail → { result, ran, guard, stats, changes, event, logs }
import { LDMigrationError, LDMigrationSuccess, createMigration } from 'cutover';

const FLAG = 'workerd-guard';
const health = { new: 'ok' };
const changes = [];
const events = [];
const logs = [];
const line = (level) => (...a) => logs.push(`${level}: ${a.map(String).join(' ')}`);
let ran = [];
let migration;

function setup() {
  const ldClient = {
    migrationVariation: async () => ({ value: 'live' }),
    trackMigration: (event) => events.push(event),
  };
  const method = (name, value) => async () => {
    ran.push(name);
    if (name.endsWith('New') && health.new === 'fail') return LDMigrationError(new Error(`${name} down`));
    return LDMigrationSuccess(value);
  };
  return createMigration(ldClient, {
    readOld: method('readOld', 'old'),
    readNew: method('readNew', 'new'),
    writeOld: method('writeOld', 'wrote old'),
    writeNew: method('writeNew', 'wrote new'),
    check: (a, b) => a === b,
    logger: { debug() {}, info() {}, warn: line('warn'), error: line('error') },
    guard: { maxConsecutiveErrors: 3, cooldownMs: 100, minCalls: 3, probeRatio: 1, onChange: (c) => changes.push({ from: c.from, to: c.to, reason: c.reason }) },
  });
}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname !== '/op') return new Response('not found', { status: 404 });
    migration ??= setup();
    health.new = url.searchParams.get('new') ?? 'ok';
    ran = [];
    const context = { kind: 'user', key: 'edge-user' };
    const op = url.searchParams.get('op') === 'write' ? 'write' : 'read';
    const r = await migration[op](FLAG, context, 'off');
    const result = op === 'read' ? { origin: r.origin, success: r.success } : { authoritative: r.authoritative.origin, nonAuthoritative: r.nonAuthoritative?.origin ?? null };
    const event = events.at(-1);
    return Response.json({
      result,
      ran,
      guard: migration.guard(FLAG),
      stats: migration.stats().guard,
      changes,
      event: event && { value: event.evaluation.value, invoked: event.measurements.find((m) => m.key === 'invoked').values },
      logs,
    });
  },
};
