#!/usr/bin/env node
// The browser build's speed against the native build's, one model, prompt and thread count in one
// run (docs/web.md's table): decode and prefill tok/s of the native CLI, of the threaded module
// under Node, and of the live page's worker in headless chromium, each repeated, medians quoted.
// Nothing watches the runs (no trace), as in `llama-walkthrough -q`.
//   node web/bench.mjs --cli build/walkthrough/llama-walkthrough --web build/web --model PATH
//        [--prompt-file F | --prompt TEXT] [-n 64] [--repeat 3] [--threads 2] [--label NAME]
//        [--also-kernels avx2]
// --also-kernels times the native CLI a second time on another kernel path (LLAMA_KERNELS), the
// yardstick of a CPU without the fastest one (avx2: a machine without AVX-512, Zen 3), and puts
// that column and the module's ratio to it beside the first.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve, basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const opts = { cli: 'build/walkthrough/llama-walkthrough', web: 'build/web', model: 'assets/model', n: '64', repeat: '3', threads: '2', prompt: 'In the beginning God created' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) opts[argv[i].replace(/^-+/, '').replace('prompt-file', 'promptFile')] = argv[i + 1];
if (opts.promptFile) opts.prompt = readFileSync(opts.promptFile, 'utf8').trim();
const here = dirname(fileURLToPath(import.meta.url));
const model = resolve(opts.model);
const runArgs = modelPath => ['--model', modelPath, '--prompt', opts.prompt, '-n', opts.n];
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function native(kernels) {
  const env = kernels ? { ...process.env, LLAMA_KERNELS: kernels } : process.env;
  const out = execFileSync(resolve(opts.cli), [...runArgs(model), '-q', '--threads', opts.threads], { encoding: 'utf8', env });
  const m = out.match(/Prompt tokens: (\d+) \| generated tokens: (\d+) \| prefill: ([0-9.]+) tok\/s \| decode: ([0-9.]+) tok\/s/);
  if (!m) throw new Error('no summary line in the native output:\n' + out);
  return { promptTokens: +m[1], prefill: +m[3], decode: +m[4] };
}
const rates = r => ({ promptTokens: r.promptTokens, prefill: r.promptTokens / r.prefillSeconds, decode: r.decodeSteps / r.decodeSeconds });

// The model's files as the module sees them: a folder's files under /bench/model, or one file.
function modelFiles() {
  return statSync(model).isDirectory() ? readdirSync(model).map(f => [join(model, f), '/bench/model/' + f]) : [[model, '/bench/model/' + basename(model)]];
}
const moduleModelPath = () => (statSync(model).isDirectory() ? '/bench/model' : '/bench/model/' + basename(model));

async function nodeModule() {
  const dir = resolve(opts.web, opts.variant || 'threads');
  const require = createRequire(import.meta.url);
  const create = require(join(dir, 'llama-walkthrough.js'));
  let onDone = null;
  globalThis.self = { postMessage: m => { if (m.kind === 'done' && onDone) onDone(JSON.parse(m.text)); } };
  // Node 20 cannot fetch() the .wasm by path: the bytes are given.
  const M = await create({ wasmBinary: readFileSync(join(dir, 'llama-walkthrough.wasm')), mainScriptUrlOrBlob: join(dir, 'llama-walkthrough.js') });
  M.FS.mkdirTree('/bench/model');
  for (const [from, to] of modelFiles()) M.FS.writeFile(to, readFileSync(from));
  return () => new Promise((resolveRun, reject) => {
    onDone = r => (r.ok ? resolveRun(rates(r)) : reject(new Error(r.error)));
    M.start(JSON.stringify(runArgs(moduleModelPath())), false, false);
  });
}

async function chromiumPage() {
  const { launch } = await import(join(here, '..', 'tests', 'web', 'browser.mjs'));
  const server = spawn('node', [join(here, 'serve.mjs'), resolve(opts.web), '--port', '0']);
  const origin = await new Promise(ok => server.stdout.on('data', d => { const m = String(d).match(/(http:\/\/127\.0\.0\.1:\d+)\//); if (m) ok(m[1]); }));
  const browser = await launch();
  const page = await browser.newPage();
  await page.goto(origin + '/');
  await page.waitForFunction(() => document.body.dataset.engine === 'ready', { timeout: 60000 });
  // The model's files go to the worker as the file picker would give them, fetched from the page's
  // own server (linked into its folder for the run: a file of hundreds of MB cannot cross as a string).
  const linkDir = join(resolve(opts.web), 'bench-model');
  rmSync(linkDir, { recursive: true, force: true });
  mkdirSync(linkDir);
  for (const [from] of modelFiles()) symlinkSync(from, join(linkDir, basename(from)));
  await page.evaluate(async names => {
    window.benchFiles = [];
    for (const name of names) window.benchFiles.push(new File([await (await fetch('bench-model/' + name)).blob()], name));
  }, modelFiles().map(([from]) => basename(from)));
  rmSync(linkDir, { recursive: true, force: true });
  const modelPath = await page.evaluate(() => new Promise(ok => {
    live.worker.addEventListener('message', function once(e) { if (e.data.kind === 'files') { live.worker.removeEventListener('message', once); ok(e.data.model); } });
    live.worker.postMessage({ cmd: 'files', files: window.benchFiles });
  }));
  const run = () => page.evaluate(args => new Promise((ok, fail) => {
    live.worker.addEventListener('message', function once(e) {
      if (e.data.kind !== 'done') return;
      live.worker.removeEventListener('message', once);
      const r = JSON.parse(e.data.text);
      r.ok ? ok(r) : fail(new Error(r.error));
    });
    live.worker.postMessage({ cmd: 'start', args, record: false });
  }), runArgs(modelPath)).then(rates);
  return { run, close: async () => { await browser.close(); server.kill(); } };
}

const also = opts['also-kernels'];
const samples = { native: [], also: [], node: [], chromium: [] };
const nodeRun = await nodeModule();
const page = await chromiumPage();
await nodeRun(); await page.run(); native();  // warm-up: first loads and compiles
for (let i = 0; i < Number(opts.repeat); i++) {
  samples.native.push(native());
  if (also) samples.also.push(native(also));
  samples.node.push(await nodeRun());
  samples.chromium.push(await page.run());
}
await page.close();
const med = (k, f) => median(samples[k].map(s => s[f]));
const label = opts.label || basename(model);
console.log(`${label}: ${samples.native[0].promptTokens} prompt tokens, ${opts.n} generated, ${opts.threads} threads, median of ${opts.repeat}`);
// A module's rate and its ratio to each native column.
const nativeColumns = also ? ['native', 'also'] : ['native'];
const against = (k, f) => `${med(k, f).toFixed(1)} (${nativeColumns.map(n => (med(k, f) / med(n, f)).toFixed(2) + 'x').join(' / ')})`;
for (const f of ['prefill', 'decode'])
  console.log(`| ${label} | ${f} | ${med('native', f).toFixed(1)} | ${also ? med('also', f).toFixed(1) + ' | ' : ''}${against('node', f)} | ${against('chromium', f)} |`);
console.log('every sample (prefill/decode tok/s):');
for (const k of Object.keys(samples)) if (samples[k].length) console.log(`  ${k}: ${samples[k].map(s => s.prefill.toFixed(1) + '/' + s.decode.toFixed(1)).join('  ')}`);
process.exit(0);
