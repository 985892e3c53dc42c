// Local HTTP servers for the relay and beaconSink tests: a collector that records every POST,
// and a Node http server mounting a fetch-style handler (as docs/EDGE.md shows).
import http from 'node:http';
import { Readable } from 'node:stream';

/** A server on 127.0.0.1 recording each request: `{ method, path, type, text }`; answers `status`. */
export async function startCollector({ status = 204 } = {}) {
  const posts = [];
  const waiters = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      posts.push({ method: req.method, path: req.url, type: req.headers['content-type'], text: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(collector.status);
      res.end();
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const collector = {
    status,
    origin: `http://127.0.0.1:${server.address().port}`,
    /** The requests recorded since the last call. */
    take: () => posts.splice(0),
    /** Resolves once `n` requests wait to be taken. */
    async until(n) {
      while (posts.length < n) await new Promise((resolve) => waiters.push(resolve));
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
  return collector;
}

/** A Node http server that hands each request to `handler` as a fetch Request. */
export async function relayServer(handler) {
  const server = http.createServer(async (req, res) => {
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(new URL(req.url, 'http://localhost'), {
      method: req.method,
      headers: req.headers,
      body: hasBody ? Readable.toWeb(req) : undefined,
      duplex: 'half',
    });
    const response = await handler(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
