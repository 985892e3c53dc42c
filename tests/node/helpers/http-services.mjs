// Local HTTP services for the sameResponse suites (issue 23 part 4): an "old" and a "new" API on
// 127.0.0.1, reached with the global fetch. Nothing leaves the machine.
import http from 'node:http';

/**
 * A service whose `respond(request, url)` returns `{ status?, headers?, body }` (a string, or any
 * other value sent as JSON with a JSON content type); `served` counts the requests.
 * `await service.start()` gives its base URL; `service.close()` stops it.
 */
export function makeService(respond) {
  const service = { served: 0, url: undefined };
  const server = http.createServer((request, response) => {
    service.served++;
    const url = new URL(request.url, 'http://127.0.0.1');
    const { status = 200, headers = {}, body = '', chunks } = respond(request, url);
    const json = typeof body !== 'string';
    response.writeHead(status, { ...(json ? { 'content-type': 'application/json' } : {}), ...headers });
    if (chunks !== undefined) {
      // A body sent in pieces, `chunks(response)` writing them (and ending or destroying it).
      chunks(response);
      return;
    }
    response.end(json ? JSON.stringify(body) : body);
  });
  service.start = () =>
    new Promise((resolve) => {
      server.listen(0, '127.0.0.1', () => {
        service.url = `http://127.0.0.1:${server.address().port}`;
        resolve(service.url);
      });
    });
  service.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return service;
}

/** Starts an old and a new service; `using` closes both after `run(old, new)`. */
export async function withServices(respondOld, respondNew, run) {
  const old = makeService(respondOld);
  const young = makeService(respondNew);
  await Promise.all([old.start(), young.start()]);
  try {
    return await run(old, young);
  } finally {
    await Promise.all([old.close(), young.close()]);
  }
}

/**
 * createMigration options over the two services: each read answers the service's /items Response
 * (body unread), writes answer nothing, and `check` is sameResponse ignoring /body/requestId.
 * `LDMigrationSuccess` and `sameResponse` come from the caller's cutover.
 */
export function itemsMigrationOptions({ LDMigrationSuccess, sameResponse }, old, young) {
  return {
    readOld: async () => LDMigrationSuccess(await fetch(`${old.url}/items`)),
    readNew: async () => LDMigrationSuccess(await fetch(`${young.url}/items`)),
    writeOld: async () => LDMigrationSuccess(undefined),
    writeNew: async () => LDMigrationSuccess(undefined),
    check: sameResponse({ ignore: ['/body/requestId'] }),
  };
}

/** A JSON catalogue of items, its prices from `prices`, with a fresh request id. */
export function catalogue(prices, extra = {}) {
  return () => ({
    headers: { 'x-served-by': extra.servedBy ?? 'svc', date: new Date().toUTCString() },
    body: { items: prices.map((price, i) => ({ id: i + 1, price })), requestId: Math.random(), ...extra.body },
  });
}
