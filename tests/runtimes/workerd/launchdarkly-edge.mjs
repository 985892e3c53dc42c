// A Cloudflare Worker over LaunchDarkly's edge SDK (@launchdarkly/cloudflare-server-sdk 2.x):
// the flags are read from the KV namespace env.LD_KV (key `LD-Env-<clientSideID>`), the stage of
// each migration comes through launchDarklyClient, and with sendEvents the SDK's event processor
// posts the migration_op events, flushed after the response under ctx.waitUntil.
// Nothing but imports runs at global scope: the SDK client is made per request (its KV binding
// and its timers belong to that request).
//   GET /migrate?user=<key>[&events=1][&op=write][&default=<stage>]
//     → { stage, result, ran, errors }: one read (or write) of flag `search-migration` for the user
import { MigratorBuilder, launchDarklyClient } from 'cutover';
import { init } from '@launchdarkly/cloudflare-server-sdk';

const FLAG = 'search-migration';

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname !== '/migrate') return new Response('not found', { status: 404 });
    const errors = [];
    const line = (level) => (...a) => errors.push(`${level}: ${a.map(String).join(' ')}`);
    const logger = { debug() {}, info() {}, warn: line('warn'), error: line('error') };
    const sendEvents = url.searchParams.get('events') === '1';
    const ld = init(env.CLIENT_SIDE_ID, env.LD_KV, { logger, sendEvents });
    await ld.waitForInitialization({ timeout: 5 });

    const ran = [];
    const migrator = new MigratorBuilder(launchDarklyClient(ld), { logger })
      .read(async () => (ran.push('old'), ['a', 'b']), async () => (ran.push('new'), ['a', 'b']), (x, y) => x.join() === y.join())
      .write(async () => (ran.push('old'), 'saved-old'), async () => (ran.push('new'), 'saved-new'))
      .build();
    const context = { kind: 'user', key: url.searchParams.get('user') ?? 'anonymous' };
    const defaultStage = url.searchParams.get('default') ?? 'off';
    let result;
    if (url.searchParams.get('op') === 'write') {
      const w = await migrator.write(FLAG, context, defaultStage);
      result = { authoritative: w.authoritative.origin, nonAuthoritative: w.nonAuthoritative?.origin ?? null };
    } else {
      const r = await migrator.read(FLAG, context, defaultStage);
      result = { origin: r.origin, success: r.success };
    }
    const stage = (await ld.migrationVariation(FLAG, context, defaultStage)).value;
    // The events (when sent) go out after the response; the runtime keeps the request alive for them.
    ctx.waitUntil(ld.flush().finally(() => ld.close()));
    return Response.json({ stage, result, ran, errors });
  },
};
