#!/usr/bin/env node
// What a model costs the live page in memory (docs/web.md, "What fits"): in headless chromium, the
// page (threaded engine, cross-origin isolated by web/serve.mjs) opens each model file through its
// file input and runs it, and the figures are read at each point: the module's memory (its size
// and the bytes malloc has handed out, from the worker's 'memory' answer) and the renderer
// process's (from /proc: its resident memory, the part of it that is the module's memory, the
// rest: chromium's own code and heaps, the page, the trace in the memory file system; and its
// private memory, RssAnon: the resident memory less chromium's code and other files mapped, which
// other processes share). Each file
// is measured in three fresh pages: one opens it and runs it unrecorded (the engine alone, as
// web/bench.mjs times it), one runs it recorded but asks for no panels (the engine, the trace's
// recorder and its read-back check), one runs it with the page's Run (recorded, the panels
// drawn): the figure the page leaves a reader with.
//   node web/memory.mjs [--web build/web] [--prompt TEXT] [-n 16] MODEL.gguf...
import { statSync } from 'node:fs';
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
const { launch, serve, rendererMemory } = await import(join(here, '..', 'tests', 'web', 'browser.mjs'));
const { moduleMemory, run } = await import(join(here, '..', 'tests', 'web', 'live_session.mjs'));
const gb = n => (n == null || Number.isNaN(n) ? '-' : (n / 1e9).toFixed(2));

const browser = await launch();
const server = await serve(resolve(opts.web), false);
console.log(`chromium ${await browser.version()}, ${opts.web}, prompt ${JSON.stringify(opts.prompt)}, -n ${opts.n}`);
console.log('| file | size GB | after | heap GB | malloc in use GB | renderer RSS GB | of it the heap GB | the rest GB | RSS / size | private GB | private / size |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
const row = async (page, file, after) => {
  await new Promise(r => setTimeout(r, 1000));  // the page's last drawing settled
  const m = await moduleMemory(page);
  const r = rendererMemory(browser, m.heapBytes);
  const size = statSync(file).size;
  console.log(`| ${basename(file)} | ${gb(size)} | ${after} | ${gb(m.heapBytes)} | ${gb(m.inUseBytes)} | ${gb(r.rss)} | ${gb(r.heap)} | ${gb(r.rss - r.heap)} | ${(r.rss / size).toFixed(2)} | ${gb(r.anon)} | ${(r.anon / size).toFixed(2)} |`);
};
try {
  for (const file of files) {
    for (const how of ['unrecorded', 'recorded', 'page']) {
      const recorded = how === 'page';
      const page = await browser.newPage();
      await page.goto(server.origin + '/');
      await page.waitForFunction(() => document.body.dataset.engine, { timeout: 120000 });
      const variant = await page.evaluate(() => live.variant);
      if (variant !== 'threads') throw new Error(`the page runs the ${variant} engine, not the threaded one`);
      if (how === 'unrecorded') await row(page, file, 'page ready (the bundled model read in)');
      await (await page.$('#model-files')).uploadFile(file);
      await page.waitForFunction(() => /Your model/.test(document.getElementById('model-name').textContent) || document.getElementById('live-error').textContent,
                                 { timeout: 600000 });
      const openError = await page.$eval('#live-error', e => e.textContent);
      if (openError) {
        await row(page, file, 'refused: ' + openError.slice(0, 200));
        await page.close();
        break;
      }
      if (how === 'unrecorded') await row(page, file, 'file read in');
      let state;
      if (recorded) {
        const r = await run(page, opts.prompt, `-n ${opts.n}`, '#run', 1800);
        state = r.state === 'done' ? 'done' : `${r.state} ${r.error}`;
      } else {
        // The worker's own answer, not the page's: no panels asked for or drawn.
        state = await page.evaluate((prompt, n, record) => new Promise(done => {
          const saved = live.worker.onmessage;
          live.worker.onmessage = e => {
            if (e.data.kind !== 'done') return;
            live.worker.onmessage = saved;
            const r = JSON.parse(e.data.text);
            done(r.ok ? 'done' : r.error);
          };
          live.worker.postMessage({ cmd: 'start', args: ['--model', live.model, '--prompt', prompt, '-n', n], record });
        }), opts.prompt, opts.n, how === 'recorded');
      }
      const after = { unrecorded: 'a run unrecorded', recorded: 'a run recorded, no panels', page: 'the page\'s Run (recorded, panels drawn)' }[how];
      await row(page, file, after + (state === 'done' ? '' : ': ' + state.slice(0, 200)));
      await page.close();
    }
  }
} finally {
  await browser.close();
  server.child.kill();
}
