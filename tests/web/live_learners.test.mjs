// The live page as learners tried it (issue 50, "seen by learners"), in Debian's chromium, the
// threaded build (served with the isolation headers), on a laptop (1366x768) and a phone (390x844):
// a held run brings its stage's panel into view at every step; Step token holds at the sampling
// stage with the candidates and the lens; a newline piece reads ",\n"; the summary's speeds leave
// out the time the run was held and say they are this tab's, as a Try-it says its recorded ones are
// the course machine's; an invalid value in a folded section is named, its section opened; a
// llama2.c tokenizer under its own file name runs; every tap target on a phone is 48 px or more.
//   node live_learners.test.mjs WEB_DIR LLAMA_WALKTHROUGH FIXTURES_DIR SCREENSHOT_DIR
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch, screenshotStats, check, done, serve } from './browser.mjs';
import { partsAgainstWhole, timedStep } from './run_data_parts.mjs';

const [webDir, cli, fixtures, shots] = process.argv.slice(2);
const scratch = join(shots, 'scratch');
mkdirSync(scratch, { recursive: true });

const laptop = { width: 1366, height: 768 };
const phone = { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

async function openLive(browser, address, viewport) {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const errors = [];
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', e => errors.push(String(e)));
  await page.goto(address);
  await page.waitForFunction(() => document.body.dataset.engine === 'ready', { timeout: 60000 });
  return { page, errors };
}

// Presses `button` (a selector) and waits for the run to settle: held or revealed at a new stage,
// done, or refused.
async function press(page, button) {
  const before = await page.evaluate(() => [document.body.dataset.run, document.body.dataset.revealed, document.body.dataset.stage].join('|'));
  await page.evaluate(() => { document.body.dataset.run = 'pressed'; });
  await page.$eval(button, e => e.click());
  await page.waitForFunction(b => ['done', 'error', 'invalid'].includes(document.body.dataset.run) ||
    (document.body.dataset.run === 'stepping' && [document.body.dataset.run, document.body.dataset.revealed, document.body.dataset.stage].join('|') !== b),
  { timeout: 60000 }, before);
  return page.evaluate(() => document.body.dataset.run);
}

async function setForm(page, prompt, extra) {
  await page.$eval('#prompt', (e, v) => { e.value = v; }, prompt);
  await page.$eval('#extra', (e, v) => { e.value = v; }, extra);
}

// The stage panel's title between the sticky controls and the window's bottom edge.
const stageInView = page => page.evaluate(() => {
  const t = document.getElementById('stage-title').getBoundingClientRect(), c = document.getElementById('controls').getBoundingClientRect();
  return { ok: t.top >= c.bottom - 1 && t.bottom <= window.innerHeight, title: Math.round(t.top), controls: Math.round(c.bottom), height: window.innerHeight };
});

// Every target a finger may tap that is smaller than `min` px either way: buttons, fields, selects,
// sliders, folding summaries, labels that hold a control (a checkbox's target), the file button,
// the timeline's stages. The map's boxes and the heatmap's cells are left out: the stage buttons,
// the timeline and the zoom reach the same places.
const smallTargets = (page, min) => page.evaluate(min => {
  const out = [];
  const targets = document.querySelectorAll('button, select, textarea, input, summary, label, .stage-item');
  for (const e of targets) {
    if (e.matches('input') && e.closest('label') && ['checkbox', 'file'].includes(e.type)) continue;  // the label is the target
    if (e.matches('label') && !e.querySelector('input, select')) continue;  // a caption: its field is the target
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(e).visibility === 'hidden') continue;
    if (r.width < min || r.height < min)
      out.push(`${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''} "${(e.textContent || e.placeholder || '').trim().slice(0, 20)}" ${r.width.toFixed(0)}x${r.height.toFixed(0)}`);
  }
  return { small: out, count: targets.length };
}, min);

const browser = await launch();
const server = await serve(webDir, false);
try {
  const { page, errors } = await openLive(browser, server.origin, laptop);

  // ---- a held run at 1366x768: the stage's panel comes into view at each step -------------------
  await setForm(page, 'And God said, Let there be light: and there was light.', '-n 24');
  check(await press(page, '#step-stage') === 'stepping', 'laptop: Step stage holds the run');
  let seen = await stageInView(page);
  check(seen.ok, 'laptop: the held run\'s first stage shows its panel, not only the map', JSON.stringify(seen));
  await page.evaluate(() => window.scrollTo(0, 0));
  await press(page, '#next');  // the run page's Stage ▶ at the edge of what the engine computed
  seen = await stageInView(page);
  check(seen.ok && await page.evaluate(() => document.body.dataset.revealed) === '2', 'laptop: Stage ▶ steps the engine on and brings the stage\'s panel into view', JSON.stringify(seen));
  await page.evaluate(() => window.scrollTo(0, 0));
  await press(page, '#step-layer');
  seen = await stageInView(page);
  check(seen.ok, 'laptop: so does the form\'s Step layer', JSON.stringify(seen));

  // ---- Step token: the sampling stage, with the candidates and the lens -------------------------
  await press(page, '#step-token');
  const atToken = await page.evaluate(() => ({ stage: document.body.dataset.stage, held: live.held && live.held.stage,
    bars: document.querySelectorAll('#logits .bar-row').length, logits: !document.getElementById('logits-panel').hidden,
    lens: !document.getElementById('lens-panel').hidden, lensRows: document.querySelectorAll('#lens tr').length }));
  check(atToken.stage === 'sample' && atToken.held === 20 && atToken.logits && atToken.bars === 10 && atToken.lens && atToken.lensRows > 1,
        'Step token holds at the sampling stage and shows the candidates and the lens', JSON.stringify(atToken));
  seen = await stageInView(page);
  check(seen.ok, 'laptop: Step token brings the stage\'s panel into view', JSON.stringify(seen));

  // ---- newline pieces: ",\n" once escaped, as the trace writes them ---------------------------
  // This prompt's greedy run has ".\n" or ",\n" among the candidates of several steps (the native
  // trace's top-10); the page shows them as the engine writes them, in quotes.
  let newline = null;
  for (let i = 0; i < 24 && !newline; i++) {
    newline = await page.evaluate(() => [...document.querySelectorAll('#logits .bar-label, #lens .lens-piece')].map(e => e.textContent).find(t => t.includes('\\')) || null);
    if (!newline && await press(page, '#step-token') !== 'stepping') break;
  }
  check(newline !== null && /"[^"\\]*\\n"$/.test(newline) && !newline.includes('\\\\'), 'a newline piece reads "\\n", escaped once', JSON.stringify(newline));

  // ---- the summary's speeds: the engine's time, not the time the run was held -------------------
  // On to a stage inside the next step's timed forward pass (the embedding, stage 4, to the logits, 19).
  for (let i = 0; i < 4 && !(await page.evaluate(() => live.held && live.held.step > 0 && live.held.stage >= 4 && live.held.stage <= 19)); i++)
    await press(page, '#step-stage');
  check(await page.evaluate(() => live.held && live.held.step > 0 && live.held.stage >= 4), 'held inside a decode step\'s forward pass', await page.evaluate(() => JSON.stringify(live.held)));
  // Held 8 s: were the held time counted, the decode time would be at least the time held; a slow
  // machine's whole decode (24 tokens, watched) took 2.8 s on a 2-core Zen 3 under ctest's load, so
  // a fixed bound on it (1.5 s, before) failed there although nothing was counted twice.
  await new Promise(ok => setTimeout(ok, 8000));
  check(await press(page, '#run-to-end') === 'done', 'Run to end finishes the held run');
  const timed = await page.evaluate(() => ({ ...live.result, summary: document.getElementById('summary').textContent }));
  check(timed.heldSeconds >= 8 && timed.decodeSeconds > 0 && timed.decodeSeconds < timed.heldSeconds,
        'the decode time leaves out the 8 s the run was held inside a decode step', `held ${timed.heldSeconds} s, decode ${timed.decodeSeconds} s`);
  check(/decode: [0-9.]+ tok\/s \(in this browser tab, the threaded WebAssembly build; the [0-9.]+ s the run was held at stages not counted\)/.test(timed.summary),
        'the summary says whose speeds they are and that the held time is not counted', timed.summary);

  // ---- a step costs the same at token 200 as at token 1; the parts add up to the whole ---------
  // Each step brings the panels only the stages since the last (a part); the page adds them to
  // what it shows. A Step stage's and a Step token's time (press to drawn frame, medians of 7) at
  // the 200th token are within kStepRatio of the first tokens'; the panels' data after ~700 parts
  // equals the run's whole page data made at once from its trace, held and then finished, every
  // attention's arithmetic (made when a cell is opened) included.
  // A step at token 1 can take 20-35 ms, where one 100 ms stall of a shared machine is already 3x:
  // below kFloorMs the factor is taken of kFloorMs. Steps that grew with the run (the page before
  // took seconds a step by token 64) still fail by far.
  const kStepRatio = 3, kFloorMs = 50;
  await page.evaluate(() => window.scrollTo(0, 0));
  await setForm(page, 'And God said, Let there be light: and there was light.', '-n 202');
  check(await press(page, '#step-stage') === 'stepping', 'a 202-token run held at its first stage');
  const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  // Seven presses each: on a machine shared with builds a single step can stall for 100 ms, and the
  // median of seven holds where that of five was once moved by two stalls.
  const stepTimes = async () => { const t = []; for (let i = 0; i < 7; i++) t.push(await timedStep(page, '#step-stage')); return t; };
  const early = await stepTimes();
  // Step token from the first token's stage on: the first brings the prefill's sampling, the next
  // seven are the first decode steps'; the last seven end at token 200.
  const tokenSteps = [];
  while (await page.evaluate(() => live.held && live.held.step < 199)) tokenSteps.push(await timedStep(page, '#step-token'));
  const late = await stepTimes();
  const atStep = await page.evaluate(() => live.held && live.held.step);
  check(atStep === 200 && median(late) <= kStepRatio * Math.max(median(early), kFloorMs),
        `a held step at token 200 takes at most ${kStepRatio}x a step at token 1 (or ${kStepRatio}x ${kFloorMs} ms)`, `step ${atStep}: token 1 ${early.map(Math.round)} ms, token 200 ${late.map(Math.round)} ms`);
  const [earlyTokens, lateTokens] = [tokenSteps.slice(1, 8), tokenSteps.slice(-7)];
  check(tokenSteps.length >= 199 && median(lateTokens) <= kStepRatio * Math.max(median(earlyTokens), kFloorMs),
        `a Step token near token 200 takes at most ${kStepRatio}x one near token 1 (or ${kStepRatio}x ${kFloorMs} ms)`, `tokens 2-8 ${earlyTokens.map(Math.round)} ms, tokens 193-199 ${lateTokens.map(Math.round)} ms`);
  let sum = await partsAgainstWhole(page);
  check(sum.problems && sum.problems.length === 0 && sum.stages > 40000 && sum.arithmetic === sum.attention && sum.attention >= 1600,
        'held at token 200, the panels\' data from the parts equals the whole page data made at that stage', JSON.stringify(sum));
  check(await press(page, '#run-to-end') === 'done', 'the 202-token run let go runs to its end');
  sum = await partsAgainstWhole(page);
  check(sum.problems && sum.problems.length === 0 && sum.tokens > 202 && sum.arithmetic === sum.attention,
        'finished, the parts equal the whole page data of the finished trace', JSON.stringify(sum));
  // A cell opened: its arithmetic comes from the module then (the parts carry none), and its chain
  // ends at the probability the engine recorded.
  await page.evaluate(() => { location.hash = '#step=0&layer=2&stage=scores_softmax&head=3&q=5&k=2'; });
  await page.waitForSelector('#arith-dot', { timeout: 60000 });
  const opened = await page.evaluate(() => ({ dot: document.getElementById('arith-dot').textContent, prob: Number(document.getElementById('arith-prob').textContent),
    recorded: Number(document.getElementById('arith-recorded').textContent), computing: !!document.getElementById('arith-computing') }));
  check(!opened.computing && Number.isFinite(Number(opened.dot)) && Math.abs(opened.prob - opened.recorded) < 0.01,
        'a cell opened on the live page shows its arithmetic, made then, ending at the recorded probability', JSON.stringify(opened));

  // ---- an invalid value in a folded section: named, its section opened, no run ----------------
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.$eval('#top-k', e => { e.value = '-1'; });
  check(await page.$eval('#top-k', e => !e.closest('details').open), 'the Sampling section is folded');
  const refused = await press(page, '#run');
  const invalid = await page.evaluate(() => ({ error: document.getElementById('live-error').textContent, shown: !document.getElementById('live-error').hidden,
    open: document.getElementById('top-k').closest('details').open, focused: document.activeElement && document.activeElement.id }));
  check(refused === 'invalid' && invalid.shown && /^top-k: .+ The run was not started\.$/.test(invalid.error) && invalid.open && invalid.focused === 'top-k',
        'Run with top-k -1 in the folded Sampling section: the field is named, its section opened and focused', JSON.stringify(invalid));
  await page.$eval('#top-k', e => { e.value = ''; });
  await setForm(page, 'In the beginning God created', '-n 4');
  check(await press(page, '#run') === 'done' && await page.$eval('#live-error', e => e.hidden), 'with the value fixed, Run runs');

  // ---- a llama2.c checkpoint with its tokenizer under the tokenizer's own name -----------------
  {
    const model = join(scratch, 'stories.bin'), tokenizer = join(scratch, 'tok512.bin');
    copyFileSync(join(fixtures, 'llama2c', 'legacy.bin'), model);
    copyFileSync(join(fixtures, 'llama2c', 'tokenizer.bin'), tokenizer);
    await page.evaluate(() => { document.getElementById('live-error').hidden = true; });
    const input = await page.$('#model-files');
    await input.uploadFile(model);
    await page.waitForFunction(() => !document.getElementById('live-error').hidden, { timeout: 20000 });
    const alone = await page.$eval('#live-error', e => e.textContent);
    check(/stories\.bin is opened alone: .*tokenizer/.test(alone), 'a llama2.c checkpoint opened without its tokenizer is told so at once', alone);
    await input.uploadFile(model, tokenizer);
    await page.waitForFunction(() => /tok512\.bin/.test(document.getElementById('model-name').textContent), { timeout: 20000 });
    await setForm(page, 'Once upon a time', '-n 8');
    const state = await press(page, '#run');
    const r = await page.evaluate(() => ({ text: live.result && live.result.text, error: document.getElementById('live-error').textContent }));
    const out = execFileSync(cli, ['--model', model, '--tokenizer', tokenizer, '-q', '--prompt', 'Once upon a time', '-n', '8'], { encoding: 'utf8' });
    const expected = out.slice(0, out.lastIndexOf('\n\nPrompt tokens:'));
    check(state === 'done' && r.text === expected, 'stories.bin with tok512.bin runs, with the CLI\'s text (--tokenizer tok512.bin)', `${JSON.stringify(r)} vs ${JSON.stringify(expected)}`);
    await page.$eval('#bundled', e => e.click());
  }
  check(errors.length === 0, 'no console error on the laptop page', errors.join(' | ').slice(0, 400));
  await page.close();

  // ---- a Try-it: whose tok/s each line is ------------------------------------------------------
  {
    const words = ['-q', '--prompt', 'The cat', '-n', '6', '--temperature', '0'];
    const expect = 'The cat\n\nPrompt tokens: 3 | generated tokens: 6 | prefill: 900.0 tok/s | decode: 400.0 tok/s | stopped by: max tokens\n';
    const course = await openLive(browser, server.origin + `/#cmd=${encodeURIComponent(JSON.stringify(words))}&expect=${encodeURIComponent(expect)}`, laptop);
    const note = await course.page.$eval('#course-machine', e => (e.offsetParent ? e.textContent : ''));
    check(/native llama-walkthrough on the machine that built the course: its tok\/s are that machine's/.test(note), 'a Try-it says its recorded tok/s are the course machine\'s', note);
    check(await press(course.page, '#run') === 'done', 'the Try-it runs');
    const summary = await course.page.$eval('#summary', e => e.textContent);
    check(/tok\/s \(in this browser tab/.test(summary), 'and the page\'s summary says its tok/s are this tab\'s', summary);
    await course.page.close();
  }

  // ---- a phone: the stage in view, every tap target 48 px or more ------------------------------
  {
    const { page, errors } = await openLive(browser, server.origin, phone);
    await setForm(page, 'In the beginning God created', '-n 8');
    check(await press(page, '#step-stage') === 'stepping', 'phone: Step stage holds the run');
    await press(page, '#next-layer');
    const seen = await stageInView(page);
    check(seen.ok, 'phone: the stage\'s panel is in view after a step', JSON.stringify(seen));
    await page.screenshot({ path: join(shots, 'learners-phone-390x844.png') });
    await page.evaluate(() => document.querySelectorAll('details').forEach(d => { d.open = true; }));
    await press(page, '#step-token');  // the candidates' slider and the lens are on screen too
    const targets = await smallTargets(page, 48);
    check(targets.small.length === 0 && targets.count > 60, 'phone: every tap target is at least 48x48 px', `${targets.count} targets; smaller: ${targets.small.join(', ')}`);
    // An attention stage's own targets: the heads, the zoom.
    await page.evaluate(() => { location.hash = '#step=0&layer=1&stage=scores_softmax'; });
    await page.waitForFunction(() => document.body.dataset.stage === 'scores_softmax' && !document.getElementById('attention').hidden, { timeout: 10000 });
    const attention = await smallTargets(page, 48);
    check(attention.small.length === 0, 'phone: at an attention stage too (heads, zoom)', `${attention.count} targets; smaller: ${attention.small.join(', ')}`);
    const widths = await page.evaluate(() => [window.innerWidth, document.documentElement.scrollWidth]);
    check(widths[1] <= widths[0], 'phone: no sideways scrolling', `window ${widths[0]}px, page ${widths[1]}px`);
    check(errors.length === 0, 'no console error on the phone', errors.join(' | ').slice(0, 400));
    await page.close();
  }

  // ---- the single-threaded build (no service worker on a plain host): the same Step token --------
  {
    const plain = await serve(webDir, true);
    const page = await browser.newPage();
    await page.setViewport(laptop);
    await page.evaluateOnNewDocument(() => { delete Navigator.prototype.serviceWorker; });
    await page.goto(plain.origin);
    await page.waitForFunction(() => document.body.dataset.engine === 'ready', { timeout: 60000 });
    check(await page.evaluate(() => document.body.dataset.variant) === 'single', 'single-threaded: the page runs the single-threaded build');
    await setForm(page, 'In the beginning God created', '-n 8');
    await press(page, '#step-stage');
    await press(page, '#step-token');
    const atToken = await page.evaluate(() => ({ stage: document.body.dataset.stage, bars: document.querySelectorAll('#logits .bar-row').length,
      lens: !document.getElementById('lens-panel').hidden, sampled: document.querySelectorAll('#logits .bar-row.lit').length }));
    check(atToken.stage === 'sample' && atToken.bars === 10 && atToken.sampled === 1 && atToken.lens,
          'single-threaded: Step token reveals the sampling stage with the candidates, the one sampled and the lens', JSON.stringify(atToken));
    const seen = await stageInView(page);
    check(seen.ok, 'single-threaded: and brings the stage\'s panel into view', JSON.stringify(seen));
    await page.close();
    plain.child.kill();
  }

  // ---- screenshots as a learner sees a held run: a laptop, a phone ------------------------------
  for (const [name, viewport] of [['learners-1366x768', laptop], ['learners-phone-390x844-token', phone]]) {
    const { page } = await openLive(browser, server.origin, viewport);
    await setForm(page, 'And God said, Let there be light: and there was light.', '-n 8');
    await press(page, '#step-stage');
    await press(page, '#step-token');
    const png = await page.screenshot({ path: join(shots, name + '.png') });
    const s = await screenshotStats(browser, png);
    check(s.colours > 40 && s.dominant < 0.9, `screenshot ${name} is not blank`, `${s.width}x${s.height}, ${s.colours} colours`);
    await page.close();
  }
} finally {
  await browser.close();
  server.child.kill();
}
done();
