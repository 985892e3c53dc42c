// The console's `.node(req, res, next)`: Node's http (and Express, Connect) in front of the
// fetch-style handler. A request outside basePath goes to `next()` (404 without one); inside, it
// becomes a `Request` (no body: the console answers GET and HEAD only), and the `Response` is
// written back, its body streamed (server-sent events) until either side closes.
import { read } from '../util.js';

/** A request's path and query as Express leaves it (`originalUrl` when mounted under a path). */
const urlOf = (req) => {
  const url = read(req, 'originalUrl') ?? read(req, 'url');
  return typeof url === 'string' ? url : '/';
};

/** `Headers` from Node's header object (values Node could not have sent are skipped). */
function headersOf(req) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(read(req, 'headers') ?? {})) {
    try {
      if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
      else if (typeof value === 'string') headers.set(name, value);
    } catch {
      // skipped
    }
  }
  return headers;
}

/** Writes `response` to `res`, streaming its body; a client that goes away cancels the body. */
async function writeBack(response, req, res) {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const stop = () => reader.cancel().catch(() => {});
  res.once('close', stop);
  req.once?.('close', stop);
  if (typeof res.flushHeaders === 'function') res.flushHeaders();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      res.write(value);
    }
  } catch {
    // the body was cancelled or failed: end the response
  }
  res.end();
}

/**
 * @param {(request: Request) => Promise<Response>} handle the fetch-style handler
 * @param {(path: string) => boolean} inside whether a path is the console's
 * @param {(status: number) => Response} answer a bare response with the console's headers
 */
export function nodeHandler(handle, inside, answer) {
  return function node(req, res, next) {
    const url = new URL(urlOf(req), 'http://localhost');
    if (!inside(url.pathname)) {
      if (typeof next === 'function') next();
      else {
        res.statusCode = 404;
        res.end();
      }
      return;
    }
    let request;
    try {
      request = new Request(url, { method: read(req, 'method') ?? 'GET', headers: headersOf(req) });
    } catch {
      // A method fetch refuses (CONNECT, TRACE) or a malformed one.
      writeBack(answer(405), req, res).catch(() => {});
      return;
    }
    handle(request)
      .then((response) => writeBack(response, req, res))
      .catch(() => {
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
  };
}
