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
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve, basename } from 'node:path';
import { launch, serve } from '../tests/web/browser.mjs';
import { openLivePage, rates } from './bench/pages.mjs';

const opts = { cli: 'build/walkthrough/llama-walkthrough', web: 'build/web', model: 'assets/model', n: '64', repeat: '3', threads: '2', prompt: 'In the beginning God created' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) opts[argv[i].replace(/^-+/, '').replace('prompt-file', 'promptFile')] = argv[i + 1];
if (opts.promptFile) opts.prompt = readFileSync(opts.promptFile, 'utf8').trim();
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
  const browser = await launch();
  const server = await serve(resolve(opts.web), false);
  const files = modelFiles().map(([from]) => from);
  const page = await openLivePage(browser, server.origin, resolve(opts.web), files);
  const run = () => page.run(runArgs(moduleModelPath()).slice(2));
  return { run, close: async () => { await browser.close(); server.child.kill(); } };
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
