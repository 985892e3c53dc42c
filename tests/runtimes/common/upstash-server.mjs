// A minimal Upstash-REST-protocol server over a real Redis, for @upstash/redis clients in tests:
//   POST /          body ["CMD", ...args]        → {"result": …}
//   POST /pipeline  body [["CMD", ...], …]        → [{"result": …} | {"error": …}, …]
// Bearer token checked; `Upstash-Encoding: base64` honoured like the real service.
import { createServer } from 'node:http';

const b64 = (v) =>
  typeof v === 'string' ? (v === 'OK' ? v : Buffer.from(v, 'utf8').toString('base64')) : Array.isArray(v) ? v.map(b64) : v;

/** `redisClient` is a connected node-redis client; resolves {url, token, requests, close()}. */
export async function startUpstashServer(redisClient, token = 'test-token') {
  const requests = [];
  const exec = async (args) => {
    try {
      return { result: await redisClient.sendCommand(args.map(String)) };
    } catch (e) {
      return { error: String(e?.message ?? e) };
    }
  };
  const server = createServer(async (req, res) => {
    const reply = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      if (req.method !== 'POST') return reply(405, { error: 'POST only' });
      if (req.headers.authorization !== `Bearer ${token}`) return reply(401, { error: 'Unauthorized' });
      const body = JSON.parse(raw);
      const encode = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
      const enc = (r) => (encode && 'result' in r ? { result: b64(r.result) } : r);
      const path = new URL(req.url, 'http://x').pathname.replace(/\/+$/, '');
      requests.push({ path: path || '/', body });
      if (path === '/pipeline' || path === '/multi-exec') {
        const results = [];
        for (const args of body) results.push(enc(await exec(args)));
        return reply(200, results);
      }
      if (path === '') {
        const r = await exec(body);
        return reply('error' in r ? 400 : 200, enc(r));
      }
      return reply(404, { error: `no route ${path}` });
    } catch (e) {
      return reply(500, { error: String(e?.message ?? e) });
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}
