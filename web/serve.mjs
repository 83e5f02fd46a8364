#!/usr/bin/env node
// Serves the live page (make web's build/web) on this machine, with the two headers that make it
// cross-origin isolated, so the threaded engine runs (COOP same-origin + COEP require-corp); with
// --plain, without them, as a plain static host would (the page then runs the single-threaded
// engine). Node's own http module: nothing to install.
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

const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
                '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png' };

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const file = path.join(root, decodeURIComponent(url.pathname).replace(/\/$/, '/index.html'));
  if (!file.startsWith(root + path.sep)) { res.writeHead(403).end('outside the page folder'); return; }
  fs.stat(file, (err, st) => {
    if (err || !st.isFile()) { res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: ' + url.pathname); return; }
    const headers = { 'Content-Type': types[path.extname(file)] || 'application/octet-stream', 'Content-Length': st.size, 'Cache-Control': 'no-cache' };
    if (!plain) Object.assign(headers, { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
    res.writeHead(200, headers);
    fs.createReadStream(file).pipe(res);
  });
});
server.listen(port, host, () => {
  const address = server.address();
  console.log(`Serving ${root} at http://${host}:${address.port}/ (${plain ? 'plain: the single-threaded engine' : 'cross-origin isolated: the threaded engine'})`);
});
