#!/usr/bin/env node
// One module of the live page (a folder of make web's build/web) running the bundled model's
// command in headless chromium many times in a row, nothing else between: how a module's rate
// rises as V8 tiers its code up (--every prints each run), and a steady rate to compare kernels
// or modules by (the median of the runs after --skip). docs/web.md, "Relaxed SIMD's BF16 tiles,
// and warm-up by time", has what it measured.
//   node web/bench-back-to-back.mjs [--web build/web] [--modules single-relaxed,threads-relaxed]
//        [--runs 110] [--skip 30] [-n 8] [--prompt TEXT] [--every]
// The page is served with the cross-origin isolation headers (web/serve.mjs), which the threaded
// modules need.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, serve } from '../tests/web/browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const opts = { web: 'build/web', modules: 'single-relaxed,threads-relaxed', runs: '110', skip: '30', n: '8',
               prompt: 'In the beginning God created the heaven and the earth.', every: false };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const name = argv[i].replace(/^-+/, '');
  if (name === 'every') opts.every = true;
  else opts[name] = argv[++i];
}
const runs = Number(opts.runs), skip = Number(opts.skip);
if (!(runs > skip && skip >= 0)) { console.error(`--runs ${opts.runs} --skip ${opts.skip}: runs must be more than skip, skip 0 or more`); process.exit(2); }
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The page beside the modules' folders, for this run only.
const web = resolve(opts.web), pageDir = join(web, 'back-to-back');
mkdirSync(pageDir, { recursive: true });
for (const f of ['back_to_back.html', 'back_to_back_worker.js']) copyFileSync(join(here, 'bench', f), join(pageDir, f === 'back_to_back.html' ? 'index.html' : f));
const server = await serve(web, false);
const browser = await launch();
try {
  for (const module of opts.modules.split(',')) {
    const page = await browser.newPage();
    const query = new URLSearchParams({ module, runs: String(runs), args: JSON.stringify(['--prompt', opts.prompt, '-n', opts.n]) });
    await page.goto(`${server.origin}/back-to-back/?${query}`);
    await page.waitForFunction(() => window.result, { timeout: 600000 });
    const result = await page.evaluate(() => window.result);
    await page.close();
    if (result.error) throw new Error(`${module}: ${result.error}`);
    const kept = result.runs.slice(skip), rate = (r, f) => r[f].toFixed(0);
    console.log(`${module}: prefill ${median(kept.map(r => r.prefill)).toFixed(0)} tok/s, decode ${median(kept.map(r => r.decode)).toFixed(0)} tok/s ` +
                `(medians of runs ${skip + 1}-${runs})`);
    if (opts.every) console.log('  every run, prefill/decode: ' + result.runs.map(r => `${rate(r, 'prefill')}/${rate(r, 'decode')}`).join(' '));
  }
} finally {
  await browser.close();
  server.child.kill();
  rmSync(pageDir, { recursive: true, force: true });
}
