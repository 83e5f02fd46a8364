// web/serve.mjs, the server a teacher runs for a class, against a table of hostile requests: each
// gets its answer (400, 404, 405, or the file with its type and the isolation headers), nothing
// outside the folder is served however the path is spelled or linked, and the server answers the
// next request afterwards. Node only: raw requests over a socket, so that malformed ones are sent
// as they are.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const serveScript = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web', 'serve.mjs');
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
};

// A page folder with a subfolder, and links inside it to a secret file and a folder outside it.
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'serve-test-'));
const root = path.join(work, 'web'), outside = path.join(work, 'outside');
fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
fs.mkdirSync(outside);
fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>page</title>');
fs.writeFileSync(path.join(root, 'engine.js'), 'export {};');
fs.writeFileSync(path.join(root, 'engine.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d]));
fs.writeFileSync(path.join(root, 'sub', 'index.html'), 'sub');
fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET');
fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link-to-secret.txt'));
fs.symlinkSync(outside, path.join(root, 'link-to-outside'));
fs.symlinkSync(path.join(root, 'engine.js'), path.join(root, 'link-inside.js'));

function serve(extra = []) {
  return new Promise((resolve, reject) => {
    const child = spawn('node', [serveScript, root, '--port', '0', ...extra]);
    child.stdout.on('data', d => {
      const m = String(d).match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', code => reject(new Error('serve.mjs exited with ' + code)));
  });
}

// One request as raw bytes; the status, the headers and the body of the answer.
function raw(port, request) {
  return new Promise(resolve => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks = [];
    socket.on('data', d => chunks.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      const lines = head.split('\r\n');
      const headers = Object.fromEntries(lines.slice(1).map(l => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number((lines[0].match(/^HTTP\/1\.1 (\d+)/) || [])[1] || 0), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(request);  // not end(): the server answers, then closes (Connection: close)
  });
}
const get = (port, target, method = 'GET') => raw(port, `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);

const { child, port } = await serve();
try {
  const table = [
    ['/', 200], ['/engine.js', 200], ['/sub/', 200], ['/sub/../engine.js', 200], ['/link-inside.js', 200],
    ['/%', 400], ['/%E0%A4%A', 400], ['/%FF', 400], ['/a%00b', 400], ['/engine.js%00.html', 400],
    ['/../outside/secret.txt', 404], ['/%2e%2e/outside/secret.txt', 404], ['/..%2foutside%2fsecret.txt', 404],
    ['/%2e%2e%5coutside%5csecret.txt', 404], ['//etc/passwd', 404], ['/link-to-secret.txt', 404], ['/link-to-outside/secret.txt', 404],
    ['/sub', 404], ['/missing.html', 404], [`${'/x'.repeat(2000)}`, 404], ['http://evil.example/../../etc/passwd', 404],
  ];
  for (const [target, status] of table) {
    const r = await get(port, target);
    check(r.status === status && !r.body.includes('SECRET') && !r.body.includes('root:'), `GET ${target.slice(0, 60)} -> ${r.status} (expected ${status})`);
  }
  for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
    const r = await get(port, '/index.html', method);
    check(r.status === 405 && r.headers.allow === 'GET, HEAD', `${method} -> ${r.status} with Allow: ${r.headers.allow}`);
  }
  const head = await get(port, '/engine.wasm', 'HEAD');
  check(head.status === 200 && head.body === '' && head.headers['content-length'] === '4', 'HEAD: the headers and no body');
  for (const [file, type] of [['/engine.js', 'text/javascript; charset=utf-8'], ['/engine.wasm', 'application/wasm'], ['/', 'text/html; charset=utf-8']]) {
    const r = await get(port, file);
    check(r.headers['content-type'] === type && r.headers['x-content-type-options'] === 'nosniff' &&
          r.headers['cross-origin-opener-policy'] === 'same-origin' && r.headers['cross-origin-embedder-policy'] === 'require-corp',
          `${file}: ${r.headers['content-type']}, nosniff and the isolation headers`);
  }
  // Validators, as static hosts send them: an unchanged file is answered 304 (no body, the isolation
  // headers kept), a changed one in full.
  const conditional = (target, header) => raw(port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${header}\r\nConnection: close\r\n\r\n`);
  const first = await get(port, '/engine.wasm');
  const etag = first.headers.etag, modified = first.headers['last-modified'];
  check(first.headers['cache-control'] === 'no-cache' && /^W\/"[0-9a-f]+-[0-9a-f]+"$/.test(etag || '') && !Number.isNaN(Date.parse(modified)),
        `a file's validators: ETag ${etag}, Last-Modified ${modified}, Cache-Control no-cache`);
  const same = await conditional('/engine.wasm', `If-None-Match: "other", ${etag}`);
  check(same.status === 304 && same.body === '' && same.headers.etag === etag && same.headers['cross-origin-embedder-policy'] === 'require-corp',
        `If-None-Match with its ETag -> ${same.status}, no body, the isolation headers`);
  check((await conditional('/engine.wasm', 'If-None-Match: W/"4-0"')).status === 200, 'If-None-Match with another ETag -> the file');
  check((await conditional('/engine.wasm', `If-Modified-Since: ${modified}`)).status === 304, 'If-Modified-Since its Last-Modified -> 304');
  check((await conditional('/engine.wasm', 'If-Modified-Since: not a date')).status === 200, 'If-Modified-Since that is no date -> the file');
  fs.writeFileSync(path.join(root, 'engine.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  const changed = await conditional('/engine.wasm', `If-None-Match: ${etag}`);
  check(changed.status === 200 && changed.headers['content-length'] === '8' && changed.headers.etag !== etag, 'a changed file -> 200, the new bytes and a new ETag');
  // What Node's parser refuses: a malformed request line, a header past its size limit.
  for (const [what, request] of [['garbage', 'NOT HTTP AT ALL\r\n\r\n'], ['a control byte in the target', 'GET /a\x01b HTTP/1.1\r\nHost: x\r\n\r\n'],
                                 ['headers of 64 KiB', `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(65536)}\r\n\r\n`]]) {
    const r = await raw(port, request);
    check(r.status === 400 || r.status === 431, `${what} -> ${r.status}`);
  }
  const after = await get(port, '/engine.js');
  check(after.status === 200 && after.body === 'export {};', 'the server still answers after every request above');
  check(child.exitCode === null, 'the server is still running');
  const plain = await serve(['--plain']);
  const r = await get(plain.port, '/engine.js');
  plain.child.kill();
  check(r.status === 200 && !('cross-origin-opener-policy' in r.headers), '--plain: no isolation headers');
} finally {
  child.kill();
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(failures ? `${failures} failed` : 'all passed');
process.exit(failures ? 1 : 0);
