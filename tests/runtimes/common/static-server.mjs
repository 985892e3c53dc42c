// A tiny static server on 127.0.0.1:0: `routes` maps a URL prefix ('/dist/') to a directory.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
};

/** Answers `path` from the directory of the first route whose prefix it has: whether it did. */
export async function serveFile(routes, path, res) {
  for (const [prefix, dir] of Object.entries(routes)) {
    if (!path.startsWith(prefix)) continue;
    const file = normalize(join(dir, path.slice(prefix.length)));
    if (!file.startsWith(normalize(dir + sep))) return false;
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
      return true;
    } catch {
      return false;
    }
  }
  return false;
}

/** Not found, as both servers answer it. */
export function notFound(res, path) {
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end(`not found: ${path}`);
}

export async function startStaticServer(routes) {
  const served = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    served.push(path);
    if (!(await serveFile(routes, path, res))) notFound(res, path);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    served,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}
