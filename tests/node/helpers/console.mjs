// migrationConsole's suites: a migrator whose reads differ (a planted secret in the values and
// the context key), a console over it in a real Node http server, and raw requests (fetch()
// would normalise the paths the security suite sends as they are).
import { createServer, request } from 'node:http';
import { MigratorBuilder, fixedStage, migrationConsole, sameStructure } from 'cutover';

export const SECRET = 'planted-secret-7f3a91';
export const SECRET_KEY = 'context-key-c0ffee42';

/** A shadow migrator that has read `reads` times, each a mismatch carrying the secrets. */
export async function secretMigrator(reads = 5) {
  const migrator = new MigratorBuilder(fixedStage('shadow'))
    .read((n) => ({ n, token: `${SECRET}-old` }), (n) => ({ n, token: `${SECRET}-new` }), sameStructure())
    .write((x) => x, (x) => x)
    .mismatches({ keep: 5 })
    .build();
  for (let i = 0; i < reads; i++) await migrator.read('orders-store', { kind: 'user', key: SECRET_KEY, email: SECRET }, 'off', i);
  return migrator;
}

/** A console (options over the defaults) in a Node http server on a free port; `next` answers 418. */
export async function serveConsole(options) {
  const handler = migrationConsole({ authorize: () => true, ...options });
  const server = createServer((req, res) => handler.node(req, res, () => {
    res.statusCode = 418;
    res.end('the app');
  }));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    handler,
    url: `http://127.0.0.1:${port}`,
    port,
    async close() {
      handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A raw request (the path sent as written): { status, headers, body }. */
export function raw(port, path, { method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The first `bytes` of a stream's body (then the connection is closed). */
export async function streamStart(url, bytes = 2000, headers = {}) {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal, headers });
  if (response.body === null || response.status !== 200) return { response, text: await response.text() };
  const reader = response.body.getReader();
  let text = '';
  const decoder = new TextDecoder();
  while (text.length < bytes) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.includes('event: snapshot') && text.endsWith('\n\n')) break;
  }
  controller.abort();
  await reader.cancel().catch(() => {});
  return { response, text };
}
