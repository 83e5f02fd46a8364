// The live page's batch, patch and tokenize commands (web/page/live_views.js,
// web/module/live_views.cpp) in Debian's chromium: typed into "More options" or opened from a
// course link, run in the worker, and shown with the run page's Batch and Patching panels. Every
// number is checked against the native CLI run here on the same command: the text it prints (the
// page's output box shows the same, the timings aside), and, read from the CLI's own --trace by
// the independent reader trace_file.mjs, each ubatch's table, KV cells and mask and a context
// shift's cells, as the Batch panel draws them; the Patching heatmap's cells against the CLI's
// printed table; tokenize's text. The threaded build (isolated by the server's headers) and the
// single-threaded one (no service workers on a plain host); the CLI's messages for bad commands;
// a course link to a batch command.
// Last, every "Run it here" of the course site (llama-site --live) run in the page: each gives the
// native CLI's text for its words.
//   node live_views.test.mjs WEB_DIR LLAMA_WALKTHROUGH ASSETS_DIR SCREENSHOT_DIR LLAMA_SITE CHAPTERS_DIR
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { launch, screenshotStats, check, done, serve } from './browser.mjs';
import { readTrace, values } from './trace_file.mjs';

const [webDir, cli, assets, shots, siteTool, chapters] = process.argv.slice(2);
mkdirSync(shots, { recursive: true });
const scratch = join(shots, 'scratch');
mkdirSync(scratch, { recursive: true });
const model = join(assets, 'model');

// The commands as a chapter writes them (chapters 16 and 20), without the program's name.
const BATCH = ['batch', '-p', 'And God said', '-p', 'In the beginning', '-p', 'The LORD is my shepherd', '--parallel', '2', '-n', '12'];
const SHIFT = ['batch', '-p', 'And God said', '-p', 'In the beginning', '--parallel', '2', '-n', '40', '--max-seq-len', '24', '--context-shift', '--keep', '2'];
const PATCH = ['patch', '--clean', 'And Moses went unto Aaron. And Aaron said unto', '--corrupt', 'And Joseph went unto Aaron. And Aaron said unto',
               '--answer', ' Moses', '--wrong', ' Joseph'];
// As the page's "more options" field takes them: the shell's words.
const typed = words => words.map(w => (/^[\w.,:/=+-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');

// The native CLI on the bundled model: what it prints (-q), and its trace when asked for one.
function native(words, trace) {
  const args = [words[0], '--model', model, ...(words[0] === 'batch' ? ['-q'] : []), ...words.slice(1), ...(trace ? ['--trace', trace] : [])];
  if (trace) rmSync(trace, { force: true });
  const out = execFileSync(cli, args, { encoding: 'utf8' });
  return out.split('\n').filter(l => !/^(Trace written to|Wrote )/.test(l)).join('\n');
}
// The CLI's refusal of a command: its "error: ..." line, or a parse error's first line, the message alone.
function nativeError(words) {
  const r = spawnSync(cli, [words[0], '--model', model, ...words.slice(1)], { encoding: 'utf8' });
  const lines = r.stderr.split(/[\r\n]+/);
  const error = lines.find(l => l.startsWith('error: '));
  return error ? error.slice('error: '.length) : lines[0];
}
// Printed text with what depends on the machine's speed blanked: tok/s and seconds (and the
// spaces that right-align them in the table).
const timeless = text => text.trim().split('\n').map(l =>
  /^\s*\d+\s+\d+\s+\d+\s+[\d.]+\s+\d+\s/.test(l) ? l.replace(/^(\s*\d+\s+\d+\s+\d+\s+)[\d.]+/, '$1#') : l)
  .join('\n').replace(/in [\d.]+ s/g, 'in # s').replace(/total: [\d.]+ tok\/s/g, 'total: # tok/s').replace(/ +/g, ' ');

async function openLive(browser, address, viewport = { width: 1366, height: 768 }, beforeLoad = async () => {}) {
  const origin = new URL(address).origin;
  const page = await browser.newPage();
  await page.setViewport(viewport);
  await beforeLoad(page);
  const log = { errors: [], outside: [] };
  page.on('console', m => { if (m.type() === 'error') log.errors.push(m.text()); });
  page.on('pageerror', e => log.errors.push(String(e)));
  page.on('request', r => { if (!r.url().startsWith(origin + '/') && !r.url().startsWith('blob:') && !r.url().startsWith('data:')) log.outside.push(r.url()); });
  await page.goto(address);
  await page.waitForFunction(() => document.body.dataset.engine, { timeout: 60000 });
  return { page, log };
}

// Types `command` into "more options", presses Run and waits for its view (or an error); a
// plain run (`view` false) for its end.
async function runCommand(page, command, button = '#run', view = true) {
  await page.$eval('#extra', (e, v) => { e.value = v; }, command);
  await page.evaluate(() => { document.body.dataset.run = ''; document.body.dataset.view = ''; });
  await page.$eval(button, e => e.click());
  await page.waitForFunction(view => document.body.dataset.run === 'error' || (document.body.dataset.run === 'done' && (!view || document.body.dataset.view)),
    { timeout: 300000 }, view);
  return page.evaluate(() => ({ state: document.body.dataset.run, view: document.body.dataset.view, output: document.getElementById('output').textContent,
                                summary: document.getElementById('summary').textContent, error: document.getElementById('live-error').textContent }));
}

// Goes to a stage of the run shown, by the run page's address, and waits for it.
async function goTo(page, step, stage) {
  await page.evaluate((step, stage) => { location.hash = `step=${step}&stage=${stage}`; }, step, stage);
  await page.waitForFunction((step, stage) => document.body.dataset.step === String(step) && document.body.dataset.stage === stage, { timeout: 10000 }, step, stage);
}

// The Batch panel at every ubatch's kv_mask stage against the CLI's trace of the same command.
async function checkBatchPanel(page, trace, label) {
  const ubatches = [];
  trace.stages.forEach(s => {
    if (s.stage === 'ubatch') ubatches.push({ step: s.step, table: s.batch });
    const u = ubatches[ubatches.length - 1];
    if (!u || s.step !== u.step) return;
    if (s.stage === 'kv_slot') u.slot = s.batch;
    if (s.stage === 'kv_mask') u.mask = values(s, 'mask');
  });
  check(ubatches.length > 3 && ubatches.every(u => u.slot && u.mask), `${label}: the CLI's trace records ${ubatches.length} ubatches`);
  const wrong = [];
  for (const [n, u] of ubatches.entries()) {
    await goTo(page, u.step, 'kv_mask');
    const shown = await page.evaluate(() => ({
      where: document.getElementById('batch-where').textContent,
      rows: [...document.querySelectorAll('#batch-table tr[data-token]')].map(r => [...r.children].map(c => c.textContent)),
      cells: [...document.querySelectorAll('#batch-cells .cell')].map(c => [Number(c.dataset.pos), c.dataset.seqs]),
      mask: [...document.querySelectorAll('#batch-mask [data-sees]')].map(c => c.dataset.sees).join(''),
    }));
    const table = u.table.tokens.map((t, i) => [String(i), `"${t.piece}"`, String(t.pos), t.seqIds.join(','), t.output ? 'yes' : 'no']);
    const cells = u.slot.cells.map(c => [c.pos, c.seqIds.join(',')]);
    const [rows, cols] = u.mask.shape;
    let mask = '';
    for (let i = 0; i < rows * cols; i++) mask += u.mask.values[i] === -Infinity ? '0' : '1';
    if (!shown.where.includes(`ubatch ${n + 1} of ${ubatches.length}`)) wrong.push(`ubatch ${n + 1}: "${shown.where}"`);
    if (JSON.stringify(shown.rows) !== JSON.stringify(table)) wrong.push(`ubatch ${n + 1}: table ${JSON.stringify(shown.rows).slice(0, 120)}`);
    if (JSON.stringify(shown.cells.slice(0, cells.length)) !== JSON.stringify(cells)) wrong.push(`ubatch ${n + 1}: cells`);
    if (shown.mask !== mask) wrong.push(`ubatch ${n + 1}: mask`);
  }
  check(wrong.length === 0, `${label}: every ubatch's table (token, pos, seq_ids, output), KV cells and mask in the Batch panel are the CLI's trace's`,
    wrong.slice(0, 4).join(' | '));
  return ubatches.length;
}

// The Patching heatmap's cells against the table the CLI printed (rows: layers; 2 decimals).
async function checkPatchPanel(page, printed, label) {
  const table = printed.split('\n').filter(l => /^\s*\d+(\s+-?\d+\.\d\d)+\s*$/.test(l)).map(l => l.trim().split(/\s+/).slice(1));
  const cells = await page.$$eval('#patch-grid td', tds => tds.map(td => ({ l: +td.dataset.layer, c: +td.dataset.column, text: td.textContent })));
  check(table.length > 0 && cells.length === table.length * table[0].length,
    `${label}: the heatmap has a cell per layer and position of the CLI's table (${table.length} x ${table[0] && table[0].length})`, `${cells.length} cells`);
  const wrong = cells.filter(x => table[x.l - 1][x.c - 1] !== x.text);
  check(wrong.length === 0, `${label}: every cell shows the share recovered the CLI printed`, JSON.stringify(wrong.slice(0, 3)));
  const best = cells.reduce((a, b) => (Number(b.text) > Number(a.text) && b.l < table.length ? b : a));
  return best;
}

const browser = await launch();
const servers = [];
try {
  // The CLI's side, once: printed text and traces.
  const batchTrace = join(scratch, 'batch.trace'), shiftTrace = join(scratch, 'shift.trace');
  const batchText = native(BATCH, batchTrace), shiftText = native(SHIFT, shiftTrace), patchText = native(PATCH);
  check(/\[3\] The LORD is my shepherd/.test(batchText) && /shifts/.test(shiftText) && /^clean: /.test(patchText), 'the native CLI ran the three commands');

  const isolated = await serve(webDir, false);
  servers.push(isolated);
  const { page, log } = await openLive(browser, isolated.origin + '/');
  check(await page.evaluate(() => document.body.dataset.variant) === 'threads', 'isolated by the headers: the threaded build');

  // ---- batch, typed into "more options" ----------------------------------------------------------
  let r = await runCommand(page, typed(BATCH));
  check(r.state === 'done' && r.view === 'batch', 'a batch command typed into "more options" runs and opens the Batch view', r.state === 'done' ? '' : JSON.stringify(r).slice(0, 300));
  const sameBatch = timeless(r.output) === timeless(batchText);
  check(sameBatch, 'the page prints what the CLI prints for it (tok/s and seconds aside)', sameBatch ? '' : `page:\n${r.output}\nCLI:\n${batchText}`);
  check(await page.$eval('#batch-panel', e => !e.hidden && e.getBoundingClientRect().height > 0), 'the Batch panel is shown');
  const sequences = await page.$$eval('#batch-sequences li', lis => lis.map(li => li.textContent));
  const cliSequences = [...batchText.matchAll(/^\[(\d)\] (.*)$/gm)].map(m => m[2]);
  // The panel writes "PROMPT → TEXT (N tokens, REASON)"; the CLI "[i] PROMPTTEXT".
  const panelText = s => s.replace(' → ', '').replace(/ \(\d+ tokens?, [^)]*\)$/, '').replace(/\s+/g, ' ');
  const sameSequences = sequences.length === 3 && sequences.every((s, i) => panelText(s) === cliSequences[i].replace(/\s+/g, ' '));
  check(sameSequences, 'the panel\'s sequences are the CLI\'s prompts and texts', sameSequences ? '' : JSON.stringify(sequences) + ' / ' + JSON.stringify(cliSequences));
  await page.$eval('#batch-panel', e => e.scrollIntoView());
  const png = await page.screenshot({ path: join(shots, 'live-batch-1366x768.png') });
  check((await screenshotStats(browser, png)).colours > 20, 'the Batch view screenshot is a real render');
  await checkBatchPanel(page, readTrace(batchTrace), 'threaded batch');

  // Step stage starts it as Run does (it runs whole); the run page's stage buttons walk its stages.
  r = await runCommand(page, typed(BATCH), '#step-stage');
  check(r.state === 'done' && r.view === 'batch' && timeless(r.output) === timeless(batchText), 'Step stage runs a batch command whole, the same view and text',
    r.state === 'done' ? '' : JSON.stringify(r).slice(0, 300));
  const before = await page.evaluate(() => document.body.dataset.stage);
  await page.$eval('#next', e => e.click());
  check(await page.evaluate(b => document.body.dataset.stage !== b, before), 'the run page\'s Stage ▶ moves on through its stages');

  // ---- a context shift ------------------------------------------------------------------------------
  r = await runCommand(page, typed(SHIFT));
  const sameShift = r.state === 'done' && timeless(r.output) === timeless(shiftText);
  check(sameShift, 'a batch with --context-shift prints the CLI\'s text', sameShift ? '' : `page:\n${r.output}\nCLI:\n${shiftText}`);
  const trace = readTrace(shiftTrace);
  const shifts = trace.stages.filter(s => s.stage === 'context_shift');
  check(shifts.length > 0, 'the CLI\'s trace records a context shift');
  const shift = shifts[shifts.length - 1];
  const next = trace.stages.slice(trace.stages.indexOf(shift)).find(s => s.stage === 'kv_mask');
  await goTo(page, next.step, 'kv_mask');
  const rows = await page.evaluate(() => [...document.querySelectorAll('#batch-shift .row')].map(row =>
    ({ when: row.dataset.when, cells: [...row.querySelectorAll('.cell')].map(c => [Number(c.dataset.pos), c.dataset.seqs]) })));
  for (const when of ['before', 'after']) {
    const row = rows.find(x => x.when === when);
    check(row && JSON.stringify(row.cells) === JSON.stringify(shift.batch[when].map(c => [c.pos, c.seqIds.join(',')])),
      `the shift's cells ${when} in the Batch panel are the CLI trace's`);
  }

  // ---- patch --------------------------------------------------------------------------------------
  r = await runCommand(page, typed(PATCH));
  check(r.state === 'done' && r.view === 'patch', 'a patch command runs and opens the Patching view', r.state === 'done' ? '' : JSON.stringify(r).slice(0, 300));
  check(r.output.trim() === patchText.trim(), 'the page prints the CLI\'s patch table, every number', r.output.trim() === patchText.trim() ? '' : `page:\n${r.output}\nCLI:\n${patchText}`);
  check(await page.$eval('#patch-panel', e => !e.hidden), 'the Patching heatmap is shown');
  const best = await checkPatchPanel(page, patchText, 'threaded patch');
  // A cell opens its stage in the clean run, with the corrupted run beside it (the run page's behaviour).
  await page.click(`#patch-grid td[data-layer="${best.l}"][data-column="${best.c}"]`);
  const both = await page.$eval('#patch-stage', e => e.textContent);
  check(/Clean run: .* Corrupted run: /.test(both), 'a cell opens that stage in both runs', both);
  await page.$eval('#patch-panel', e => e.scrollIntoView());
  const patchPng = await page.screenshot({ path: join(shots, 'live-patch-1366x768.png') });
  check((await screenshotStats(browser, patchPng)).colours > 20, 'the Patching view screenshot is a real render');

  // ---- tokenize: text only, the CLI's -------------------------------------------------------------------
  for (const words of [['tokenize', "I'll pay 1234 dollars!"], ['tokenize', 'the lower parts', '--word', 'lower']]) {
    r = await runCommand(page, typed(words));
    const cliText = native(words);
    const same = r.state === 'done' && r.view === 'tokenize' && r.output.trim() === cliText.trim();
    check(same, `"${typed(words)}" prints the CLI's pieces, merges and ids`, same ? '' : `page:\n${r.output}\nCLI:\n${cliText}`);
  }
  check(await page.$eval('#run-view', e => e.hidden), 'tokenize shows no run panels');

  // ---- the CLI's messages for bad commands; a run after them ------------------------------------------
  for (const bad of [['batch', '-p', 'And God said', '--keep', '2'], ['patch', '--clean', 'And Moses said', '--corrupt', 'And Joseph went unto Aaron', '--answer', ' Moses'],
                     ['batch', '--parallel', '0', '-p', 'x'], ['patch', '--clean', 'x'], ['tokenize', 'a b', '--word', 'c']]) {
    r = await runCommand(page, typed(bad));
    const expected = nativeError(bad);
    check(r.state === 'error' && r.error === expected, `"${typed(bad)}" gets the CLI's message`, `page: ${r.error} | CLI: ${expected}`);
  }
  // And the form's own run still works after the views.
  await page.$eval('#extra', e => { e.value = ''; });
  await page.$eval('#prompt', e => { e.value = 'In the beginning'; });
  await page.evaluate(() => { document.body.dataset.run = ''; });
  await page.$eval('#run', e => e.click());
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.run), { timeout: 120000 });
  check(await page.evaluate(() => document.body.dataset.run === 'done' && document.body.dataset.view === '' &&
                                  document.getElementById('batch-panel').hidden && document.getElementById('patch-panel').hidden),
    'a plain run after them shows neither view');
  check(log.errors.length === 0 && log.outside.length === 0, 'no console error, no request outside the server', log.errors.concat(log.outside).join(' | ').slice(0, 400));
  await page.close();

  // ---- a course link to a batch command (llama-site --live makes it for chapter 16's Try-it) ---------
  const words = [...BATCH.slice(0, 1), '-q', ...BATCH.slice(1)];
  const course = await openLive(browser, isolated.origin + `/#cmd=${encodeURIComponent(JSON.stringify(words))}&expect=${encodeURIComponent('recorded\n')}`);
  check(await course.page.$eval('#course-command', e => !e.hidden), 'a course link to a batch command shows it', await course.page.$eval('#course-line', e => e.textContent));
  r = await runCommand(course.page, '');
  check(r.state === 'done' && r.view === 'batch' && timeless(r.output) === timeless(batchText), 'and runs it exactly: the Batch view and the CLI\'s text',
    r.state === 'done' ? '' : JSON.stringify(r).slice(0, 300));
  await course.page.close();

  // ---- the single-threaded build: a plain host, no service workers ----------------------------------
  const plain = await serve(webDir, true);
  servers.push(plain);
  const single = await openLive(browser, plain.origin + '/', { width: 390, height: 844, isMobile: true },
                                p => p.evaluateOnNewDocument(() => { delete Navigator.prototype.serviceWorker; }));
  check(await single.page.evaluate(() => document.body.dataset.variant) === 'single', 'without service workers: the single-threaded build');
  r = await runCommand(single.page, typed(BATCH));
  check(r.state === 'done' && r.view === 'batch' && timeless(r.output) === timeless(batchText), 'single-threaded: the batch prints the CLI\'s text',
    r.state === 'done' ? '' : JSON.stringify(r).slice(0, 300));
  await checkBatchPanel(single.page, readTrace(batchTrace), 'single-threaded batch');
  await single.page.$eval('#batch-panel', e => e.scrollIntoView());
  await single.page.screenshot({ path: join(shots, 'live-batch-390x844.png') });
  r = await runCommand(single.page, typed(PATCH));
  check(r.state === 'done' && r.output.trim() === patchText.trim(), 'single-threaded: the patch table is the CLI\'s', r.state === 'done' ? '' : JSON.stringify(r).slice(0, 300));
  await checkPatchPanel(single.page, patchText, 'single-threaded patch');
  const sideways = await single.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(sideways <= 0, 'at 390x844 nothing scrolls sideways', `${sideways} px`);
  check(single.log.errors.length === 0, 'no console error in the single-threaded build', single.log.errors.join(' | ').slice(0, 400));

  // ---- every "Run it here" of the course site, in the page ----------------------------------------------
  const siteDir = join(scratch, 'site'), siteTrace = join(scratch, 'site-run.trace');
  rmSync(siteDir, { recursive: true, force: true });
  rmSync(siteTrace, { force: true });
  execFileSync(cli, ['--model', model, '-q', '--prompt', 'In the beginning', '-n', '2', '--trace', siteTrace], { stdio: 'ignore' });
  execFileSync(siteTool, ['--chapters', chapters, '--trace', siteTrace, '--live', webDir, '--out', siteDir], { stdio: 'ignore' });
  const links = readdirSync(siteDir).filter(f => f.endsWith('.html'))
    .flatMap(f => [...readFileSync(join(siteDir, f), 'utf8').matchAll(/href="live\/index\.html#cmd=([^"&]+)/g)].map(m => JSON.parse(decodeURIComponent(m[1]))));
  check(links.length >= 40, `the site links ${links.length} Try-its to the page`);
  const site = await serve(siteDir, false);
  servers.push(site);
  const differ = [];
  for (const words of links) {
    const course = await openLive(browser, `${site.origin}/live/index.html#cmd=${encodeURIComponent(JSON.stringify(words))}`);
    const view = ['batch', 'patch', 'tokenize'].includes(words[0]);
    r = await runCommand(course.page, '', '#run', view);
    let expected, got;
    if (view) {
      expected = timeless(native(words));
      got = timeless(r.output);
    } else {
      // A run: its text, as the CLI prints it before its summary (a what-if's line and report aside).
      const out = execFileSync(cli, ['--model', model, ...(words.includes('-q') ? [] : ['-q']), ...words], { encoding: 'utf8' }).replace(/^What-if experiment[^\n]*\n/, '');
      expected = out.slice(0, out.lastIndexOf('\n\nPrompt tokens:'));
      got = await course.page.evaluate(() => live.result && live.result.text);
    }
    if (r.state !== 'done' || got !== expected) differ.push(`${words.join(' ').slice(0, 80)}: ${r.state} ${r.error} ${JSON.stringify(got).slice(0, 80)} vs ${JSON.stringify(expected).slice(0, 80)}`);
    await course.page.close();
  }
  check(differ.length === 0, `every one of the ${links.length} runs in the page and gives the native CLI's text for its words`, differ.slice(0, 4).join(' | '));
} finally {
  await browser.close();
  for (const s of servers) s.child.kill();
}
done();
