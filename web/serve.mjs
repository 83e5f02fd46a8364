#!/usr/bin/env node
// Serves the live page (make web's build/web) on this machine, with the two headers that make it
// cross-origin isolated, so the threaded engine runs (COOP same-origin + COEP require-corp); with
// --plain, without them, as a plain static host would (the page then runs the single-threaded
// engine). Node's own http module: nothing to install. Any request gets an answer (400, 404, 405
// for what is not a file of the folder) and the server goes on.
//   node web/serve.mjs [DIR] [--port 8000] [--host 127.0.0.1] [--plain]
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : fallback;
};
const port = Number(flag('--port', '8000'));
const host = flag('--host', '127.0.0.1');
const plainAt = args.indexOf('--plain');
const plain = plainAt >= 0;
if (plain) args.splice(plainAt, 1);
const root = path.resolve(args[0] || 'build/web');
if (!fs.existsSync(path.join(root, 'index.html'))) {
  console.error(`${root} has no index.html: build the page with "make web" first`);
  process.exit(1);
}

const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
                '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml',
                '.png': 'image/png', '.txt': 'text/plain; charset=utf-8', '.ico': 'image/x-icon' };

// Files are served only from inside the folder as the file system resolves it (symbolic links
// followed), not as the request's text reads: a link inside the folder to elsewhere is not served.
const realRoot = fs.realpathSync(root);
const inside = file => file === realRoot || file.startsWith(realRoot + path.sep);

function answer(res, status, text, extra = {}) {
  const body = Buffer.from(text + '\n');
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': body.length, 'X-Content-Type-Options': 'nosniff', ...extra });
  res.end(body);
}

// The request's path as a file under the folder, or an HTTP status for what cannot be one.
function requestedFile(req) {
  let pathname;
  try {
    pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  } catch {
    return 400;  // a path that does not decode (a lone %, bytes that are not UTF-8)
  }
  if (pathname.includes('\0')) return 400;
  return path.join(root, pathname.endsWith('/') ? pathname + 'index.html' : pathname);
}

async function handle(req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return answer(res, 405, 'only GET and HEAD', { Allow: 'GET, HEAD' });
  const file = requestedFile(req);
  if (typeof file === 'number') return answer(res, file, 'bad request: the path does not decode to a file name');
  let real, st;
  try {
    real = await fs.promises.realpath(file);
    st = await fs.promises.stat(real);
  } catch {
    return answer(res, 404, 'not found');
  }
  if (!inside(real) || !st.isFile()) return answer(res, 404, 'not found');
  // no-cache with validators, as static hosts send them: a browser asks each time and is answered
  // 304 for what has not changed, so a class on one teacher's machine does not fetch the modules
  // and the bundled model again on every visit.
  const etag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
  const headers = { 'Content-Type': types[path.extname(real).toLowerCase()] || 'application/octet-stream', 'Content-Length': st.size,
                    'Cache-Control': 'no-cache', ETag: etag, 'Last-Modified': st.mtime.toUTCString(), 'X-Content-Type-Options': 'nosniff' };
  if (!plain) Object.assign(headers, { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
  const since = Date.parse(req.headers['if-modified-since'] || '');
  const unchanged = req.headers['if-none-match'] !== undefined
    ? req.headers['if-none-match'].split(',').some(tag => tag.trim() === etag || tag.trim() === '*')
    : Math.floor(st.mtimeMs / 1000) <= Math.floor(since / 1000);
  if (unchanged) {
    delete headers['Content-Length'];
    return res.writeHead(304, headers).end();
  }
  if (req.method === 'HEAD') return res.writeHead(200, headers).end();
  const stream = fs.createReadStream(real);
  // The file went away: 404 before the answer began, else the connection ends; the server goes on.
  stream.on('error', () => (res.headersSent ? res.destroy() : answer(res, 404, 'not found')));
  stream.once('open', () => {
    res.writeHead(200, headers);
    stream.pipe(res);
  });
}

const server = http.createServer((req, res) => {
  handle(req, res).catch(() => {
    if (!res.headersSent) answer(res, 500, 'the server could not answer');
    else res.destroy();
  });
});
// A request Node's parser refuses (a malformed line, headers too large) gets 400, and the server goes on.
server.on('clientError', (err, socket) => {
  if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  else socket.destroy();
});
server.listen(port, host, () => {
  const address = server.address();
  console.log(`Serving ${root} at http://${host}:${address.port}/ (${plain ? 'plain: the single-threaded engine' : 'cross-origin isolated: the threaded engine'})`);
});
