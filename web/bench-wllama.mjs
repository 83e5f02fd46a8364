#!/usr/bin/env node
// The live page against wllama (npm @wllama/wllama, llama.cpp compiled to WebAssembly with SIMD128
// and pthreads) and against the native CLI on its AVX2 kernels, on the same GGUF files in the same
// headless chromium (docs/web.md, Speed): prefill and decode tok/s, medians of interleaved runs.
//   node web/bench-wllama.mjs --models LABEL=FILE.gguf[,LABEL=FILE.gguf...] [--web build/web]
//        [--cli build/walkthrough/llama-walkthrough] [--prompt TEXT | --prompt-file F] [-n 16]
//        [--repeat 3] [--warmup 3] [--warmup-seconds 2] [--threads 2] [--modes threads,single]
//        [--kernels avx2]
// threads: both pages served with the cross-origin isolation headers (web/serve.mjs), the live
// page's threaded build (its pool has a thread per core: navigator.hardwareConcurrency, which must
// be N), wllama with n_threads N, the CLI with --threads N.
// single: both served without them, as a plain static host would: the live page's single-threaded
// build (its service worker bypassed), wllama's single-thread build, the CLI with --threads 1.
// Each round runs ours, wllama's and the CLI once, in turn, after warm-up rounds (printed, not
// counted): at least --warmup, and until each side's warm-up runs have taken --warmup-seconds in
// all. A fresh page runs V8's baseline (Liftoff) code until its hot functions have been compiled
// again by TurboFan: run back to back (web/bench-back-to-back.mjs), the bundled model's 8-token
// runs reached their steady rate after about 15 runs (docs/web.md, "Relaxed SIMD's BF16 tiles,
// and warm-up by time"), so a count of runs suits neither a 30 ms run nor a 3 s one. The CLI's
// runs warm the file cache. wllama is
// installed from web/bench/package-lock.json the first time; chromium is driven by tests/web's
// puppeteer-core (tests/web/prepare.sh installs it). Prints `uptime` (the machine may be shared),
// every sample and a Markdown table.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, serve } from '../tests/web/browser.mjs';
import { openLivePage, openWllamaPage } from './bench/pages.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const opts = { web: 'build/web', cli: 'build/walkthrough/llama-walkthrough', n: '16', repeat: '3', warmup: '3', warmupSeconds: '2', threads: '2', modes: 'threads,single', kernels: 'avx2',
               prompt: 'In the beginning God created the heaven and the earth. And the earth was without form, and void; and darkness was upon the face of the deep.' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) opts[argv[i].replace(/^-+/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = argv[i + 1];
if (opts.promptFile) opts.prompt = readFileSync(opts.promptFile, 'utf8').trim();
if (!opts.models) {
  console.error('usage: node web/bench-wllama.mjs --models LABEL=FILE.gguf[,LABEL=FILE.gguf...] (see the comment at the top)');
  process.exit(2);
}
const models = opts.models.split(',').map(s => { const [label, file] = s.split('='); return { label, file: resolve(file) }; });
for (const m of models) if (!m.file || !existsSync(m.file)) { console.error(`no such model file: ${m.file} (${m.label})`); process.exit(2); }
const n = Number(opts.n), repeat = Number(opts.repeat), warmup = Number(opts.warmup), warmupSeconds = Number(opts.warmupSeconds);
if (!(warmup >= 1)) { console.error(`--warmup ${opts.warmup}: at least 1 (the first run of a page loads and compiles)`); process.exit(2); }
if (!(warmupSeconds >= 0)) { console.error(`--warmup-seconds ${opts.warmupSeconds}: a number of seconds, 0 or more`); process.exit(2); }
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// wllama from npm, pinned by the lock file, and its page in a folder of its own.
const benchDir = join(here, 'bench');
if (!existsSync(join(benchDir, 'node_modules', '@wllama', 'wllama', 'package.json'))) execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: benchDir, stdio: 'inherit' });
const wllamaVersion = JSON.parse(readFileSync(join(benchDir, 'node_modules', '@wllama', 'wllama', 'package.json'), 'utf8')).version;
const wllamaDir = resolve(opts.web, '..', 'bench-wllama');
mkdirSync(join(wllamaDir, 'wllama', 'wasm'), { recursive: true });
copyFileSync(join(benchDir, 'wllama_page.html'), join(wllamaDir, 'index.html'));
for (const f of ['index.js', 'wasm/wllama.wasm']) copyFileSync(join(benchDir, 'node_modules', '@wllama', 'wllama', 'esm', f), join(wllamaDir, 'wllama', f));

function native(file, threads) {
  const out = execFileSync(resolve(opts.cli), ['--model', file, '--prompt', opts.prompt, '-n', String(n), '-q', '--threads', String(threads)],
                           { encoding: 'utf8', env: { ...process.env, LLAMA_KERNELS: opts.kernels } });
  const m = out.match(/Prompt tokens: (\d+) \| generated tokens: (\d+) \| prefill: ([0-9.]+) tok\/s \| decode: ([0-9.]+) tok\/s/);
  if (!m) throw new Error('no summary line in the native output:\n' + out);
  return { promptTokens: +m[1], prefill: +m[3], decode: +m[4] };
}

const load = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
console.log(`start: ${load()}`);
const chromiumVersion = execFileSync(process.env.CHROMIUM || '/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim();
const servers = {
  live: { threads: await serve(resolve(opts.web), false), single: await serve(resolve(opts.web), true) },
  wllama: { threads: await serve(wllamaDir, false), single: await serve(wllamaDir, true) },
};
const browser = await launch();
const rows = [];
let libllama = '';
try {
  for (const model of models) {
    for (const mode of opts.modes.split(',')) {
      const threads = mode === 'threads' ? Number(opts.threads) : 1;
      const ours = await openLivePage(browser, servers.live[mode].origin, resolve(opts.web), [model.file], { plain: mode === 'single' });
      if (ours.variant !== mode) throw new Error(`the live page runs its ${ours.variant} build where the ${mode} one was asked for`);
      const theirs = await openWllamaPage(browser, servers.wllama[mode].origin, wllamaDir, model.file, threads);
      libllama = theirs.info.libllama;
      if (theirs.info.multithread !== (mode === 'threads')) throw new Error(`wllama is ${theirs.info.multithread ? '' : 'not '}multithreaded where ${mode} was asked for`);
      const oursArgs = ['--prompt', opts.prompt, '-n', String(n)];
      const s = { ours: [], wllama: [], native: [] }, warm = { ours: [], wllama: [], native: [] };
      const warmSeconds = { ours: 0, wllama: 0, native: 0 };
      // One round: ours, wllama's and the CLI's run, in turn, each kept in `into` (and its
      // seconds added to `seconds`).
      const round = async (into, seconds) => {
        const timed = async (side, run) => {
          const t0 = performance.now();
          into[side].push(await run());
          if (seconds) seconds[side] += (performance.now() - t0) / 1000;
        };
        await timed('ours', () => ours.run(oursArgs));
        await timed('wllama', () => theirs.run(opts.prompt, n));
        await timed('native', async () => native(model.file, threads));
      };
      while (warm.ours.length < warmup || Object.values(warmSeconds).some(t => t < warmupSeconds)) await round(warm, warmSeconds);
      const first = warm.ours[0];
      if (mode === 'threads' && first.threads !== threads) throw new Error(`the live page's pool has ${first.threads} threads (one per core), not ${threads}: pass --threads ${first.threads}`);
      for (let i = 0; i < repeat; i++) await round(s);
      await ours.close();
      await theirs.close();
      const med = (k, f) => median(s[k].map(x => x[f]));
      const row = { label: model.label, mode, threads, kernels: first.kernels, prompt: `${s.ours[0].promptTokens}/${s.wllama[0].promptTokens}`, samples: s };
      for (const f of ['prefill', 'decode']) row[f] = { ours: med('ours', f), wllama: med('wllama', f), native: med('native', f) };
      rows.push(row);
      console.log(`${model.label}, ${mode} (${threads} thread${threads > 1 ? 's' : ''}; ours: ${first.kernels} kernels), prompt tokens ours/wllama ${row.prompt}; samples prefill/decode tok/s:`);
      const rounds = xs => xs.map(x => x.prefill.toFixed(1) + '/' + x.decode.toFixed(1)).join('  ');
      // The warm-up's first three runs and its last three (all where they are six or fewer).
      const warmed = xs => xs.length <= 6 ? rounds(xs) : `${rounds(xs.slice(0, 3))} ... ${rounds(xs.slice(-3))}`;
      for (const k of Object.keys(s)) console.log(`  ${k}: ${rounds(s[k])}   (${warm[k].length} warm-up runs, ${warmSeconds[k].toFixed(1)} s: ${warmed(warm[k])})`);
    }
  }
} finally {
  await browser.close();
  for (const group of Object.values(servers)) for (const sv of Object.values(group)) sv.child.kill();
}

console.log(`end: ${load()}`);
console.log(`${chromiumVersion}; wllama ${wllamaVersion} (libllama ${libllama}); native: ${opts.cli} with LLAMA_KERNELS=${opts.kernels}; ${n} generated tokens, median of ${repeat} after warm-up runs (at least ${warmup}, and ${warmupSeconds} s) of each`);
console.log('\n| model | threads | phase | ours tok/s | wllama tok/s | native ' + opts.kernels + ' tok/s | ours / wllama | ours / native |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows)
  for (const f of ['prefill', 'decode']) {
    const v = r[f];
    console.log(`| ${r.label} | ${r.threads} | ${f} | ${v.ours.toFixed(1)} | ${v.wllama.toFixed(1)} | ${v.native.toFixed(1)} | ${(v.ours / v.wllama).toFixed(2)}x | ${(v.ours / v.native).toFixed(2)}x |`);
  }
process.exit(0);
