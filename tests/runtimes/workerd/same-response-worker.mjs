// A Worker that shadows an old and a new HTTP API with sameResponse() (issue 23 part 4; API.md
// §2c), for tests/runtimes/workerd-same-response.test.mjs: one read per request, whose
// authoritative Response the Worker returns as it is (its body unread, streamed to the client),
// while the comparison reads both bodies under ctx.waitUntil. The event (trackMigrationOp), each
// mismatch (onMismatch) and each warn/error line are posted to the test's collector, kept alive
// with the same ctx.waitUntil.
// Query of GET /items: old, new (the two APIs' URLs), collector (the test's server), id (names
// this request there), bg=0 for a read without background() (waitUntil given per operation).
import { MigratorBuilder, sameResponse } from 'cutover';

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    const query = (name) => url.searchParams.get(name) ?? '';
    const waitUntil = (promise) => ctx.waitUntil(promise);
    const post = (path, body) =>
      waitUntil(
        fetch(`${query('collector')}${path}?id=${encodeURIComponent(query('id'))}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
          .then((r) => r.arrayBuffer())
          .catch(() => {}),
      );
    const line = (level) => (...args) => post('/log', { level, message: args.map(String).join(' ') });
    const client = {
      migrationVariation: () => ({ value: 'shadow' }),
      trackMigrationOp: (event) => post('/events', event),
    };
    let builder = new MigratorBuilder(client, { logger: { debug() {}, info() {}, warn: line('warn'), error: line('error') } })
      .read(
        () => fetch(query('old')),
        () => fetch(query('new')),
        sameResponse({ headers: ['content-type'], ignore: ['/body/requestId'] }),
      )
      .write(() => undefined, () => undefined)
      .mismatches({ onMismatch: (m) => post('/mismatches', m.differences.map((d) => d.path)) });
    const background = query('bg') !== '0';
    if (background) builder = builder.background({ waitUntil });
    const migrator = builder.build();
    const result = await migrator.read('items-api', { kind: 'user', key: 'user-1' }, 'off', undefined, background ? undefined : { waitUntil });
    if (!result.success) return new Response(String(result.error), { status: 502 });
    return result.value;
  },
};
