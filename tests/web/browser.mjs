// Debian's chromium, headless, driven by puppeteer-core (which downloads no browser): pages are
// opened from file:// with request interception on, so any request that is not the page's own
// files is aborted and counted, and every console error or page error is collected.
import puppeteer from 'puppeteer-core';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export async function launch() {
  return puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    // As root chromium needs --no-sandbox; no GPU in a headless test.
    args: ['--no-sandbox', '--disable-gpu'],
    headless: true,
  });
}

// The browser's largest renderer process (of its descendants, those started with
// --type=renderer), from /proc: its resident bytes (rss), those of its mapping of `heapBytes` bytes
// (heap: a module's memory is one anonymous mapping as large as the memory has grown) and its
// private resident bytes (anon, RssAnon: less chromium's code and the other files it maps, which
// other processes share).
export function rendererMemory(browser, heapBytes) {
  const parents = new Map();
  for (const pid of readdirSync('/proc').filter(d => /^\d+$/.test(d))) {
    try {
      parents.set(+pid, +readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[1]);
    } catch { /* gone */ }
  }
  const browserPid = browser.process().pid;
  const descends = pid => { for (let p = pid; p > 1; p = parents.get(p)) if (p === browserPid) return true; return false; };
  const found = [];
  for (const pid of parents.keys()) {
    try {
      if (!descends(pid) || !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      let rss = 0, heap = 0, size = 0;
      for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
        const range = line.match(/^([0-9a-f]+)-([0-9a-f]+) /);
        if (range) size = parseInt(range[2], 16) - parseInt(range[1], 16);
        const kb = line.match(/^Rss:\s+(\d+) kB/);
        if (kb) {
          rss += 1024 * +kb[1];
          if (size === heapBytes) heap = 1024 * +kb[1];
        }
      }
      const anon = 1024 * +readFileSync(`/proc/${pid}/status`, 'utf8').match(/^RssAnon:\s+(\d+) kB/m)[1];
      found.push({ pid, rss, heap, anon });
    } catch { /* gone */ }
  }
  return found.sort((a, b) => b.rss - a.rss)[0];
}

// Serves `dir` with web/serve.mjs on a free port of 127.0.0.1, with the cross-origin isolation
// headers or, `plain`, without them: the server's process and its origin.
const serveScript = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web', 'serve.mjs');
export function serve(dir, plain) {
  return new Promise((resolve, reject) => {
    const child = spawn('node', [serveScript, dir, '--port', '0', ...(plain ? ['--plain'] : [])]);
    child.stdout.on('data', d => {
      const m = String(d).match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve({ child, origin: `http://127.0.0.1:${m[1]}` });
    });
    child.on('exit', code => reject(new Error('serve.mjs exited with ' + code)));
  });
}

// Opens `file` (a path) with `hash`; `allowed(url)` says which file: URLs the page may load
// (its own by default); `runPage` waits for a run page's script. Returns the page and what it did.
export async function open(browser, file, { hash = '', viewport = { width: 1366, height: 768 }, allowed, runPage = true } = {}) {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const url = pathToFileURL(file).href;
  const log = { errors: [], blocked: [], requests: [] };
  page.on('console', m => { if (m.type() === 'error') log.errors.push(m.text()); });
  page.on('pageerror', e => log.errors.push(String(e)));
  await page.setRequestInterception(true);
  page.on('request', r => {
    const u = r.url().split('#')[0];
    log.requests.push(u);
    const ok = allowed ? allowed(u) : u === url;
    if (ok) r.continue();
    else { log.blocked.push(u); r.abort(); }
  });
  const t0 = Date.now();
  await page.goto(url + hash, { waitUntil: 'load' });
  // A run page says when its script is done (body[data-ready]); a chapter page is done at load.
  if (runPage) await page.waitForFunction(() => document.body && document.body.dataset.ready, { timeout: 15000 }).catch(() => {});
  log.loadMs = Date.now() - t0;
  return { page, log, url };
}

// A screenshot is real content: decoded in the browser, most of it is not one colour and it has
// many colours (text, tables, a heatmap).
export async function screenshotStats(browser, png) {
  const page = await browser.newPage();
  const stats = await page.evaluate(async b64 => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const counts = new Map();
    for (let i = 0; i < d.length; i += 16) {
      const k = (d[i] >> 3) << 10 | (d[i + 1] >> 3) << 5 | (d[i + 2] >> 3);
      counts.set(k, (counts.get(k) || 0) + 1);
    }
    const total = d.length / 16;
    return { width: c.width, height: c.height, colours: counts.size, dominant: Math.max(...counts.values()) / total };
  }, png.toString('base64'));
  await page.close();
  return stats;
}

let failures = 0;
export function check(ok, what, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? ': ' + detail : ''}`);
  if (!ok) failures++;
}
export function done() {
  console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
  process.exit(failures ? 1 : 0);
}
