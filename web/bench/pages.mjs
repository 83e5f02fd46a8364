// The two pages the speed benchmarks drive in headless chromium: the live page's worker (web/bench.mjs,
// web/bench-wllama.mjs) and wllama's (web/bench-wllama.mjs), each given a model's files as a
// reader's file picker would give them, then asked for runs that return prefill and decode tok/s.
import { linkSync, copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';

// Model files placed inside a served folder for the page to fetch: serve.mjs serves nothing through
// a symbolic link to elsewhere, so a hard link (same file system) or else a copy. Returns the
// folder, to be removed once the page holds the bytes.
export function placeFiles(servedDir, sub, files) {
  const dir = join(servedDir, sub);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const f of files) {
    try { linkSync(f, join(dir, basename(f))); } catch { copyFileSync(f, join(dir, basename(f))); }
  }
  return dir;
}

// A run's summary (the module's `done` message) as tok/s.
export const rates = r => ({ promptTokens: r.promptTokens, prefill: r.promptTokens / r.prefillSeconds, decode: r.decodeSteps / r.decodeSeconds, threads: r.threads, kernels: r.kernels });

// The live page at `origin` (web/serve.mjs on build/web), its engine ready, the model's files
// (placed under `sub` of the served folder) loaded into its worker. `plain`: the page is not
// isolated and its service worker bypassed, so it runs the single-threaded build. `query`: the
// page address's, say '?simd=simd128' (the SIMD128 module where the browser has relaxed SIMD).
// run(args) runs the walkthrough's command line `args` with `--model` prepended.
export async function openLivePage(browser, origin, servedDir, files, { plain = false, query = '' } = {}) {
  const page = await browser.newPage();
  // Its service worker may register and reload the page once, but answers none of its requests.
  if (plain) await page.setBypassServiceWorker(true);
  await page.goto(origin + '/' + query);
  await page.waitForFunction(() => document.body.dataset.engine === 'ready', { timeout: 120000 });
  const variant = await page.evaluate(() => live.variant), simd = await page.evaluate(() => document.body.dataset.simd);
  const dir = placeFiles(servedDir, 'bench-model', files);
  try {
    await page.evaluate(async names => {
      window.benchFiles = [];
      for (const name of names) window.benchFiles.push(new File([await (await fetch('bench-model/' + name)).blob()], name));
    }, files.map(f => basename(f)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const modelPath = await page.evaluate(() => new Promise(ok => {
    live.worker.addEventListener('message', function once(e) { if (e.data.kind === 'files') { live.worker.removeEventListener('message', once); ok(e.data.model); } });
    live.worker.postMessage({ cmd: 'files', files: window.benchFiles });
    window.benchFiles = null;
  }));
  const run = args => page.evaluate(a => new Promise((ok, fail) => {
    live.worker.addEventListener('message', function once(e) {
      if (e.data.kind !== 'done') return;
      live.worker.removeEventListener('message', once);
      const r = JSON.parse(e.data.text);
      r.ok ? ok(r) : fail(new Error(r.error));
    });
    live.worker.postMessage({ cmd: 'start', args: a, record: false });
  }), ['--model', modelPath, ...args]).then(rates);
  return { variant, simd, run, close: () => page.close() };
}

// wllama's page (web/bench/wllama_page.html with the package's esm/ beside it) at `origin`, the
// GGUF file (placed under `sub`) loaded with n_threads `threads`. run(prompt, n) completes greedily,
// end-of-text ignored, and returns llama.cpp's own prefill and decode timings.
export async function openWllamaPage(browser, origin, servedDir, file, threads) {
  const page = await browser.newPage();
  await page.goto(origin + '/');
  await page.waitForFunction(() => typeof window.bench === 'object', { timeout: 60000 });
  const dir = placeFiles(servedDir, 'bench-model', [file]);
  let info;
  try {
    info = await page.evaluate((url, t) => window.bench.load(url, t), 'bench-model/' + basename(file), threads);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const run = (prompt, n) => page.evaluate((p, k) => window.bench.run(p, k), prompt, n)
    .then(t => ({ promptTokens: t.prompt_n, prefill: t.prompt_per_second, decode: t.predicted_per_second, generated: t.predicted_n }));
  return { info, run, close: async () => { await page.evaluate(() => window.bench.unload()); await page.close(); } };
}
