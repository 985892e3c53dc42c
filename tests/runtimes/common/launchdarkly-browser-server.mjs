// A local stand-in for LaunchDarkly's client-side service, for the browser SDK in Chromium: serves
// the test's bundles (/bundle/, /pages/) and answers the SDK's polling request
// (GET /sdk/evalx/<clientSideId>/contexts/<base64url context>) with `flagsFor(context)`, in the
// client-side flag format ({ key: { value, variation, version, reason } }). Records every request.
import { createServer } from 'node:http';
import { notFound, serveFile } from './static-server.mjs';

/** The context a polling path names (`null` when it does not decode to JSON). */
function contextOf(encoded) {
  try {
    return JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

export async function startLaunchDarklyBrowserServer({ routes, flagsFor }) {
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const path = decodeURIComponent(url.pathname);
    requests.push({ method: req.method, path, query: url.search });
    const evalx = /^\/sdk\/evalx\/([^/]+)\/contexts\/([^/]+)$/.exec(url.pathname);
    if (evalx && req.method === 'GET') {
      const flags = flagsFor(contextOf(evalx[2]), { clientSideId: evalx[1], withReasons: url.searchParams.get('withReasons') === 'true' });
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return res.end(JSON.stringify(flags));
    }
    if (!(await serveFile(routes, path, res))) notFound(res, path);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}
