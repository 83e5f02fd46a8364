// The run page (export-html) in chromium: it loads offline with no console error, shows the
// trace's values, moves with the keys, opens at a URL fragment, and a damaged copy says so.
// usage: node run_page.test.mjs PAGES_DIR SCREENSHOT_DIR WALKTHROUGH   (PAGES_DIR from make_pages.sh)
import { readFileSync, writeFileSync, existsSync, statSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { launch, open, screenshotStats, check, done } from './browser.mjs';
import { readTrace, values, findStage } from './trace_file.mjs';

const [dir, shots, walkthrough] = process.argv.slice(2);
mkdirSync(shots, { recursive: true });
const trace = readTrace(join(dir, 'run.trace'));
const page = join(dir, 'run.html');
const text = async (p, sel) => p.$eval(sel, e => e.textContent.trim());
const near = (a, b, tol) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));

const size = statSync(page).size;
check(size <= 3e6, 'the 16-token run with every layer\'s attention is at most 3 MB', `${(size / 1e6).toFixed(2)} MB`);
check(statSync(join(dir, 'run-live.html')).size > 0, '--html on a run writes the page too');

const browser = await launch();
try {
  // Loads offline: no console error, no request but the page itself.
  {
    const { page: p, log } = await open(browser, page);
    check(log.errors.length === 0, 'no console error', log.errors.join(' | '));
    check(log.blocked.length === 0 && log.requests.length === 1, 'no network request', log.requests.join(' '));
    const ready = await p.evaluate(() => ({ ready: document.body.dataset.ready, ms: performance.now() }));
    check(ready.ready === '1', 'the page is ready');
    // Its script runs by its hash in the CSP (nothing inline besides: no 'unsafe-inline').
    const csp = await p.$eval('meta[http-equiv="Content-Security-Policy"]', m => m.content);
    check(/script-src 'sha256-[A-Za-z0-9+/]+=*' 'sha256-[A-Za-z0-9+/]+=*';/.test(csp) && !/script-src[^;]*unsafe-inline/.test(csp),
      'the CSP admits the page\'s own two scripts (the guard and the page) by their hashes only', csp);
    // An inline script that is not the page's own is refused (e.g. one a text field smuggled in).
    const injected = await p.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.injectedRan = true;';
      document.body.append(s);
      return window.injectedRan === true;
    });
    check(!injected, 'the CSP blocks an inline script that is not the page\'s own');
    console.log(`     first load: ${log.loadMs} ms for goto + ready`);
    // Time to interactive (the script runs inline, so DOMContentLoaded ends after its first
    // drawing): measured and printed, median of 5 loads, not asserted (performance is measured,
    // not timed in tests; docs/web-and-site.md quotes it).
    const times = [];
    for (let i = 0; i < 5; i++) {
      await p.reload({ waitUntil: 'load' });
      times.push(await p.evaluate(() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd));
    }
    times.sort((a, b) => a - b);
    console.log(`     measured: interactive ${times[2].toFixed(0)} ms after navigation start (median of 5; ${times.map(t => t.toFixed(0)).join(', ')})`);
    check(await p.evaluate(() => document.body.dataset.ready) === '1', 'ready again after reloads');
    // The map: the embedding arrow carries input_embeddings' inputTensor shape at step 0.
    const emb = findStage(trace, 'input_embeddings', 0).tensors.find(t => t.name === 'inputTensor');
    const arrow = await p.$eval('[data-arrow^="input_embeddings>"]', e => e.textContent);
    check(arrow === `inputTensor [${emb.shape.join(' ')}]`, 'the map\'s arrow out of the embedding shows the trace\'s shape', arrow);
    await p.click('[data-box="attention_norm"] rect');
    check(await p.evaluate(() => [document.body.dataset.stage, document.body.dataset.layer].join()) === 'attention_norm,1', 'a click on a map box jumps to its stage');
    await p.goto(p.url().split('#')[0] + '#step=0&stage=tokenize');
    await p.waitForFunction(() => document.body.dataset.stage === 'tokenize');
    // Keys: → is the next stage of the trace, Shift+→ the next layer, Ctrl+→ the next token step.
    await p.keyboard.press('ArrowRight');
    check(await p.evaluate(() => document.body.dataset.stage) === trace.stages[1].stage, '→ moves to the next stage', trace.stages[1].stage);
    check((await p.evaluate(() => location.hash)).includes('stage=' + trace.stages[1].stage), 'the URL fragment follows the reader');
    await p.keyboard.press('ArrowLeft');
    check(await p.evaluate(() => document.body.dataset.stage) === trace.stages[0].stage, '← moves back');
    await p.goto(p.url().split('#')[0] + '#step=0&layer=1&stage=ffn_norm');
    await p.waitForFunction(() => document.body.dataset.stage === 'ffn_norm');
    await p.keyboard.down('Shift'); await p.keyboard.press('ArrowRight'); await p.keyboard.up('Shift');
    check(await p.evaluate(() => [document.body.dataset.stage, document.body.dataset.layer].join()) === 'ffn_norm,2', 'Shift+→ moves to the same stage in the next layer');
    await p.keyboard.down('Control'); await p.keyboard.press('ArrowRight'); await p.keyboard.up('Control');
    check(await p.evaluate(() => [document.body.dataset.stage, document.body.dataset.layer, document.body.dataset.step].join()) === 'ffn_norm,2,1',
      'Ctrl+→ moves to the next token step');
    await p.keyboard.press('?');
    check(await p.$eval('#help', e => !e.hidden), '? shows the keys');
    await p.keyboard.press('Escape');
    // The map at first sight (item 14): its labels legible, none on another; → brings the stage's panel into view.
    await p.goto(p.url().split('#')[0] + '#step=0&layer=1&stage=qkv');
    await p.waitForFunction(() => document.body.dataset.stage === 'qkv');
    await p.evaluate(() => window.scrollTo(0, 0));
    const labels = await p.$$eval('.map-label', ls => ls.map(l => { const r = l.getBoundingClientRect(); return { t: l.textContent, x: r.x, y: r.y, w: r.width, h: r.height }; }));
    const smallest = Math.min(...labels.map(l => l.h));
    check(labels.length > 20 && smallest >= 9, 'the map\'s shape labels are at least 9 px tall at 1366x768', `${labels.length} labels, smallest ${smallest.toFixed(1)} px`);
    const overlaps = [];
    for (let i = 0; i < labels.length; i++)
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i], b = labels[j];
        if (a.x < b.x + b.w - 1 && b.x < a.x + a.w - 1 && a.y < b.y + b.h - 1 && b.y < a.y + a.h - 1) overlaps.push(`${a.t} / ${b.t}`);
      }
    check(overlaps.length === 0, 'no two of the map\'s shape labels overlap', overlaps.join(', '));
    // Nor does one touch a box: 2 px clear of every box's edge (the label's halo included).
    const boxes = await p.$$eval('[data-box] rect', rs => rs.map(r => { const b = r.getBoundingClientRect(); return { t: r.parentNode.dataset.box, x: b.x, y: b.y, w: b.width, h: b.height }; }));
    const touching = [];
    for (const a of labels)
      for (const b of boxes)
        if (a.x < b.x + b.w + 2 && b.x < a.x + a.w + 2 && a.y < b.y + b.h + 2 && b.y < a.y + a.h + 2) touching.push(`${a.t} / ${b.t} box`);
    check(boxes.length > 20 && touching.length === 0, 'no map shape label touches a box (2 px clear)', touching.join(', '));
    await p.keyboard.press('ArrowRight');
    const stageTop = await p.$eval('#stage-title', e => e.getBoundingClientRect().top);
    check(stageTop > 0 && stageTop < 768 - 80, '→ brings the stage\'s panel into view', `its title at ${stageTop.toFixed(0)} px`);
    await p.close();
  }
  // A URL fragment opens an exact place; the cell's arithmetic equals the trace's numbers.
  {
    const at = findStage(trace, 'scores_softmax', 1, 2);
    const scores = values(at, 'scores');  // [heads, seqLen, positions]
    const [H, R, C] = scores.shape;
    const q = at.startPos, k = 3, head = 1;  // head 2 as the page counts
    const { page: p, log } = await open(browser, page, { hash: `#step=1&layer=3&stage=scores_softmax&head=2&q=${q}&k=${k}` });
    check(await p.evaluate(() => [document.body.dataset.stage, document.body.dataset.layer, document.body.dataset.step].join()) === 'scores_softmax,3,1',
      'the fragment #step=1&layer=3&stage=scores_softmax&head=2 opens that stage');
    check(await p.$eval('[data-head="2"]', e => e.classList.contains('lit')), 'and head 2');
    const recorded = scores.values[(head * R + 0) * C + k];
    check(near(Number(await text(p, '#arith-recorded')), recorded, 1e-4), 'the cell\'s recorded probability equals the trace\'s', `${await text(p, '#arith-recorded')} vs ${recorded}`);
    // q·k from the trace's own xq and keys (bf16), summed here.
    const tr = findStage(trace, 'transposes', 1, 2);
    const xq = values(tr, 'xq'), keys = values(tr, 'keys');  // [heads, seqLen, HeadDim], [heads, HeadDim, positions]
    const D = xq.shape[2], P = keys.shape[2];
    let dot = 0;
    for (let d = 0; d < D; d++) dot += xq.values[(head * xq.shape[1] + 0) * D + d] * keys.values[(head * D + d) * P + k];
    check(near(Number(await text(p, '#arith-dot')), dot, 1e-3), 'q · k equals the sum over the trace\'s xq and keys', `${await text(p, '#arith-dot')} vs ${dot}`);
    const prob = Number(await text(p, '#arith-prob'));
    check(Math.abs(prob - recorded) < 0.01, 'the softmax arithmetic gives the recorded probability (bf16 rounding apart)', `${prob} vs ${recorded}`);
    check(log.errors.length === 0, 'no console error at the fragment', log.errors.join(' | '));
    // The screenshots: the prefill's attention triangle of the same layer and head, a cell explained.
    await p.goto(p.url().split('#')[0] + `#step=0&layer=3&stage=scores_softmax&head=2&q=${q - 1}&k=2`);
    await p.waitForFunction(() => document.body.dataset.step === '0');
    for (const [name, viewport] of [['run-page-1366x768', { width: 1366, height: 768 }], ['run-page-phone', { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true }]]) {
      await p.setViewport(viewport);
      await p.evaluate(() => window.scrollTo(0, 0));
      const png = await p.screenshot({ path: join(shots, name + '.png') });
      const s = await screenshotStats(browser, png);
      check(s.colours > 40 && s.dominant < 0.9, `screenshot ${name} is not blank`, `${s.width}x${s.height}, ${s.colours} colours, largest ${Math.round(s.dominant * 100)}%`);
    }
    await p.setViewport({ width: 1366, height: 768 });
    await p.$eval('#attention', e => e.scrollIntoView());
    const png = await p.screenshot({ path: join(shots, 'run-page-attention-1366x768.png') });
    const st = await screenshotStats(browser, png);
    check(st.colours > 40 && st.dominant < 0.9, 'screenshot run-page-attention-1366x768 is not blank', `${st.colours} colours, largest ${Math.round(st.dominant * 100)}%`);
    await p.setViewport({ width: 390, height: 844, deviceScaleFactor: 2, isMobile: true });
    const widths = await p.evaluate(() => [window.innerWidth, document.documentElement.scrollWidth]);
    check(widths[0] === 390 && widths[1] <= 390, 'on a phone the page reflows (no zooming out, no sideways scrolling)', `window ${widths[0]}px, page ${widths[1]}px`);
    await p.close();
  }
  // Deep links: what the run does not have is said, with where the page went; Back returns to the
  // stage before; ↑/↓ scroll the page unless the attention panel has the focus.
  {
    const { page: p, log } = await open(browser, page, { hash: '#step=0&layer=12&stage=scores_softmax&head=2' });
    const note = await text(p, '#link-note');
    check(/layer=12 \(this run has layer 1 to 8\)/.test(note) && /Showing step 0 \(prefill\)/.test(note), 'a link to layer 12 of 8 says so and where it went', note);
    for (const [hash, expected] of [
      ['#step=99&stage=tokenize', /step=99 \(this run has step 0 to 15\)/],
      ['#step=0&stage=scores_sofmax', /stage=scores_sofmax \(no stage has that name/],
      ['#step=1&layer=2&stage=scores_softmax&head=9', /head=9 \(this run has head 1 to 8\)/],
      ['#step=1&layer=2&stage=scores_softmax&head=1&q=2&k=400', /cell q=2, k=400 \(step 1 has query positions 6 to 6, key positions 0 to 6\)/],
      ['#step=0&layer=3&stage=sample', /layer=3 with stage sample, which runs outside the layers/],
    ]) {
      await p.goto(p.url().split('#')[0] + hash);
      await p.waitForFunction(h => location.hash === h || !document.getElementById('link-note').hidden, {}, hash);
      const said = await p.$eval('#link-note', e => (e.hidden ? '' : e.textContent));
      check(expected.test(said), `the link ${hash} says what is missing`, said);
    }
    await p.goto(p.url().split('#')[0] + '#step=1&layer=2&stage=scores_softmax&head=3&q=6&k=2');
    await p.waitForFunction(() => document.body.dataset.step === '1');
    check(await p.$eval('#link-note', e => e.hidden), 'a link the run has shows no note');
    // Back: two stages on, Back returns to the one before.
    await p.goto(p.url().split('#')[0] + '#step=0&stage=tokenize');
    await p.waitForFunction(() => document.body.dataset.stage === 'tokenize');
    await p.keyboard.press('ArrowRight');
    const second = await p.evaluate(() => document.body.dataset.stage);
    await p.keyboard.press('ArrowRight');
    await p.goBack();
    await p.waitForFunction(s => document.body.dataset.stage === s, { timeout: 5000 }, second).catch(() => {});
    check(await p.evaluate(() => document.body.dataset.stage) === second, 'Back returns to the stage before', `${await p.evaluate(() => document.body.dataset.stage)} vs ${second}`);
    // ↓ scrolls the page; after a click in the attention panel it changes the head.
    await p.goto(p.url().split('#')[0] + '#step=0&layer=1&stage=scores_softmax&head=1');
    await p.waitForFunction(() => document.body.dataset.stage === 'scores_softmax');
    await p.evaluate(() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); });
    await p.keyboard.press('ArrowDown');
    await new Promise(r => setTimeout(r, 300));
    const after = await p.evaluate(() => [window.scrollY, location.hash]);
    check(after[0] > 0 && /head=1/.test(after[1]), '↓ scrolls the page, the head stays', `scrollY ${after[0]}, ${after[1]}`);
    await p.click('#heads button');
    await p.keyboard.press('ArrowDown');
    check(/head=2/.test(await p.evaluate(() => location.hash)), 'after a click in the attention panel, ↓ is the next head', await p.evaluate(() => location.hash));
    check(log.errors.length === 0, 'no console error on deep links', log.errors.join(' | '));
    await p.close();
  }
  // Phones, paper and plain words (items 18-20): buttons a phone user reads, a help box a tap
  // closes, the lens through a window of positions that fits a phone and a printed page, bars
  // that print without background graphics, a colour legend, the temperature what-if's caveats.
  {
    const { page: p, log } = await open(browser, join(dir, 'long.html'), { hash: '#step=0&layer=2&stage=ffn_residual', viewport: { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true } });
    check(log.errors.length === 0, 'the long prompt\'s page loads with no console error', log.errors.join(' | '));
    const labels = await p.$$eval('#controls button', bs => bs.map(b => b.textContent));
    check(labels.every(l => !/Ctrl|⇧|Shift/.test(l)), 'the step buttons are labelled in words, no key names', labels.join(' | '));
    await p.tap('#help-button');
    check(await p.$eval('#help', e => !e.hidden), 'Help opens the help box');
    await p.touchscreen.tap(5, 830);  // beside the box, which stands over the page's middle
    check(await p.$eval('#help', e => e.hidden), 'a tap outside the help box closes it');
    await p.tap('#help-button');
    await p.tap('#help-close');
    check(await p.$eval('#help', e => e.hidden), 'its Close button closes it');
    const lensCols = await p.$$eval('#lens tr:first-child th', t => t.length - 1);
    const range = await text(p, '#lens-range');
    check(lensCols >= 3 && lensCols < 12 && await p.$eval('#lens-window', e => !e.hidden), 'a long prompt\'s lens shows a window of positions, narrower on a phone', `${lensCols} columns, ${range}`);
    const firstBefore = await text(p, '#lens tr:first-child th:nth-child(2)');
    await p.$eval('#lens-from', e => { e.value = 0; e.dispatchEvent(new Event('input')); });
    const firstAfter = await text(p, '#lens tr:first-child th:nth-child(2)');
    check(firstBefore !== firstAfter && /^0 /.test(firstAfter), 'its slider moves the window to the first positions', `${firstBefore} -> ${firstAfter}`);
    const fits = await p.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth, document.getElementById('lens').getBoundingClientRect().width]);
    check(fits[0] <= fits[1] && fits[2] <= fits[1], 'on a phone the lens window fits the screen\'s width', `page ${fits[0]}px, window ${fits[1]}px, lens ${fits[2].toFixed(0)}px`);
    // Paper: an A4 page's width (794 CSS px at 96 dpi, margins aside).
    await p.setViewport({ width: 700, height: 1000 });
    await p.emulateMediaType('print');
    const printed = await p.evaluate(() => [document.getElementById('lens').getBoundingClientRect().width, document.documentElement.clientWidth]);
    check(printed[0] <= printed[1], 'printed, the lens table fits the page', `table ${printed[0].toFixed(0)}px, page ${printed[1]}px`);
    await p.goto(p.url().split('#')[0] + '#step=0&stage=sample');
    await p.waitForFunction(() => document.body.dataset.stage === 'sample');
    const border = await p.$eval('#logits .bar', b => parseFloat(getComputedStyle(b).borderTopWidth));
    check(border >= 8, 'printed, a bar is a border (it prints without background graphics)', `${border}px`);
    await p.emulateMediaType('screen');
    await p.$eval('#sweep', e => { e.value = 0; e.dispatchEvent(new Event('input')); });
    const sweepNote = await text(p, '#sweep-note');
    check(/renormalised to sum to 1/.test(sweepNote) && /tie/.test(sweepNote), 'the temperature what-if says it renormalises the recorded tokens, and how T = 0 breaks ties', sweepNote);
    await p.goto(p.url().split('#')[0] + '#step=0&layer=1&stage=scores_softmax');
    await p.waitForFunction(() => document.body.dataset.stage === 'scores_softmax');
    check(await p.$eval('#attention .legend', e => e.offsetWidth > 0 && /0.*1.*masked/.test(e.textContent)), 'the attention heatmap has a colour legend');
    // A long prompt's heatmap on a phone (item 12): a readout of the cell under a tap, a zoom that
    // shows cells at a size a finger can hit, panned by scrolling; the token strip folded to a line.
    check(await p.$eval('#tokens', e => e.classList.contains('folded') && e.getBoundingClientRect().height < 40), 'on a phone a long prompt\'s token strip starts folded to one line');
    await p.tap('#tokens-toggle');
    check(await p.$eval('#tokens', e => !e.classList.contains('folded') && e.getBoundingClientRect().height > 60), 'its button shows every token');
    await p.select('#heat-zoom', '4');
    const zoomed = await p.evaluate(() => {
      const cv = document.getElementById('heatmap'), wrap = document.getElementById('heat-wrap');
      return { cell: Number(cv.dataset.size) * cv.getBoundingClientRect().width / cv.width, wrap: wrap.clientWidth, scroll: wrap.scrollWidth };
    });
    check(zoomed.cell >= 20 && zoomed.scroll > zoomed.wrap, 'zoom 4x shows cells a finger can hit, in a frame that pans', `cell ${zoomed.cell.toFixed(1)} px, frame ${zoomed.wrap} of ${zoomed.scroll} px`);
    await p.$eval('#heat-wrap', e => e.scrollIntoView());
    const box = await p.$eval('#heatmap', e => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y }; });
    const cellPx = zoomed.cell, labelPx = 90 * zoomed.cell / (await p.$eval('#heatmap', e => Number(e.dataset.size)));
    await p.touchscreen.tap(box.x + labelPx + cellPx * 1.5, box.y + 16 * zoomed.cell / (await p.$eval('#heatmap', e => Number(e.dataset.size))) + cellPx * 2.5);
    const read = await text(p, '#heat-readout');
    check(/query 2 .* → key 1 .*: p [0-9.]+/.test(read), 'a tap on a cell reads its query, key and probability out', read);
    check(/stage 13 scores_softmax · record \d+ of \d+/.test(await text(p, '#position')), 'the position line counts stages as the catalog does', await text(p, '#position'));
    await p.close();
  }
  // A page within a budget (--page-budget 1.85; the whole page is 1.92 MB) keeps the prefill's arithmetic and says how to get
  // the last steps'.
  {
    const budgetPage = join(dir, 'budget.html');
    check(statSync(budgetPage).size <= 1.85e6, 'the page within --page-budget 1.85 is at most 1.85 MB', `${(statSync(budgetPage).size / 1e6).toFixed(2)} MB`);
    check(/keeps all of it/.test(readFileSync(join(dir, 'budget.txt'), 'utf8')), 'export-html says what the budget left out');
    const last = trace.stages.filter(s => s.stage === 'scores_softmax').pop();
    const { page: p, log } = await open(browser, budgetPage, { hash: `#step=${last.step}&layer=${last.layer + 1}&stage=scores_softmax&head=1&q=${last.startPos}&k=0` });
    check(log.errors.length === 0, 'the budget page loads with no console error', log.errors.join(' | '));
    const missing = await text(p, '#arith-missing');
    check(/left out to keep the page within 1\.85 MB/.test(missing) && missing.includes('--page-budget 0'), 'the last step\'s cell says its arithmetic was left out and how to get it', missing);
    await p.goto(p.url().split('#')[0] + '#step=0&layer=1&stage=scores_softmax&head=1&q=1&k=0');
    await p.waitForFunction(() => document.body.dataset.step === '0');
    check(Number(await text(p, '#arith-dot')) !== 0, 'the prefill\'s first layer keeps its arithmetic', await text(p, '#arith-dot'));
    await p.close();
  }
  // The top-1 token and its probability at step 0; a logit lens cell.
  {
    const sample = findStage(trace, 'sample', 0);
    const { page: p } = await open(browser, page, { hash: '#step=0&stage=sample' });
    const label = await text(p, '#logits [data-rank="1"] .bar-label');
    check(label.replace(/^▶ /, '') === `"${sample.top[0].piece}"`, 'the top-1 token equals the trace\'s (its piece as the trace writes it, in quotes)', label);
    const value = await text(p, '#logits [data-rank="1"] .bar-value');
    const p1 = Number(value.match(/^p ([0-9.e-]+)/)[1]);
    check(near(p1, sample.top[0].probability, 1e-3), 'and its probability', `${p1} vs ${sample.top[0].probability}`);
    // Bars to scale on a laptop and a phone: every bar's track is as wide as the others, and each
    // bar's width is its probability's share of the largest, to a pixel.
    const most = Math.max(...sample.top.map(t => t.probability));
    for (const [name, viewport] of [['1366x768', { width: 1366, height: 768 }], ['phone', { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true }]]) {
      await p.setViewport(viewport);
      const rows = await p.$$eval('#logits .bar-row', rs => rs.map(r => ({
        track: r.querySelector('.bar-track').getBoundingClientRect().width, bar: r.querySelector('.bar').getBoundingClientRect().width })));
      const tracks = rows.map(r => r.track);
      check(rows.length === sample.top.length && Math.max(...tracks) - Math.min(...tracks) < 0.5 && tracks[0] >= 80,
        `${name}: the top tokens' bars share one track`, tracks.map(t => t.toFixed(1)).join(' '));
      const off = rows.map((r, i) => Math.abs(r.bar - Math.max(1, r.track * sample.top[i].probability / most)));
      check(Math.max(...off) <= 1, `${name}: each bar's width is its probability's share of the largest (within 1 px)`,
        rows.map((r, i) => `${r.bar.toFixed(1)}/${r.track.toFixed(1)} for p ${sample.top[i].probability.toFixed(4)}`).join(', '));
    }
    await p.setViewport({ width: 1366, height: 768 });
    await p.goto(p.url().split('#')[0] + '#step=0&layer=2&stage=ffn_residual');
    await p.waitForFunction(() => document.body.dataset.stage === 'ffn_residual' && document.body.dataset.layer === '2');
    const res = findStage(trace, 'ffn_residual', 0, 1);
    const pos = res.startPos + 2;
    const cell = await text(p, `#lens td[data-layer="2"][data-pos="${pos}"] .lens-piece`);
    check(cell === `"${res.lens[2][0].piece}"`, 'a logit lens cell equals the trace\'s', `${cell} vs ${res.lens[2][0].piece}`);
    await p.close();
  }
  // --compare: the first divergence as diff prints it.
  {
    const { page: p, log } = await open(browser, join(dir, 'compare.html'));
    check(log.errors.length === 0, 'the compare page loads with no console error', log.errors.join(' | '));
    const banner = await text(p, '#compare-banner');
    check(/first divergence at step 0 \(prefill\), layer 3,/.test(banner), 'the first divergence is in the ablated layer 3', banner);
    check(await p.$$eval('#compare-table td.diverges', c => c.length) > 0, 'the difference map marks diverging cells');
    // What B was (item 15): its what-if and its text; the step a cell's largest difference is from, and a step to pick.
    const b = await text(p, '#compare-b');
    check(/ablated\.trace: what-if .*ablate-head 3:2/.test(b) && /it generated "/.test(b), 'the compare page says B\'s what-if and what it generated', b);
    check(await p.$$eval('#compare-table td.diverges sub', c => c.length) > 0, 'every-step cells name the step of their largest difference');
    await p.select('#compare-step', '1');
    const steps = await p.$$eval('#compare-table td[data-step]', c => [...new Set(c.map(x => x.dataset.step))]);
    check(steps.length === 1 && steps[0] === '1', 'picking step 1 shows that step\'s differences only', steps.join(','));
    await p.close();
  }
  // Damaged data: a readable message, not a blank page.
  // A number changed in place (its base64 text the same length) parses and decodes: the checksum
  // catches it. A page cut short never runs its script: the guard in its head says so. A changed
  // script fails its CSP hash: the guard says that too.
  for (const [what, damage, expected] of [
    ['a cut float array', html => html.replace(/("probs":\{"b64":")([A-Za-z0-9+/]{40})/, '$1'), /cannot show its run.*expected/],
    ['broken JSON', html => html.replace(/(id="run-data"[^>]*>)\{"/, '$1{]"'), /cannot show its run.*damaged/],
    ['a changed number', html => html.replace(/("b64":"[A-Za-z0-9+/]{20})([A-Za-z0-9+/])/, (m, a, c) => a + (c === 'A' ? 'B' : 'A')), /cannot show its run.*checksum/],
    ['a page cut at 60%', html => html.slice(0, Math.floor(html.length * 0.6)), /incomplete: the file was cut short.*characters into the run's data/],
    ['a page cut before its data', html => html.slice(0, html.indexOf('id="run-data"') - 20), /incomplete: the file was cut short.*\(before the run's data\)/],
    ['a changed script', html => html.replace("'use strict';\n\nclass DataError", "'use strict';\n\nclass DataErrors"), /script did not run/],
  ]) {
    const html = readFileSync(page, 'utf8');
    const broken = damage(html);
    check(broken !== html, `the damage (${what}) applies`);
    const file = join(dir, 'damaged.html');
    writeFileSync(file, broken);
    const { page: p } = await open(browser, file);
    const shown = await p.$eval('#error', e => (e.hidden ? '' : e.textContent));
    const skeleton = await p.$eval('#main', e => e.hidden);
    check(expected.test(shown) && skeleton, `a damaged page (${what}) shows its error, not an empty skeleton`, shown.slice(0, 160));
    await p.close();
  }
} finally {
  await browser.close();
}
// A trace that fails validation: a clear error from export-html, and no page.
{
  const bad = join(dir, 'cut.trace');
  writeFileSync(bad, readFileSync(join(dir, 'run.trace')).subarray(0, 5000));
  let out = '', code = 0;
  try { execFileSync(walkthrough, ['export-html', bad, '--out', join(dir, 'cut.html')], { stdio: 'pipe' }); } catch (e) { code = e.status; out = String(e.stderr); }
  check(code === 1 && out.includes('cut.trace') && /No page was written/.test(out), 'export-html refuses a cut trace, naming it', out.trim().split('\n')[0]);
  check(!existsSync(join(dir, 'cut.html')), 'and writes no page');
}
done();
