#!/usr/bin/env node
// The live page's two threaded modules against each other in headless chromium: the one built with
// relaxed SIMD (what a browser that has it runs) and the SIMD128 one (its fallback, asked for by
// ?simd=simd128), on the same GGUF files in two pages served with the cross-origin isolation
// headers (docs/web.md, Speed): prefill and decode tok/s, medians of interleaved runs (each round
// runs one module, then the other, after one warm-up of each). Prints `uptime` (the machine may be
// shared), every sample and a Markdown table.
//   node web/bench-simd.mjs --models LABEL=FILE.gguf[,LABEL=FILE.gguf...] [--web build/web]
//        [--prompt TEXT] [-n 16] [--repeat 5]
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { launch, serve } from '../tests/web/browser.mjs';
import { openLivePage } from './bench/pages.mjs';

const opts = { web: 'build/web', n: '16', repeat: '5',
               prompt: 'In the beginning God created the heaven and the earth. And the earth was without form, and void; and darkness was upon the face of the deep.' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) opts[argv[i].replace(/^-+/, '')] = argv[i + 1];
if (!opts.models) {
  console.error('usage: node web/bench-simd.mjs --models LABEL=FILE.gguf[,LABEL=FILE.gguf...] (see the comment at the top)');
  process.exit(2);
}
const models = opts.models.split(',').map(s => { const [label, file] = s.split('='); return { label, file: resolve(file) }; });
for (const m of models) if (!m.file || !existsSync(m.file)) { console.error(`no such model file: ${m.file} (${m.label})`); process.exit(2); }
const repeat = Number(opts.repeat);
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

console.log(`start: ${load()}`);
const chromiumVersion = execFileSync(process.env.CHROMIUM || '/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim();
const server = await serve(resolve(opts.web), false);
const browser = await launch();
const rows = [];
try {
  for (const model of models) {
    const pages = { relaxed: await openLivePage(browser, server.origin, resolve(opts.web), [model.file]),
                    simd128: await openLivePage(browser, server.origin, resolve(opts.web), [model.file], { query: '?simd=simd128' }) };
    if (pages.relaxed.simd !== 'relaxed' || pages.simd128.simd !== 'simd128 asked')
      throw new Error(`the pages run the ${pages.relaxed.simd} and ${pages.simd128.simd} modules, not relaxed and simd128: is this browser without relaxed SIMD?`);
    const args = ['--prompt', opts.prompt, '-n', opts.n];
    const s = { relaxed: [], simd128: [] }, kernels = {};
    for (const k of Object.keys(pages)) kernels[k] = (await pages[k].run(args)).kernels;  // warm-up: the JIT, the caches
    for (let i = 0; i < repeat; i++) for (const k of Object.keys(pages)) s[k].push(await pages[k].run(args));
    for (const p of Object.values(pages)) await p.close();
    const row = { label: model.label, threads: s.relaxed[0].threads, prompt: s.relaxed[0].promptTokens };
    for (const f of ['prefill', 'decode']) row[f] = { relaxed: median(s.relaxed.map(x => x[f])), simd128: median(s.simd128.map(x => x[f])) };
    rows.push(row);
    console.log(`${model.label}: ${row.prompt} prompt tokens, ${row.threads} threads, kernels ${kernels.relaxed} / ${kernels.simd128}; samples prefill/decode tok/s:`);
    for (const k of Object.keys(s)) console.log(`  ${k}: ${s[k].map(x => x.prefill.toFixed(1) + '/' + x.decode.toFixed(1)).join('  ')}`);
  }
} finally {
  await browser.close();
  server.child.kill();
}
console.log(`end: ${load()}`);
console.log(`${chromiumVersion}; ${opts.n} generated tokens, median of ${repeat} interleaved rounds`);
console.log('\n| model | phase | relaxed SIMD tok/s | SIMD128 tok/s | relaxed / SIMD128 |');
console.log('| --- | --- | --- | --- | --- |');
for (const r of rows)
  for (const f of ['prefill', 'decode'])
    console.log(`| ${r.label} | ${f} | ${r[f].relaxed.toFixed(1)} | ${r[f].simd128.toFixed(1)} | ${(r[f].relaxed / r[f].simd128).toFixed(3)}x |`);
process.exit(0);
