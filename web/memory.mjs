#!/usr/bin/env node
// What a model costs the live page in memory (docs/web.md, "What fits"): in headless chromium, the
// page (threaded engine, cross-origin isolated by web/serve.mjs) opens each model file through its
// file input, runs it, and the figures are read: the file's size, the module's memory (its size and
// the bytes malloc has handed out, from the worker's 'memory' answer), and the renderer process's
// resident memory (VmRSS and Pss of the largest chromium renderer, from /proc). Each file in a page
// of its own.
//   node web/memory.mjs [--web build/web] [--prompt TEXT] [-n 16] MODEL.gguf...
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, dirname, basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const opts = { web: 'build/web', n: '16', prompt: 'In the beginning God created' };
const files = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i].startsWith('-')) opts[argv[i].replace(/^-+/, '')] = argv[++i];
  else files.push(resolve(argv[i]));
}
if (!files.length) throw new Error('usage: node web/memory.mjs [--web DIR] [--prompt TEXT] [-n N] MODEL...');
const here = dirname(fileURLToPath(import.meta.url));
const { launch, serve } = await import(join(here, '..', 'tests', 'web', 'browser.mjs'));
const gb = n => (n == null || Number.isNaN(n) ? '-' : (n / 1e9).toFixed(2));

// The browser's renderer processes (its descendants started with --type=renderer): resident and
// proportional set sizes in bytes.
function renderers(browserPid) {
  const children = new Map();
  for (const pid of readdirSync('/proc').filter(d => /^\d+$/.test(d))) {
    try {
      const ppid = +readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[1];
      children.set(+pid, ppid);
    } catch { /* gone */ }
  }
  const descends = pid => { for (let p = pid; p > 1; p = children.get(p)) if (p === browserPid) return true; return false; };
  const out = [];
  for (const pid of children.keys()) {
    try {
      if (!descends(pid) || !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const kb = key => 1024 * +(rollup.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm')) || [0, 0])[1];
      out.push({ pid, rss: kb('Rss'), pss: kb('Pss') });
    } catch { /* gone */ }
  }
  return out.sort((a, b) => b.rss - a.rss);
}

// The worker's answer, or nulls from a page built before it answered one.
const memory = page => page.evaluate(() => new Promise(done => {
  const answer = e => { if (e.data.kind === 'memory') { live.worker.removeEventListener('message', answer); done(e.data); } };
  live.worker.addEventListener('message', answer);
  live.worker.postMessage({ cmd: 'memory' });
  setTimeout(() => done({ heapBytes: NaN, inUseBytes: NaN }), 10000);
}));

const browser = await launch();
const server = await serve(resolve(opts.web), false);
console.log(`chromium ${await browser.version()}, ${opts.web}, prompt ${JSON.stringify(opts.prompt)}, -n ${opts.n}`);
console.log('| file | size GB | heap GB | malloc in use GB | renderer RSS GB | renderer Pss GB | RSS / size | run |');
console.log('|---|---|---|---|---|---|---|---|');
try {
  for (const file of files) {
    const page = await browser.newPage();
    await page.goto(server.origin + '/');
    await page.waitForFunction(() => document.body.dataset.engine, { timeout: 120000 });
    const variant = await page.evaluate(() => live.variant);
    if (variant !== 'threads') throw new Error(`the page runs the ${variant} engine, not the threaded one`);
    await (await page.$('#model-files')).uploadFile(file);
    await page.waitForFunction(() => /Your model/.test(document.getElementById('model-name').textContent) || document.getElementById('live-error').textContent,
                               { timeout: 600000 });
    const openError = await page.$eval('#live-error', e => e.textContent);
    let state = openError ? 'refused: ' + openError : '';
    if (!openError) {
      await page.$eval('#prompt', (e, v) => { e.value = v; }, opts.prompt);
      await page.$eval('#extra', (e, v) => { e.value = v; }, `-n ${opts.n}`);
      await page.evaluate(() => { document.body.dataset.run = ''; });
      await page.$eval('#run', e => e.click());
      await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.run), { timeout: 1800000 });
      state = await page.evaluate(() => document.body.dataset.run === 'done' ? 'done' : 'error: ' + document.getElementById('live-error').textContent);
    }
    const m = await memory(page);
    const [r] = renderers(browser.process().pid);
    const size = statSync(file).size;
    console.log(`| ${basename(file)} | ${gb(size)} | ${gb(m.heapBytes)} | ${gb(m.inUseBytes)} | ${gb(r.rss)} | ${gb(r.pss)} | ${(r.rss / size).toFixed(2)} | ${state.slice(0, 300)} |`);
    await page.close();
  }
} finally {
  await browser.close();
  server.child.kill();
}
