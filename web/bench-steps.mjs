#!/usr/bin/env node
// What a step of the live page costs as a run grows (docs/web.md, "Stepping"): in headless
// chromium, the threaded build (served with the isolation headers) at 1366x768, a run of the
// bundled model held with Step stage; at the 1st, 64th and 256th generated token of a 256-token
// run, `--repeat` Step stage presses and as many Step token presses are timed from the press to
// the frame that shows them (the page's own measure, live.stepMs). Then, on a phone-sized page
// (390x844), a run of a long prompt: how long after the engine said it was done its panels were
// drawn (live.panelsMs). Every figure at each CPU slowdown given (Chrome DevTools Protocol's
// Emulation.setCPUThrottlingRate: 4 is a Chromebook's pace on a desktop). Beside each figure, where
// its time went (the page's live.stepParts, medians): the engine (press to the engine held, or the
// whole run), the module making the part (timed in the worker), the messages between, the page
// applying and drawing the part, and style, layout and paint to the frame.
//   node web/bench-steps.mjs [--web build/web] [--tokens 256] [--at 1,64,256] [--repeat 5]
//        [--slowdown 1,4] [--long-prompt-file F]
// A benchmark, not a test: it prints medians and every sample, and fails only if the page does.
import { readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

const here = dirname(fileURLToPath(import.meta.url));
const { launch, serve } = await import(join(here, '..', 'tests', 'web', 'browser.mjs'));

const opts = { web: 'build/web', tokens: '256', at: '1,64,256', repeat: '5', slowdown: '1,4', prompt: 'And God said, Let there be light: and there was light.' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) opts[argv[i].replace(/^-+/, '').replace(/-(\w)/g, (_, c) => c.toUpperCase())] = argv[i + 1];
// A long prompt (about 150 tokens of the bundled model's tokenizer): Genesis 1:1-8.
const longPrompt = opts.longPromptFile ? readFileSync(opts.longPromptFile, 'utf8').trim()
  : 'In the beginning God created the heaven and the earth. And the earth was without form, and void; and darkness was upon the face of the deep. ' +
    'And the Spirit of God moved upon the face of the waters. And God said, Let there be light: and there was light. And God saw the light, that it was good: ' +
    'and God divided the light from the darkness. And God called the light Day, and the darkness he called Night. And the evening and the morning were the first day. ' +
    'And God said, Let there be a firmament in the midst of the waters, and let it divide the waters from the waters. And God made the firmament, and divided the ' +
    'waters which were under the firmament.';
const tokens = Number(opts.tokens), at = opts.at.split(',').map(Number), repeat = Number(opts.repeat), slowdowns = opts.slowdown.split(',').map(Number);
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = xs => xs.map(x => Math.round(x));
const ms = samples => samples.map(x => x.ms);

async function openPage(browser, origin, viewport, rate) {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  page.on('pageerror', e => console.error('page error:', String(e)));
  await page.goto(origin);
  await page.waitForFunction(() => document.body.dataset.engine === 'ready', { timeout: 120000 });
  const cdp = await page.target().createCDPSession();
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  return page;
}

// Presses a button and waits for the frame that shows what it brought: the page's measure.
async function timed(page, button) {
  const before = await page.evaluate(() => Number(document.body.dataset.drawn) || 0);
  await page.$eval(button, e => e.click());
  await page.waitForFunction(b => (Number(document.body.dataset.drawn) || 0) > b, { timeout: 600000 }, before);
  return page.evaluate(() => ({ ms: live.stepMs, parts: live.stepParts }));
}

// Where the samples' time went (live.stepParts): each part's median ("-" from a page that does not say).
const PARTS = ['engine', 'module', 'messages', 'page', 'frame'];
const breakdown = samples => samples.every(x => x.parts) ? PARTS.map(k => `${k} ${median(samples.map(x => x.parts[k])).toFixed(0)}`).join(', ') + ' ms' : '-';

async function setForm(page, prompt, maxTokens) {
  await page.$eval('#prompt', (e, v) => { e.value = v; }, prompt);
  await page.$eval('#max-tokens', (e, v) => { e.value = v; }, String(maxTokens));
  await page.$eval('#extra', e => { e.value = ''; });
}

async function held(browser, origin, rate) {
  const page = await openPage(browser, origin, { width: 1366, height: 768 }, rate);
  await setForm(page, opts.prompt, tokens);
  await timed(page, '#step-stage');
  const rows = [];
  for (const token of at) {
    // Token N is sampled at step N - 1 (step 0 is the prefill, which samples the first): Step token
    // goes on to step N - 2's sampling stage, the last before the stages of step N - 1 are timed.
    // The last `repeat` of those Step token presses are the token steps' figures.
    const tokenSteps = [];
    while (token >= 2 && await page.evaluate(() => live.held.step) < token - 2) tokenSteps.push(await timed(page, '#step-token'));
    const stage = [];
    for (let i = 0; i < repeat; i++) stage.push(await timed(page, '#step-stage'));
    const where = await page.evaluate(() => ({ step: live.held.step, stages: RunPage.data().stages.length }));
    rows.push({ tokenAt: token, ...where, stage, token: tokenSteps.slice(-repeat) });
  }
  await page.close();
  return rows;
}

async function phone(browser, origin, rate) {
  const page = await openPage(browser, origin, { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true }, rate);
  const out = [];
  for (let i = 0; i < repeat; i++) {
    await setForm(page, longPrompt, 16);
    await page.evaluate(() => { live.panelsMs = undefined; });
    await page.$eval('#run', e => e.click());
    await page.waitForFunction(() => document.body.dataset.run === 'done' && live.panelsMs !== undefined, { timeout: 600000 });
    out.push(await page.evaluate(() => ({ panels: live.panelsMs, parts: live.stepParts, module: live.partAt - live.doneAt, prompt: live.result.promptTokens, engine: (live.result.prefillSeconds + live.result.decodeSeconds) * 1000,
                                          stages: RunPage.data().stages.length })));
  }
  await page.close();
  return out;
}

const browser = await launch();
const server = await serve(resolve(opts.web), false);
const version = await browser.version();
const started = new Date().toISOString();
const results = [];
try {
  for (const rate of slowdowns) {
    const rows = await held(browser, server.origin, rate);
    const ph = await phone(browser, server.origin, rate);
    results.push({ rate, rows, phone: ph });
    for (const r of rows) {
      console.log(`${rate}x CPU, token ${r.tokenAt} (step ${r.step}, ${r.stages} stages shown): Step stage ${median(ms(r.stage)).toFixed(0)} ms [${round(ms(r.stage))}]` +
                  (r.token.length ? `, Step token ${median(ms(r.token)).toFixed(0)} ms [${round(ms(r.token))}]` : ''));
      console.log(`  where a Step stage's time went (medians): ${breakdown(r.stage)}`);
      if (r.token.length) console.log(`  where a Step token's time went (medians): ${breakdown(r.token)}`);
    }
    console.log(`${rate}x CPU, phone 390x844, ${ph[0].prompt}-token prompt, 16 generated (${ph[0].stages} stages): panels ${median(ph.map(p => p.panels)).toFixed(0)} ms after the engine was done ` +
                `[${round(ph.map(p => p.panels))}], of which the module's part ${median(ph.map(p => p.module)).toFixed(0)} ms [${round(ph.map(p => p.module))}]; engine ${median(ph.map(p => p.engine)).toFixed(0)} ms`);
    console.log(`  where the panels' time went (medians; the engine's is the whole run's): ${breakdown(ph)}`);
  }
} finally {
  await browser.close();
  server.child.kill();
}

// The table for docs/web.md.
console.log(`\n${version}, ${os.cpus().length} cores (${os.cpus()[0].model}), load average ${os.loadavg().map(x => x.toFixed(1)).join(' ')}, ${started}`);
console.log('| CPU | ' + at.map(t => `token ${t}: Step stage / Step token`).join(' | ') + ' | phone: panels after the engine |');
console.log('| --- | ' + at.map(() => '---').join(' | ') + ' | --- |');
for (const r of results)
  console.log(`| ${r.rate}x | ` + r.rows.map(x => `${median(ms(x.stage)).toFixed(0)} ms / ${x.token.length ? median(ms(x.token)).toFixed(0) + ' ms' : '-'}`).join(' | ') +
              ` | ${median(r.phone.map(p => p.panels)).toFixed(0)} ms (${r.phone[0].prompt}-token prompt) |`);
