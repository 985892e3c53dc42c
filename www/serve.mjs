#!/usr/bin/env node
// A dependency-free static server for the cutover browser dashboard.
//
//   node www/serve.mjs [--port N]        (default: $PORT, else 8080; 0 picks a free port)
//
// Serves www/ at / and the built package (the repo's dist/) at /dist/, on 127.0.0.1 only.
// The first line on stdout is always `cutover dashboard: http://127.0.0.1:PORT/`.

import { createServer } from 'node:http';
import { createReadStream, existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const HOST = '127.0.0.1';
const WWW = dirname(fileURLToPath(import.meta.url));
const DIST = resolve(WWW, '..', 'dist');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
};

function parsePort(argv, env) {
  let raw = env.PORT ?? '8080';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--port' || arg === '-p') raw = argv[++i];
    else if (arg.startsWith('--port=')) raw = arg.slice('--port='.length);
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write('usage: node www/serve.mjs [--port N]   (default $PORT or 8080; 0 = any free port)\n');
      process.exit(0);
    } else {
      process.stderr.write(`serve: unknown argument ${arg}\n`);
      process.exit(2);
    }
  }
  const port = Number(raw);
  if (raw === undefined || raw === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`serve: invalid port ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return port;
}

/** Maps a URL path to a file under www/ or dist/, or null when it is outside both. */
function locate(urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (path.includes('\0') || path.includes('\\')) return null;
  let root = WWW;
  if (path === '/dist' || path.startsWith('/dist/')) {
    root = DIST;
    path = path.slice('/dist'.length);
  }
  if (path === '' || path.endsWith('/')) path += 'index.html';
  const file = resolve(join(root, path));
  if (file !== root && !file.startsWith(root + sep)) return null;
  return file;
}

function send(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`${text}\n`);
}

const server = createServer(async (req, res) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return send(res, 405, 'method not allowed');
  }
  const { pathname } = new URL(req.url, `http://${HOST}`);
  const file = locate(pathname);
  if (!file) return send(res, 403, 'forbidden');
  let info;
  try {
    info = await stat(file);
  } catch {
    return send(res, 404, 'not found');
  }
  if (!info.isFile()) return send(res, 404, 'not found');
  res.writeHead(200, {
    'content-type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'content-length': info.size,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  if (req.method === 'HEAD') return res.end();
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
});

const port = parsePort(process.argv.slice(2), process.env);
server.on('error', (error) => {
  process.stderr.write(`serve: ${error.message}\n`);
  process.exit(1);
});
server.listen(port, HOST, () => {
  const { port: actual } = server.address();
  process.stdout.write(`cutover dashboard: http://${HOST}:${actual}/\n`);
  if (!existsSync(join(DIST, 'cutover.browser.mjs'))) {
    process.stderr.write('serve: dist/cutover.browser.mjs is missing; run `npm run build` first\n');
  }
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close();
    server.closeAllConnections?.();
    process.exit(0);
  });
}
