#!/usr/bin/env node
// The example's server: the page, the two search endpoints it migrates between, and the flag
// data a LaunchDarkly server SDK would bootstrap the page with. Dependency-free (node:http).
//
//   node examples/browser-migration/serve.mjs [--port N] [--stage S]
//
//   GET  /                       the page (index.html, app.js)
//   GET  /modules/cutover/…      cutover's files (the installed package's dist/)
//   GET  /modules/launchdarkly/… @launchdarkly/js-client-sdk's files
//   GET  /api/search/old?q=…     the old search endpoint: { query, items: [{ id, title, price }], tookMs }
//   GET  /api/search/new?q=…     the new one: the same answer, slower, and with one bug (below)
//   GET  /api/flags?stage=…      bootstrap data for the flag `search-migration` (the page's
//                                ?stage= wins over --stage; default 'shadow')
//   POST /migration-events       the page's migration_op events (beaconSink), checked and
//                                forwarded by migrationEventRelay to a LaunchDarkly server SDK
//                                client: yours when LAUNCHDARKLY_SDK_KEY is set, else a stand-in
//                                that prints what it receives
//
// Only 127.0.0.1. The first line on stdout is `browser migration example: http://127.0.0.1:PORT/`.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { migrationEventRelay } from 'cutover';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
};

// The catalogue both endpoints search.
const CATALOGUE = [
  { id: 'b1', title: 'Hiking boots', price: 89.5, sale: false },
  { id: 'b2', title: 'Rain boots', price: 35, sale: true },
  { id: 's1', title: 'Running shoes', price: 120, sale: false },
  { id: 's2', title: 'Trail shoes', price: 99.99, sale: true },
  { id: 'j1', title: 'Rain jacket', price: 150, sale: false },
];

const search = (q) => CATALOGUE.filter((item) => item.title.toLowerCase().includes(q.toLowerCase()));

/** An item's price with the 20% off of items on sale, in cents rounded. */
const salePrice = (item) => (item.sale ? Math.round(item.price * 80) / 100 : item.price);

/** The old endpoint: prices with the sale applied. */
function oldSearch(q) {
  return { query: q, items: search(q).map((item) => ({ id: item.id, title: item.title, price: salePrice(item) })) };
}

/** The new endpoint: the same answer, except that it forgets the sale (the bug the differences list shows). */
function newSearch(q) {
  return { query: q, items: search(q).map((item) => ({ id: item.id, title: item.title, price: item.price })) };
}

/** Bootstrap data for the page, as a server SDK's allFlagsState(context).toJSON() gives it. */
function flags(stage) {
  return {
    'search-migration': stage,
    $flagsState: { 'search-migration': { variation: STAGES.indexOf(stage), version: 1, reason: { kind: 'FALLTHROUGH' } } },
    $valid: true,
  };
}

/** The directory of an installed package's entry file, found as Node finds it from here. */
function packageDir(specifier) {
  return dirname(fileURLToPath(import.meta.resolve(specifier)));
}

/** Node's request as a fetch Request (its body a stream, which the relay reads to its bound). */
function fetchRequest(req) {
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers: req.headers,
    body: hasBody ? Readable.toWeb(req) : undefined,
    duplex: 'half',
  });
}

/**
 * Starts the server. Options: `port` (0: any free one), `stage` (the default stage served),
 * `ldClient` (the LaunchDarkly server SDK client the relay forwards events to: anything with
 * `trackMigration(event)`), `cutoverDist` (cutover's dist/ directory; default: the installed
 * package's), `newDelayMs` (how much slower the new endpoint answers; default 150).
 */
export async function startExampleServer({ port = 0, stage = 'shadow', ldClient, cutoverDist, newDelayMs = 150 } = {}) {
  if (!STAGES.includes(stage)) throw new RangeError(`stage must be one of ${STAGES.join(', ')}, got ${stage}`);
  if (typeof ldClient?.trackMigration !== 'function') throw new TypeError('ldClient must have a trackMigration method');
  const relay = migrationEventRelay(ldClient, { flagKeys: ['search-migration'] });
  const modules = {
    '/modules/cutover/': cutoverDist ?? join(dirname(createRequire(import.meta.url).resolve('cutover/package.json')), 'dist'),
    '/modules/launchdarkly/': packageDir('@launchdarkly/js-client-sdk'),
    '/': HERE,
  };
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    requests.push(`${req.method} ${url.pathname}`);
    const json = (body) => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/migration-events') {
      const answer = await relay(fetchRequest(req));
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      return res.end(Buffer.from(await answer.arrayBuffer()));
    }
    const q = url.searchParams.get('q') ?? '';
    if (url.pathname === '/api/search/old') return json({ ...oldSearch(q), tookMs: 5 + Math.round(Math.random() * 10) });
    if (url.pathname === '/api/search/new') {
      await new Promise((r) => setTimeout(r, newDelayMs));
      return json({ ...newSearch(q), tookMs: newDelayMs + Math.round(Math.random() * 10) });
    }
    if (url.pathname === '/api/flags') {
      const asked = url.searchParams.get('stage');
      return json(flags(STAGES.includes(asked) ? asked : stage));
    }
    const path = url.pathname === '/' ? '/index.html' : decodeURIComponent(url.pathname);
    for (const [prefix, dir] of Object.entries(modules)) {
      if (!path.startsWith(prefix)) continue;
      const file = normalize(join(dir, path.slice(prefix.length)));
      if (!file.startsWith(normalize(dir + sep))) break;
      try {
        const body = await readFile(file);
        res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
        return res.end(body);
      } catch {
        break;
      }
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end(`not found: ${path}`);
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

/** Your LaunchDarkly environment, through its server SDK: the events reach its migration views. */
async function launchDarkly(sdkKey) {
  const { init } = await import('@launchdarkly/node-server-sdk');
  const client = init(sdkKey);
  await client.waitForInitialization({ timeout: 10 });
  return client;
}

/** Without an SDK key: a stand-in for LaunchDarkly that prints each event it is given. */
function printer() {
  return {
    trackMigration(event) {
      const m = Object.fromEntries(event.measurements.map((x) => [x.key, x]));
      console.log(`migration_op ${event.operation} ${event.evaluation.key}=${event.evaluation.value} invoked ${Object.keys(m.invoked.values)} consistent ${m.consistent?.value ?? '-'}`);
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const port = Number(arg('port') ?? process.env.PORT ?? 8081);
  const ldClient = process.env.LAUNCHDARKLY_SDK_KEY ? await launchDarkly(process.env.LAUNCHDARKLY_SDK_KEY) : printer();
  const { url } = await startExampleServer({ port, stage: arg('stage') ?? 'shadow', ldClient });
  console.log(`browser migration example: ${url}`);
}
