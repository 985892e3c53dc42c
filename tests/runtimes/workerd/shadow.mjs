// The worker half of the background-shadowing fixtures, bundled into both the workerd worker and
// the edge-runtime script (issue 21, API.md §1 "Shadowing in production").
// One shadow read per request with `background()`: the old origin answers at once, the new one is
// a fetch to the test's local server that answers only when the test lets it (./shadow-server.mjs).
// The platform's waitUntil is handed to the read as the per-operation option; trackMigrationOp
// posts each event to the server, kept alive with the same waitUntil.
// Query: collector (the server's base URL), id (names this request at the server), new (the value
// the new origin will return; the old one always returns 'v1'), and bg=0 for the control: the same
// read without background() (LaunchDarkly's semantics: the read waits for both origins).

export const SHADOW_FLAG = 'shadow-bg';
export const OLD_VALUE = 'v1';
export const CONTEXT = { kind: 'user', key: 'user-1' };

/**
 * Runs one background shadow read; resolves with what was true when the read resolved, i.e. when
 * the response is built. `waitUntil` is the platform's (ctx.waitUntil / FetchEvent#waitUntil).
 */
export async function shadowRead(api, url, waitUntil) {
  const { MigratorBuilder } = api;
  const collector = url.searchParams.get('collector');
  const id = url.searchParams.get('id');
  const newValue = url.searchParams.get('new');
  const background = url.searchParams.get('bg') !== '0';
  const at = (path) => `${collector}${path}?id=${encodeURIComponent(id)}`;
  const post = (path, body) =>
    waitUntil(
      fetch(at(path), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
        .then((r) => r.arrayBuffer())
        .catch(() => {}),
    );

  const state = { newStarted: false, newSettled: false, backgroundEnded: false, waitUntilCalls: 0, waitUntilArg: null };
  const line = (level) => (...args) => post('/log', { level, message: args.map(String).join(' ') });
  const logger = { debug() {}, info() {}, warn: line('warn'), error: line('error') };
  const client = {
    migrationVariation: () => ({ value: 'shadow', variationIndex: 2, flagVersion: 4, reason: { kind: 'FALLTHROUGH' } }),
    trackMigrationOp: (event) => post('/events', event),
  };
  const builder = new MigratorBuilder(client, { logger })
    .read(
      () => OLD_VALUE,
      async (_payload, signal) => {
        state.newStarted = true;
        const res = await fetch(`${at('/slow')}&value=${encodeURIComponent(newValue)}`, { signal });
        const { value } = await res.json();
        state.newSettled = true;
        return value;
      },
      (a, b) => a === b,
    )
    .write(
      () => 'w-old',
      () => 'w-new',
    );
  const migrator = (background ? builder.background() : builder).build();

  const options = {
    waitUntil: (p) => {
      state.waitUntilCalls += 1;
      state.waitUntilArg = p instanceof Promise ? 'promise' : typeof p;
      Promise.resolve(p).then(() => {
        state.backgroundEnded = true;
      });
      waitUntil(p);
    },
  };
  const result = await migrator.read(SHADOW_FLAG, CONTEXT, 'off', 'p', background ? options : undefined);
  return {
    result: { origin: result.origin, success: result.success, value: result.value },
    atResponse: { ...state },
  };
}
